import Foundation
import Glibc
import LayoutProtocol
@testable import LayoutdClient
import Testing

/// The client against a fake layoutd that misbehaves (system-tests/hostile/server.py), one case per
/// scenario of system-tests/hostile/scenarios.json, on both connections: the outcome the table
/// gives, no later than the deadline plus one poll interval, the strays counted and the memory
/// bounded. A scenario whose outcome this suite does not know fails.
@Suite("hostile server", .serialized)
struct HostileServerTests {
    static let table = HostileTable.load()

    @Test("LayoutdConnection: each scenario's outcome, deadline, strays and memory", arguments: table.scenarios)
    func asyncConnection(_ scenario: HostileScenario) async throws {
        try await onOwnExecutor { try await Self.asyncCase(scenario) }
    }

    static func asyncCase(_ scenario: HostileScenario) async throws {
        let server = try HostileServer.shared()
        let table = Self.table
        let before = residentKiB()
        let started = ContinuousClock.now
        var observed = Observed()
        do {
            let connection = try LayoutdConnection(path: server.socket(scenario.name), timeout: table.deadline, lineCap: table.lineCap)
            defer { connection.close() }
            observed.connected = true
            for _ in 0..<(scenario.outcome == "ok" ? 2 : 1) {
                let call = ContinuousClock.now
                do {
                    _ = try await connection.call("daemon.sync")
                    observed.outcome = "ok"
                } catch {
                    observed.record(error, connected: true)
                    if case .malformed = error {
                        // Every waiting call fails with the same error, and so does every later one.
                        observed.laterCallAgrees = await Self.fails(connection, like: error)
                    }
                }
                observed.longestCall = max(observed.longestCall, seconds(ContinuousClock.now - call))
                guard observed.outcome == "ok" else { break }
            }
            if let wanted = scenario.strays {
                await waitUntil(seconds: 2) { connection.strayCount >= wanted }
            }
            observed.strays = connection.strayCount
            observed.grewMiB = Double(residentKiB() - before) / 1024
            observed.peakBufferedBytes = connection.peakBufferedByteCount
            observed.keptEvents = connection.queuedEventCount
            observed.keptStrays = connection.recentStrays.count
        } catch {
            observed.record(error, connected: false)
            observed.longestCall = seconds(ContinuousClock.now - started)
        }
        Self.check(scenario, observed, on: "LayoutdConnection")
    }

    @Test("BlockingConnection: each scenario's outcome, deadline, strays and memory", arguments: table.scenarios)
    func blockingConnection(_ scenario: HostileScenario) async throws {
        try await onOwnThread { try Self.blockingCase(scenario) }
    }

    static func blockingCase(_ scenario: HostileScenario) throws {
        let server = try HostileServer.shared()
        let table = Self.table
        let before = residentKiB()
        let started = ContinuousClock.now
        var observed = Observed()
        do {
            let connection = try BlockingConnection(path: server.socket(scenario.name), timeout: table.deadline, lineCap: table.lineCap)
            observed.connected = true
            for _ in 0..<(scenario.outcome == "ok" ? 2 : 1) {
                let call = ContinuousClock.now
                do {
                    _ = try connection.call("daemon.sync")
                    observed.outcome = "ok"
                } catch {
                    observed.record(error, connected: true)
                    if case .malformed = error {
                        do {
                            _ = try connection.call("daemon.sync")
                            observed.laterCallAgrees = false
                        } catch {
                            observed.laterCallAgrees = "\(error)" == "\(connection.closingError.map { "\($0)" } ?? "")"
                        }
                    }
                }
                observed.longestCall = max(observed.longestCall, seconds(ContinuousClock.now - call))
                guard observed.outcome == "ok" else { break }
            }
            observed.strays = connection.strayCount
            observed.grewMiB = Double(residentKiB() - before) / 1024
            observed.peakBufferedBytes = connection.peakBufferedByteCount
            observed.keptEvents = connection.pendingEvents.count
            observed.keptStrays = connection.recentStrays.count
            connection.close()
        } catch {
            observed.record(error, connected: false)
            observed.longestCall = seconds(ContinuousClock.now - started)
        }
        check(scenario, observed, on: "BlockingConnection")
    }

    // MARK: Checks

    struct Observed {
        var connected = false
        var outcome = "none"
        var error: LayoutdError?
        var longestCall = 0.0
        var strays = 0
        var grewMiB = 0.0
        /// For a protocol error: a later call fails with the same error (nil: not asked).
        var laterCallAgrees: Bool?
        /// What the client held: its read buffer at most, the events and strays it kept.
        var peakBufferedBytes = 0
        var keptEvents = 0
        var keptStrays = 0

        mutating func record(_ error: LayoutdError, connected: Bool) {
            self.error = error
            switch (error, connected) {
            case (.timeout, true): outcome = "timeout"
            case (.malformed, true): outcome = "protocol"
            case (.transport, true): outcome = "closed"
            case (.timeout, false), (.transport, false): outcome = "unreachable"
            case (.refused, _): outcome = "refused"
            case (.malformed, false): outcome = "malformed at connect"
            }
        }
    }

