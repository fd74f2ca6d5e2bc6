import Dispatch
import Glibc
import Synchronization

/// syslog priorities, as journald and `<N>` stderr prefixes use them.
public enum LogPriority: Int, Sendable, Comparable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7

    public static func < (lhs: LogPriority, rhs: LogPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the daemon's log lines go. The default writes `<N>message key=value…` lines to stderr
/// (what journald parses from a service's stderr), escaped by `LogEscaping` so that each is
/// one line whatever a client sent; the systemd module can replace it.
///
/// Lines a client can repeat at will are logged `throttledAs` a `LogKind` and go through
/// `throttle`: dropped lines are counted, and the count is written with the next line of the
/// kind (`(suppressed N similar lines in the last S s)`, field `LAYOUTD_SUPPRESSED`) or in a
/// summary line once the rate allows one.
public struct Logger: Sendable {
    public typealias Sink = @Sendable (LogPriority, String, [(String, String)]) -> Void

    public var threshold: LogPriority
    public var sink: Sink
    public var throttle: LogThrottle
    /// Runs a throttle summary after a delay in seconds (injectable for tests).
    public var schedule: @Sendable (Double, @escaping @Sendable () -> Void) -> Void

    public init(
        threshold: LogPriority = .info, throttle: LogThrottle = LogThrottle(),
        schedule: @escaping @Sendable (Double, @escaping @Sendable () -> Void) -> Void = Logger.afterDelay,
        sink: @escaping Sink = Logger.standardError
    ) {
        self.threshold = threshold
        self.sink = sink
        self.throttle = throttle
        self.schedule = schedule
    }

    public func wants(_ priority: LogPriority) -> Bool { priority <= threshold }

    public func log(_ priority: LogPriority, _ message: String, _ fields: [(String, String)] = []) {
        guard priority <= threshold else { return }
        sink(priority, message, fields)
    }

    /// Logs a line of a kind a client can repeat, through the throttle (unthrottled when
    /// `kind` is nil).
    public func log(_ priority: LogPriority, _ message: String, _ fields: [(String, String)] = [], throttledAs kind: LogKind?) {
        guard priority <= threshold else { return }
        guard let kind else { return sink(priority, message, fields) }
        switch throttle.admit(kind) {
        case .write(let suppressed, let seconds):
            guard suppressed > 0 else { return sink(priority, message, fields) }
            sink(priority, message + " (\(Self.suppressedText(suppressed, seconds)))", fields + [("LAYOUTD_SUPPRESSED", String(suppressed))])
        case .drop(let summaryAfter):
            guard let summaryAfter else { return }
            let (throttle, sink) = (self.throttle, self.sink)
            schedule(summaryAfter) {
                guard let (suppressed, seconds) = throttle.summary(for: kind) else { return }
                sink(priority, "\(kind): \(Self.suppressedText(suppressed, seconds))",
                     [("LAYOUTD_THROTTLED", kind.rawValue), ("LAYOUTD_SUPPRESSED", String(suppressed))])
            }
        }
    }

    public static let afterDelay: @Sendable (Double, @escaping @Sendable () -> Void) -> Void = { seconds, work in
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds, execute: work)
    }

    // MARK: Standard error

    private static let lock = Mutex(())

    public static let standardError: Sink = { priority, message, fields in
        let line = textLine(priority, message, fields) + "\n"
        let bytes = Array(line.utf8)
        lock.withLock { _ in
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + written, $0.count - written) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                written += count
            }
        }
    }

    /// `<N>message key=value…` without the newline: message and values escaped, keys in
    /// lower case.
    public static func textLine(_ priority: LogPriority, _ message: String, _ fields: [(String, String)]) -> String {
        var line = "<\(priority.rawValue)>" + LogEscaping.escape(message, for: .message)
        for (key, value) in fields { line += " \(key.lowercased())=" + LogEscaping.escape(value, for: .value) }
        return line
    }

    // MARK: Private helpers

    private static func suppressedText(_ count: Int, _ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "suppressed \(count) similar lines in the last \(tenths / 10).\(tenths % 10) s"
    }
}
