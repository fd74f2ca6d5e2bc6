import LayoutServer
import Synchronization
import Testing

@Suite("log escaping")
struct LogEscapingTests {
    @Test(
        "field values: one line, quoted when a reader could split them",
        arguments: [
            ("plain", "plain"),
            ("", "\"\""),
            ("a b", "\"a b\""),
            ("k=v", "\"k=v\""),
            ("say \"hi\"", "\"say \\\"hi\\\"\""),
            ("x\n<0>forged", "x\\n<0>forged"),
            ("x\r\n<0>forged", "x\\r\\n<0>forged"),
            ("tab\there", "tab\\there"),
            ("back\\slash", "back\\\\slash"),
            ("\u{1b}[2J\u{0}\u{7f}", "\\x1b[2J\\x00\\x7f"),
            ("nel\u{85}csi\u{9b}", "nel\\u0085csi\\u009b"),
            ("line\u{2028}para\u{2029}", "line\\u2028para\\u2029"),
            ("rtl\u{202e}txt\u{2066}", "rtl\\u202etxt\\u2066"),
            ("nbsp\u{a0}x=1", "\"nbsp\u{a0}x=1\""),
            ("vue\u{301}e 👍", "\"vue\u{301}e 👍\""),
        ])
    func values(input: String, expected: String) {
        #expect(LogEscaping.escape(input, for: .value) == expected)
    }

    @Test(
        "messages: one line, and no key=value before the real fields",
        arguments: [
            ("view.get refused: ViewNotFound", "view.get refused: ViewNotFound"),
            ("x\n<0>forged refused: MethodNotFound", "x\\n<0>forged refused: MethodNotFound"),
            ("m layoutd_view=evil refused", "m layoutd_view\\x3devil refused"),
            ("quote \" stays", "quote \" stays"),
            ("\\n is not a newline", "\\\\n is not a newline"),
        ])
    func messages(input: String, expected: String) {
        #expect(LogEscaping.escape(input, for: .message) == expected)
    }

    @Test("journal messages stay printable; = and quotes are left alone")
    func journalMessages() {
        #expect(LogEscaping.escape("a=b \"c\"\n<0>d\u{2028}", for: .journalMessage) == "a=b \"c\"\\n<0>d\\u2028")
    }

    @Test("a view named x\\n<0>forged makes exactly one text line")
    func forgedPriority() {
        let line = Logger.textLine(
            .info, "view.get refused: ViewNotFound", [("LAYOUTD_VIEW", "x\n<0>forged"), ("LAYOUTD_ERROR", "ViewNotFound")])
        #expect(line == "<6>view.get refused: ViewNotFound layoutd_view=x\\n<0>forged layoutd_error=ViewNotFound")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7f...0x9f).contains($0.value) })
    }
}

/// A clock and a scheduler the test moves by hand.
private final class ManualTime: Sendable {
    private let state = Mutex<(now: Double, pending: [(Double, @Sendable () -> Void)])>((0, []))

    var now: Double { state.withLock { $0.now } }

    func advance(by seconds: Double) {
        let due = state.withLock { state -> [@Sendable () -> Void] in
            state.now += seconds
            let now = state.now
            let due = state.pending.filter { $0.0 <= now }.map(\.1)
            state.pending.removeAll { $0.0 <= now }
            return due
        }
        for work in due { work() }
    }

    func schedule(after seconds: Double, _ work: @escaping @Sendable () -> Void) {
        state.withLock { $0.pending.append(($0.now + seconds, work)) }
    }

    var pendingCount: Int { state.withLock { $0.pending.count } }
}

private final class Lines: Sendable {
    private let lines = Mutex<[(LogPriority, String, [(String, String)])]>([])

    func append(_ priority: LogPriority, _ message: String, _ fields: [(String, String)]) {
        lines.withLock { $0.append((priority, message, fields)) }
    }

    var messages: [String] { lines.withLock { $0.map(\.1) } }

    /// The sum of the LAYOUTD_SUPPRESSED fields.
    var suppressed: Int {
        lines.withLock { $0.flatMap(\.2).filter { $0.0 == "LAYOUTD_SUPPRESSED" }.compactMap { Int($0.1) }.reduce(0, +) }
    }
}

@Suite("log throttle")
struct LogThrottleTests {
    private func logger(_ time: ManualTime, _ lines: Lines) -> Logger {
        Logger(
            threshold: .info, throttle: LogThrottle(policy: .standard, clock: { time.now }),
            schedule: { time.schedule(after: $0, $1) }, sink: { lines.append($0, $1, $2) })
    }

