import Glibc
import LayoutClient
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

/// Commands that make, read and delete views.
enum ViewCommands {
    static func create(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        guard let width = invocation.number("--width"), let height = invocation.number("--height") else {
            usageError("create needs --width and --height", command: command)
        }
        var viewport: JSONObject = ["width": .number(width), "height": .number(height)]
        if let offset = invocation.value("--offset") {
            guard let (x, y) = ValueText.point(offset) else { usageError("--offset takes X,Y", command: command) }
            viewport["offset"] = .object(["x": .number(x), "y": .number(y)])
        }
        let strategy = invocation.value("--strategy") ?? "flow"
        let words = invocation.values["--param"] ?? []
        _ = parameters(words)  // NAME=VALUE before asking the daemon for the types
        let client = connect()
        var params: JSONObject = [
            "view": .string(view), "strategy": .string(strategy),
            "params": .object(parameters(words, types: words.isEmpty ? [:] : parameterTypes(client, strategy: strategy))), "viewport": .object(viewport),
        ]
        if let margin = invocation.number("--margin") { params["windowMargin"] = .number(margin) }
        if invocation.has("--rtl") { params["layoutDirection"] = .string("rtl") }
        if let anchor = invocation.value("--anchor") { params["anchor"] = .string(anchor) }
        // One section "s" (what insert, move and load use by default), empty unless --items.
        let count = max(0, invocation.integer("--items") ?? 0)
        params["sections"] = .array([.object(["id": .string("s"), "items": .array((0..<count).map { .object(["id": .string("i\($0)")]) })])])
        emit(call(client, "view.create", params), table: snapshotTable)
    }

    static func deleteView(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        let client = connect()
        emit(call(client, "view.delete", ["view": .string(view)])) { _ in "deleted \(view)\n" }
    }

    static func get(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        let client = connect()
        emit(call(client, "view.get", ["view": .string(view)]), table: snapshotTable)
    }

    static func query(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        let client = connect()
        let rect: JSONValue
        if let text = invocation.value("--rect") {
            guard let parsed = ValueText.rect(text) else { usageError("--rect takes X,Y,W,H", command: command) }
            rect = parsed
        } else {
            let current = call(client, "view.get", ["view": .string(view)])
            let offset = current["viewport"]?["offset"]
            rect = .object(["x": offset?["x"] ?? .number(0), "y": offset?["y"] ?? .number(0), "width": current["viewport"]?["width"] ?? .number(0), "height": current["viewport"]?["height"] ?? .number(0)])
        }
        emit(queryAll(client, view: view, rect: rect)) { result in
            elementsTable(result["elements"]?.arrayValue ?? [], selected: Set((result["selected"]?.arrayValue ?? []).compactMap(\.stringValue)))
        }
    }

    static func item(_ invocation: Invocation) {
        let words = positional(2, "VIEW ID")
        let client = connect()
        emit(call(client, "view.item", ["view": .string(words[0]), "id": .string(words[1])])) { result in
            elementsTable([result["attributes"] ?? .null])
        }
    }

    static func hit(_ invocation: Invocation) {
        let words = positional(2, "VIEW X,Y")
        guard let point = ValueText.point(words[1]) else { usageError("the point is X,Y", command: command) }
        var params: JSONObject = ["view": .string(words[0]), "point": .object(["x": .number(point.x), "y": .number(point.y)])]
        if let kinds = invocation.value("--kinds") {
            params["kinds"] = .array(kinds.split(separator: ",", omittingEmptySubsequences: false).map { .string(String($0)) })
        }
        let client = connect()
        emit(call(client, "view.hitTest", params)) { result in
            guard let element = result["element"], element != .null else { return "nothing at \(words[1])\n" }
            return elementsTable([element])
        }
    }

    static func neighbor(_ invocation: Invocation) {
        let words = positional(3, "VIEW ID DIRECTION")
        let client = connect()
        emit(call(client, "view.neighbor", ["view": .string(words[0]), "id": .string(words[1]), "direction": .string(words[2])])) { result in
            guard let element = result["element"], element != .null else { return "nothing \(words[2]) of \(words[1])\n" }
            return elementsTable([element])
        }
    }
}
