import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

/// Commands that ask the daemon itself.
enum DaemonCommands {
    /// A daemon-wide method with no arguments (the command's `method`), its result printed by
    /// `table` on a terminal.
    static func ask(_ table: @escaping @Sendable (JSONValue) -> String) -> @Sendable (Invocation) -> Void {
        { invocation in
            _ = positional(0, "no arguments")
            let client = connect()
            emit(call(client, invocation.command.method!, [:]), table: table)
        }
    }

    /// Every field, nested objects flattened to dotted names.
    static func fields(_ result: JSONValue) -> String { Table(columns: ["field", "value"], rows: keyValueTable(result)).render() }

    /// A row per parameter, under its strategy's name, origin and summary; a refused plugin
    /// gets one line with the reason.
    static func strategies(_ result: JSONValue) -> String {
        (result["strategies"]?.arrayValue ?? []).map { strategy in
            let heading = "\(strategy["name"]?.stringValue ?? "") (\(strategy["origin"]?.stringValue ?? "built-in"))"
            if strategy["status"]?.stringValue == "refused" {
                return "\(heading): refused: \(strategy["reason"]?.stringValue ?? "")\n"
            }
            return "\(heading): \(strategy["summary"]?.stringValue ?? "")\n"
                + Table(
                    columns: ["  parameter", "type", "default", "summary"],
                    rows: (strategy["parameters"]?.arrayValue ?? []).map { parameter in
                        ["  " + (parameter["name"]?.stringValue ?? ""), parameter["type"]?.stringValue ?? "",
                         parameter["default"].map { JSONWriter.string($0) } ?? "", parameter["summary"]?.stringValue ?? ""]
                    }
                ).render()
        }.joined(separator: "\n")
    }

    static func views(_ result: JSONValue) -> String {
        Table(
            columns: ["view", "strategy", "epoch", "items"],
            rows: (result["views"]?.arrayValue ?? []).map { view in
                [view["view"]?.stringValue ?? "", view["strategy"]?.stringValue ?? "", formatNumber(view["epoch"]), formatNumber(view["itemCount"])]
            }
        ).render()
    }

    static func methods(_ result: JSONValue) -> String {
        Table(
            columns: ["method", "summary"],
            rows: (result["methods"]?.arrayValue ?? []).map { [$0["name"]?.stringValue ?? "", $0["summary"]?.stringValue ?? ""] }
        ).render()
    }
}