    static func check(_ scenario: HostileScenario, _ observed: Observed, on connection: String) {
        let table = Self.table
        let known = ["ok", "timeout", "protocol", "closed", "unreachable"]
        guard known.contains(scenario.outcome) else {
            Issue.record("\(scenario.name): outcome '\(scenario.outcome)' is not one this suite knows (\(known.joined(separator: ", ")))")
            return
        }
        let actual = "\(observed.outcome) in \(String(format: "%.3f", observed.longestCall)) s, \(observed.strays) strays, "
            + "buffer peak \(observed.peakBufferedBytes / 1024) KiB, \(observed.keptEvents) events and \(observed.keptStrays) strays kept, "
            + "RSS +\(String(format: "%.1f", observed.grewMiB)) MiB" + (observed.error.map { " (\($0))" } ?? "")
        let expected = "\(scenario.outcome) within \(table.deadline + table.pollSlack) s" + (scenario.strays.map { ", at least \($0) strays" } ?? "")
            + (scenario.memoryMiB.map { ", at most +\($0) MiB" } ?? "")
        let report = "\(connection) \(scenario.name) (\(scenario.does)):\n  expected \(expected)\n  actual   \(actual)"
        print(report)
        #expect(observed.outcome == scenario.outcome, "\(report)")
        #expect(observed.longestCall <= table.deadline + table.pollSlack, "\(report)")
        if let strays = scenario.strays { #expect(observed.strays >= strays, "\(report)") }
        // Memory: what the client holds is bounded by the cap and the queues' sizes, always. The
        // process's RSS is checked against the table when LAYOUTD_CHECK_RSS is set (a run of this
        // suite alone): in the full `swift test`, other suites allocate and free hundreds of MiB
        // in the same process meanwhile.
        #expect(observed.peakBufferedBytes <= 2 * table.lineCap + (1 << 16), "the read buffer passed twice the cap: \(report)")
        #expect(observed.keptEvents <= 1024 && observed.keptStrays <= 16, "\(report)")
        if let memory = scenario.memoryMiB, ProcessInfo.processInfo.environment["LAYOUTD_CHECK_RSS"] != nil {
            #expect(observed.grewMiB <= memory, "\(report)")
        }
        if scenario.outcome == "protocol" { #expect(observed.laterCallAgrees == true, "a later call fails with the same protocol error: \(report)") }
    }

    static func fails(_ connection: LayoutdConnection, like error: LayoutdError) async -> Bool {
        do {
            _ = try await connection.call("daemon.sync")
            return false
        } catch {
            return "\(error)" == "\(connection.closingError.map { "\($0)" } ?? "")" && connection.waitingCallCount == 0
        }
    }
}

/// system-tests/hostile/scenarios.json.
struct HostileTable: Sendable {
    var deadline: Double
    var lineCap: Int
    var pollSlack: Double
    var scenarios: [HostileScenario]

    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("system-tests").appendingPathComponent("hostile")

    static func load() -> HostileTable {
        let path = directory.appendingPathComponent("scenarios.json").path
        guard let data = FileManager.default.contents(atPath: path), let value = try? JSONParser.parse(Array(data)),
            let deadline = value["deadline"]?.numberValue, let lineCap = value["lineCap"]?.integerValue, let slack = value["pollSlack"]?.numberValue,
            let scenarios = value["scenarios"]?.arrayValue
        else { fatalError("cannot read \(path)") }
        return HostileTable(
            deadline: deadline, lineCap: lineCap, pollSlack: slack,
            scenarios: scenarios.map { scenario in
                HostileScenario(
                    name: scenario["name"]?.stringValue ?? "?", outcome: scenario["outcome"]?.stringValue ?? "?",
                    does: scenario["does"]?.stringValue ?? "", strays: scenario["strays"]?.integerValue, memoryMiB: scenario["memoryMiB"]?.numberValue)
            })
    }
}

struct HostileScenario: Sendable, CustomTestStringConvertible {
    var name: String
    var outcome: String
    var does: String
    var strays: Int?
    var memoryMiB: Double?

    var testDescription: String { name }
}

/// One `python3 system-tests/hostile/server.py DIR` for the whole run; it ends when this process does
/// (its stdin closes).
final class HostileServer: Sendable {
    let directory: String
    private let process: Process

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-hostile-\(getpid())").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", HostileTable.directory.appendingPathComponent("server.py").path, directory]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = Pipe()
        try process.run()
        var seen = ""
        while !seen.contains("ready") {
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { throw HostileServerFailure(message: "system-tests/hostile/server.py ended before ready: \(seen)") }
            seen += String(decoding: data, as: UTF8.self)
        }
        self.process = process
    }

    func socket(_ scenario: String) -> String { directory + "/" + scenario + ".sock" }

    private static let started = Result { try HostileServer() }

    static func shared() throws -> HostileServer { try started.get() }
}

struct HostileServerFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// This process's resident memory (VmRSS), in KiB.
func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass.
func waitUntil(seconds limit: Double, _ condition: () -> Bool) async {
    let end = ContinuousClock.now + .milliseconds(Int(limit * 1000))
    while !condition(), ContinuousClock.now < end { try? await Task.sleep(for: .milliseconds(10)) }
}
