import Glibc
import LayoutctlKit
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

/// `export` and `import`: a view's state as a file of JSON lines, one export part per line
/// (protocol/views.md, "view.export"), the format the daemon's state directory uses too.
enum TransferCommands {
    static func export(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        let client = connect()
        var params: JSONObject = ["view": .string(view)]
        if let limit = invocation.integer("--limit") { params["limit"] = .number(Double(limit)) }
        var lines = [UInt8]()
        var parts = 0
        var items = 0
        while true {
            let part = call(client, "view.export", params)
            parts += 1
            items += (part["sections"]?.arrayValue ?? []).reduce(0) { $0 + ($1["items"]?.arrayValue?.count ?? 0) }
            lines += Array(JSONWriter.string(part).utf8) + [UInt8(ascii: "\n")]
            guard let next = part["next"]?.stringValue else { break }
            params["cursor"] = .string(next)
        }
        guard let path = invocation.value("--output"), path != "-" else { return writeOut(String(decoding: lines, as: UTF8.self)) }
        writeFileAtomically(path, lines)
        emit(.object(["view": .string(view), "parts": .number(Double(parts)), "items": .number(Double(items)), "file": .string(path)])) { _ in
            "exported \(view): \(items) items in \(parts) part\(parts == 1 ? "" : "s") to \(path)\n"
        }
    }

    static func importView(_ invocation: Invocation) {
        let path = positional(1, "FILE")[0]
        let lines = readAll(path).split(separator: UInt8(ascii: "\n")).filter { !$0.allSatisfy { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") } }
        var parts = [JSONValue]()
        for (number, line) in lines.enumerated() {
            guard let part = try? JSONParser.parse(Array(line)), part.objectValue != nil else {
                writeError("layoutctl: \(path):\(number + 1): not a JSON object (an export is one part per line)\n")
                exit(65)
            }
            parts.append(part)
        }
        guard let first = parts.first else {
            writeError("layoutctl: \(path): no export parts\n")
            exit(65)
        }
        let name = invocation.value("--view") ?? first["view"]?.stringValue ?? ""
        let client = connect()
        var reply = call(client, "view.import", ["view": .string(name), "blob": first])
        for part in parts.dropFirst() {
            guard let id = reply["importId"]?.stringValue else { break }
            reply = call(client, "view.import", ["importId": .string(id), "blob": part])
        }
        emit(reply) { result in
            let snapshot = result["snapshot"]
            return "imported \(name): \(formatNumber(result["items"])) items, epoch \(formatNumber(snapshot?["epoch"]))\n"
        }
    }

    /// Writes `bytes` to a new file beside `path`, flushes it and renames it over `path`: a
    /// reader sees the old file or the whole new one.
    private static func writeFileAtomically(_ path: String, _ bytes: [UInt8]) {
        let temporary = "\(path).tmp-\(getpid())"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            writeError("layoutctl: cannot write \(path): \(String(cString: strerror(errno)))\n")
            exit(1)
        }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                writeError("layoutctl: cannot write \(path): \(String(cString: strerror(errno)))\n")
                unlink(temporary)
                exit(1)
            }
            written += count
        }
        guard fsync(fd) == 0, close(fd) == 0, rename(temporary, path) == 0 else {
            writeError("layoutctl: cannot write \(path): \(String(cString: strerror(errno)))\n")
            unlink(temporary)
            exit(1)
        }
    }
}
