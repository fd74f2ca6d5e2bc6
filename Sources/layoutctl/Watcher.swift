import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutProtocol

/// `layoutctl watch`: subscribe, then one line per event as it happens: a summary on a
/// terminal, the event's JSON line when piped (so scripts read exactly what the daemon sent).
///
/// How the stream ends decides the exit code (`layoutctl help watch`): 0 when `--count` events
/// were printed or SIGINT/SIGTERM stopped it (what the user asked for); 1 when the daemon
/// shut down or the connection dropped; 2 when the view was deleted.
enum Watcher {
    /// Why a watch stopped.
    enum Ending {
        /// `--count` events were printed.
        case countReached
        /// `daemon.shutdown` arrived (its reason, when it gave one).
        case daemonShutdown(String?)
        /// `view.deleted` arrived.
        case viewDeleted
        /// The connection ended or broke without an event saying why.
        case connectionDropped(String)

        var exitCode: Int32 {
            switch self {
            case .countReached: 0
            case .daemonShutdown, .connectionDropped: 1
            case .viewDeleted: 2
            }
        }

        var message: String? {
            switch self {
            case .countReached: nil
            case .daemonShutdown(let reason): "the daemon shut down" + (reason.map { " (\($0))" } ?? "")
            case .viewDeleted: "the view was deleted"
            case .connectionDropped(let why): "the connection to the daemon dropped: \(why)"
            }
        }
    }

    static func watch(view: String) -> Never {
        stopQuietlyOnSignals()
        let client = connect()
        let limit = invocation.integer("--count")
        let subscribed = call(client, "view.subscribe", ["view": .string(view)])
        if invocation.has("--monitor"), let snapshot = subscribed["snapshot"] {
            emit(snapshot, table: snapshotTable)
        }
        client.waitForever()
        let ending = stream(client, limit: limit)
        if let message = ending.message { writeError("layoutctl: watch ended: \(message)\n") }
        exit(ending.exitCode)
    }

    // MARK: Internals

    static func stream(_ client: BlockingConnection, limit: Int?) -> Ending {
        var seen = 0
        while limit.map({ seen < $0 }) ?? true {
            let event: JSONObject?
            do {
                event = try client.nextEvent()
            } catch {
                return .connectionDropped(error.description)
            }
            guard let event else { return .connectionDropped("the daemon closed it") }
            seen += 1
            withSignalsHeld {
                writeOut(invocation.wantsJSON ? JSONWriter.string(.object(event)) + "\n" : summary(event))
            }
            switch event["event"]?.stringValue {
            case "daemon.shutdown": return .daemonShutdown(event["params"]?["reason"]?.stringValue)
            case "view.deleted": return .viewDeleted
            default: continue
            }
        }
        return .countReached
    }

    static func summary(_ event: JSONObject) -> String {
        let name = event["event"]?.stringValue ?? "event"
        let seq = formatNumber(event["seq"])
        let params = event["params"] ?? .null
        switch name {
        case "view.invalidated": return "#\(seq) " + invalidationSummary(params)
        case "view.resync": return "#\(seq) resync \(params["view"]?.stringValue ?? ""): \(formatNumber(params["skipped"])) updates skipped, now epoch \(formatNumber(params["snapshot"]?["epoch"]))\n"
        case "view.deleted": return "#\(seq) \(params["view"]?.stringValue ?? "") deleted\n"
        case "view.transitionInterrupted":
            return "#\(seq) \(params["view"]?.stringValue ?? "") transition to \(params["strategy"]?.stringValue ?? "") interrupted at \(formatNumber(params["progress"])), epoch \(formatNumber(params["epoch"]))\n"
        case "daemon.shutdown": return "#\(seq) daemon shutting down (\(params["reason"]?.stringValue ?? ""))\n"
        default: return "#\(seq) \(name)\n"
        }
    }

    // MARK: Private helpers

    /// SIGINT and SIGTERM end a watch the way the user asked: exit 0, nothing on stderr.
    /// `_exit` is async-signal-safe, and no output is buffered (`writeOut` writes through).
    private static func stopQuietlyOnSignals() {
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
    }

    /// Runs `body` with SIGINT and SIGTERM held, so a signal never cuts an event's line in half:
    /// one that arrives meanwhile is delivered (and exits) once the line is out.
    private static func withSignalsHeld(_ body: () -> Void) {
        var held = sigset_t()
        var previous = sigset_t()
        sigemptyset(&held)
        sigaddset(&held, SIGINT)
        sigaddset(&held, SIGTERM)
        sigprocmask(SIG_BLOCK, &held, &previous)
        body()
        sigprocmask(SIG_SETMASK, &previous, nil)
    }
}
