import Glibc
import LayoutClient
import LayoutProtocol

/// `layoutctl watch`: subscribe, then one line per event as it happens: a summary on a
/// terminal, the event's JSON line when piped (so scripts read exactly what the daemon sent).
enum Watcher {
    static func watch(view: String) {
        let client = connect()
        let limit = invocation.integer("--count")
        let subscribed = call(client, "view.subscribe", ["view": .string(view)])
        if invocation.has("--monitor"), let snapshot = subscribed["snapshot"] {
            emit(snapshot, table: snapshotTable)
        }
        client.waitForever()
        var seen = 0
        while limit.map({ seen < $0 }) ?? true {
            let event: JSONObject?
            do {
                event = try client.nextEvent()
            } catch {
                fail(error)
            }
            guard let event else {
                writeError("layoutctl: the daemon closed the connection\n")
                exit(1)
            }
            seen += 1
            if invocation.wantsJSON {
                writeOut(JSONWriter.string(.object(event)) + "\n")
            } else {
                writeOut(summary(event))
            }
            if event["event"]?.stringValue == "view.deleted" || event["event"]?.stringValue == "daemon.shutdown" { break }
        }
    }

    static func summary(_ event: JSONObject) -> String {
        let name = event["event"]?.stringValue ?? "event"
        let seq = formatNumber(event["seq"])
        let params = event["params"] ?? .null
        switch name {
        case "view.invalidated": return "#\(seq) " + invalidationSummary(params)
        case "view.resync": return "#\(seq) resync \(params["view"]?.stringValue ?? ""): \(formatNumber(params["skipped"])) updates skipped, now epoch \(formatNumber(params["snapshot"]?["epoch"]))\n"
        case "view.deleted": return "#\(seq) \(params["view"]?.stringValue ?? "") deleted\n"
        case "daemon.shutdown": return "#\(seq) daemon shutting down (\(params["reason"]?.stringValue ?? ""))\n"
        default: return "#\(seq) \(name)\n"
        }
    }
}