    @Test("a burst of 10,000 refusals writes the burst, then one summary with the exact count")
    func burst() {
        let (time, lines) = (ManualTime(), Lines())
        let logger = logger(time, lines)
        for index in 0..<10_000 { logger.log(.info, "view.get refused: \(index)", throttledAs: .refusedRequest) }
        #expect(lines.messages.count == 10)
        #expect(lines.suppressed == 0)
        #expect(time.pendingCount == 1)
        time.advance(by: 1)
        #expect(lines.messages.count == 11)
        #expect(lines.messages.last == "refused request: suppressed 9990 similar lines in the last 1.0 s")
        #expect(lines.suppressed == 9990)
    }

    @Test("after the interval lines flow again and the first one carries the suppressed count")
    func flowsAgain() {
        let (time, lines) = (ManualTime(), Lines())
        let throttle = LogThrottle(policy: .standard, clock: { time.now })
        let logger = Logger(threshold: .info, throttle: throttle, schedule: { _, _ in }, sink: { lines.append($0, $1, $2) })
        for _ in 0..<25 { logger.log(.warning, "refused a connection", throttledAs: .refusedConnection) }
        time.advance(by: 0.5)
        logger.log(.warning, "refused a connection", throttledAs: .refusedConnection)
        #expect(lines.messages.count == 10)
        time.advance(by: 0.5)
        logger.log(.warning, "refused a connection", throttledAs: .refusedConnection)
        #expect(lines.messages.last == "refused a connection (suppressed 16 similar lines in the last 1.0 s)")
        #expect(lines.suppressed == 16)
        // A full interval later the whole burst is available again, and nothing is owed.
        time.advance(by: 10)
        for _ in 0..<10 { logger.log(.warning, "refused a connection", throttledAs: .refusedConnection) }
        #expect(lines.messages.count == 21)
        #expect(lines.suppressed == 16)
    }

    @Test("kinds are throttled apart, and unthrottled lines are never dropped")
    func kindsApart() {
        let (time, lines) = (ManualTime(), Lines())
        let logger = logger(time, lines)
        for _ in 0..<100 {
            logger.log(.error, "accept failed: EMFILE", throttledAs: .acceptFailed)
            logger.log(.warning, "line over 10 bytes; closing", throttledAs: .lineTooLong)
            logger.log(.info, "configuration reloaded", throttledAs: nil)
        }
        #expect(lines.messages.filter { $0.hasPrefix("accept failed") }.count == 10)
        #expect(lines.messages.filter { $0.hasPrefix("line over") }.count == 10)
        #expect(lines.messages.filter { $0.hasPrefix("configuration") }.count == 100)
    }

    @Test("a steady flood logs about one line a second, and every dropped line is counted")
    func steadyFlood() {
        let (time, lines) = (ManualTime(), Lines())
        let logger = logger(time, lines)
        // 60 s at 1,000 refusals a second.
        for _ in 0..<60_000 {
            logger.log(.info, "view.get refused: ViewNotFound", throttledAs: .refusedRequest)
            time.advance(by: 0.001)
        }
        time.advance(by: 5)
        let written = lines.messages.filter { $0.hasPrefix("view.get refused") }.count
        #expect(lines.messages.count <= 10 + 60 + 1)
        #expect(written + lines.suppressed == 60_000)
        #expect(time.pendingCount == 0)
    }

    @Test("below the threshold a line neither logs nor takes a token")
    func threshold() {
        let (time, lines) = (ManualTime(), Lines())
        var logger = logger(time, lines)
        logger.threshold = .warning
        for _ in 0..<100 { logger.log(.info, "view.get refused", throttledAs: .refusedRequest) }
        logger.threshold = .info
        for _ in 0..<10 { logger.log(.info, "view.get refused", throttledAs: .refusedRequest) }
        #expect(lines.messages.count == 10)
        #expect(lines.suppressed == 0)
    }

    @Test("many threads at once: the count stays exact")
    func concurrent() async {
        let (time, lines) = (ManualTime(), Lines())
        let logger = logger(time, lines)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { for _ in 0..<1_000 { logger.log(.info, "refused", throttledAs: .refusedRequest) } }
            }
        }
        time.advance(by: 1)
        #expect(lines.messages.count == 11)
        #expect(lines.suppressed == 7_990)
    }
}
