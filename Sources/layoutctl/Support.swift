import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

// What the command handlers share: arguments, the connection, calls and printing.

extension Invocation {
    func number(_ name: String) -> Double? {
        guard let text = value(name) else { return nil }
        guard let number = ValueText.number(text) else { usageError("\(name) needs a number, not '\(text)'", command: command) }
        return number
    }

    func integer(_ name: String) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { usageError("\(name) needs an integer, not '\(text)'", command: command) }
        return number
    }

    /// JSON output: forced, or stdout is not a terminal (unless --table).
    var wantsJSON: Bool { json || pretty || (!table && isatty(STDOUT_FILENO) == 0) }
}

func positional(_ count: Int, _ names: String) -> [String] {
    guard invocation.positional.count == count else { usageError("\(command.name) takes \(names)", command: command) }
    return invocation.positional
}

func atLeast(_ count: Int, _ names: String) -> [String] {
    guard invocation.positional.count >= count else { usageError("\(command.name) takes \(names)", command: command) }
    return invocation.positional
}

func connect() -> BlockingConnection {
    do {
        return try BlockingConnection(path: invocation.socket, timeout: invocation.timeout)
    } catch {
        failToConnect(error)
    }
}

/// Exits on a failed connect: the client library's reason, which names the path (so it is
/// said once), then a hint when nothing listens there.
func failToConnect(_ error: LayoutdError) -> Never {
    if case .transport(let reason) = error, let hint = connectHint(SocketPath.resolve(option: invocation.socket)) {
        writeError("layoutctl: \(reason)\nhint: \(hint)\n")
        exit(1)
    }
    fail(error)
}

/// What to try when no daemon listens at `socket`, by where its path came from; nil when
/// something else is wrong (a file that is no socket, a directory layoutctl may not search,
/// a socket it may not write, a path too long for a socket): the reason says that, and "is
/// layoutd running?" would mislead.
func connectHint(_ socket: SocketPath) -> String? {
    guard socket.path.utf8.count <= UnixSocket.maximumPathLength else { return nil }
    var info = stat()
    if lstat(socket.path, &info) == 0 {
        // A socket file nobody listens on is what a daemon killed before it could remove it
        // leaves behind: the same advice.
        guard info.st_mode & S_IFMT == S_IFSOCK, access(socket.path, W_OK) == 0 else { return nil }
    } else if errno != ENOENT {
        return nil
    }
    let elsewhere = "or point layoutctl at a running one with --socket PATH or LAYOUTD_SOCKET"
    switch socket.source {
    case .option:
        return "is layoutd running there? 'layoutd --socket' with the same path starts one."
    case .environment:
        return "is layoutd running? Start it with 'layoutd' in this environment (it reads LAYOUTD_SOCKET too), or unset LAYOUTD_SOCKET for the default socket."
    case .runtimeDirectory:
        return "is layoutd running? Start it with 'layoutd' (it listens here by default) or 'systemctl --user start layoutd.socket', \(elsewhere)."
    case .system:
        return "is layoutd running? Start it with 'systemctl start layoutd.socket' (or 'layoutd' as root), \(elsewhere)."
    }
}

func call(_ client: BlockingConnection, _ method: String, _ params: JSONObject) -> JSONValue {
    do {
        return try client.call(method, params)
    } catch {
        fail(error)
    }
}

/// Every page of a paged method (`view.query`, `view.selection`), `after` being the previous
/// page's `next`: the pages' `collecting` arrays joined, the last page's other fields. A page
/// holds at most the daemon's `maximumWindowElements`.
func allPages(_ client: BlockingConnection, _ method: String, _ params: JSONObject, collecting fields: [String]) -> JSONValue {
    var params = params
    var joined = [String: [JSONValue]]()
    var last = JSONObject()
    while true {
        let page = call(client, method, params)
        for field in fields { joined[field, default: []] += page[field]?.arrayValue ?? [] }
        last = page.objectValue ?? [:]
        guard let next = page["next"] else { break }
        params["after"] = next
    }
    for field in fields { last[field] = .array(joined[field] ?? []) }
    return .object(last)
}

/// Every element `view.query` finds in `rect`, as one `{elements, selected}`.
func queryAll(_ client: BlockingConnection, view: String, rect: JSONValue) -> JSONValue {
    allPages(client, "view.query", ["view": .string(view), "rect": rect], collecting: ["elements", "selected"])
}

/// Prints a result: JSON when asked or piped, else the table.
func emit(_ result: JSONValue, table: (JSONValue) -> String) {
    if invocation.quiet { return }
    if invocation.pretty {
        writeOut(PrettyJSON.string(result) + "\n")
    } else if invocation.wantsJSON {
        writeOut(JSONWriter.string(result) + "\n")
    } else {
        writeOut(table(result))
    }
}

func keyValueTable(_ value: JSONValue, prefix: String = "") -> [[String]] {
    guard case .object(let object) = value else { return [[prefix, formatNumber(value)]] }
    var rows = [[String]]()
    for (key, field) in object.pairs {
        let name = prefix.isEmpty ? key : "\(prefix).\(key)"
        if case .object = field, field.objectValue.map({ !["x", "y", "width", "height"].contains($0.keys.first ?? "") }) ?? false {
            rows += keyValueTable(field, prefix: name)
        } else if case .array(let elements) = field {
            rows.append([name, elements.map { formatNumber($0) }.joined(separator: " ")])
        } else if case .object = field {
            rows.append([name, JSONWriter.string(field)])
        } else {
            rows.append([name, formatNumber(field)])
        }
    }
    return rows
}

func elementsTable(_ elements: [JSONValue], selected: Set<String> = []) -> String {
    ElementTable.render(elements, selected: selected)
}

func invalidationSummary(_ result: JSONValue) -> String {
    let entered = result["entered"]?.arrayValue ?? []
    let changed = result["changed"]?.arrayValue ?? []
    let left = result["left"]?.arrayValue ?? []
    var text = "\(result["view"]?.stringValue ?? "") epoch \(formatNumber(result["epoch"])): content \(formatNumber(result["contentSize"]?["width"]))×\(formatNumber(result["contentSize"]?["height"])), offset \(formatNumber(result["contentOffset"]?["x"])),\(formatNumber(result["contentOffset"]?["y"])); \(entered.count) entered, \(changed.count) changed, \(left.count) left"
    if let transition = result["transition"] {
        text += "; transition \(formatNumber(transition["duration"])) s, \(transition["segments"]?.arrayValue?.count ?? 0) segments"
    }
    if let target = result["targetContentOffset"] { text += "; target \(formatNumber(target["x"])),\(formatNumber(target["y"]))" }
    if let anchor = result["anchor"]?.stringValue { text += "; anchor \(anchor)" }
    if let policy = result["anchorPolicy"]?.stringValue { text += " (\(policy))" }
    if let moving = result["moving"]?.stringValue {
        let items = result["movingItems"]?.arrayValue?.compactMap(\.stringValue).joined(separator: " ")
        let target = result["target"]
        let speed = result["autoScroll"]
        text += "; moving \(items.map { "\(moving) [\($0)]" } ?? moving) to \(formatNumber(target?["section"])).\(formatNumber(target?["item"])), auto-scroll \(formatNumber(speed?["x"])),\(formatNumber(speed?["y"])) pt/s"
    }
    if let ended = result["moveEnded"] {
        text += "; move of \(ended["id"]?.stringValue ?? "") \(ended["reason"]?.stringValue ?? "")"
    }
    return text + "\n"
}

func invalidationTable(_ result: JSONValue) -> String {
    var text = invalidationSummary(result)
    let rows = (result["entered"]?.arrayValue ?? []) + (result["changed"]?.arrayValue ?? [])
    if !rows.isEmpty { text += elementsTable(rows) }
    let left = (result["left"]?.arrayValue ?? []).compactMap { $0["id"]?.stringValue }
    if !left.isEmpty { text += "left: " + left.joined(separator: " ") + "\n" }
    if let ids = result["needsMeasure"]?.arrayValue, !ids.isEmpty {
        text += "needs measuring: " + ids.compactMap(\.stringValue).joined(separator: " ") + "\n"
    }
    if let prefetch = result["prefetch"]?.arrayValue {
        text += "prefetch: " + (prefetch.isEmpty ? "nothing" : prefetch.compactMap(\.stringValue).joined(separator: " ")) + "\n"
    }
    return text
}

/// `begin-transition`: the transition in a line, then each pair's from and to frames.
func transitionTable(_ result: JSONValue) -> String {
    func point(_ value: JSONValue?) -> String { "\(formatNumber(value?["x"])),\(formatNumber(value?["y"]))" }
    func frame(_ value: JSONValue?) -> String { formatFrame(value?["frame"]) + (value?["alpha"] == .number(0) ? " alpha 0" : "") }
    let pairs = result["pairs"]?.arrayValue ?? []
    var text = "\(result["view"]?.stringValue ?? "") to \(result["strategy"]?.stringValue ?? ""): \(pairs.count) pairs, \(formatNumber(result["duration"])) s, offset \(point(result["contentOffset"]?["from"])) → \(point(result["contentOffset"]?["to"])), epoch \(formatNumber(result["epoch"]))\n"
    text += Table(
        columns: ["kind", "id", "from", "to"],
        rows: pairs.map { [$0["kind"]?.stringValue ?? "", $0["id"]?.stringValue ?? "", frame($0["from"]), frame($0["to"])] }
    ).render()
    return text
}

func snapshotTable(_ result: JSONValue) -> String {
    let viewport = result["viewport"]
    var text = "\(result["view"]?.stringValue ?? "") (\(result["strategy"]?.stringValue ?? "")) epoch \(formatNumber(result["epoch"])): \(formatNumber(result["itemCount"])) items in \(formatNumber(result["sectionCount"])) sections, content \(formatNumber(result["contentSize"]?["width"]))×\(formatNumber(result["contentSize"]?["height"])), viewport \(formatNumber(viewport?["width"]))×\(formatNumber(viewport?["height"])) at \(formatNumber(viewport?["offset"]?["x"])),\(formatNumber(viewport?["offset"]?["y"]))\n"
    text += elementsTable(result["elements"]?.arrayValue ?? [])
    return text
}

/// The params every mutation shares.
func mutationParams(_ view: String) -> JSONObject {
    var params: JSONObject = ["view": .string(view)]
    if invocation.has("--animated") { params["animated"] = .bool(true) }
    if let epoch = invocation.integer("--if-epoch") { params["ifEpoch"] = .number(Double(epoch)) }
    if let anchor = invocation.value("--anchor") { params["anchor"] = .string(anchor) }
    return params
}

func mutate(_ method: String, _ params: JSONObject) {
    let client = connect()
    emit(call(client, method, params), table: invalidationTable)
}

/// `NAME=VALUE` words as strategy parameters, each read as its type in `types` (name →
/// descriptor type, from `parameterTypes`) says; without a type, as `ValueText` guesses.
func parameters(_ words: some Sequence<String>, types: [String: String] = [:]) -> JSONObject {
    var object = JSONObject()
    for word in words {
        do {
            let (name, value) = try ValueText.parameter(word, types: types)
            object[name] = value
        } catch {
            usageError(error.message, command: command)
        }
    }
    return object
}

/// The parameter types of `strategy` as the daemon describes it (`strategy.list`, plugins
/// included): name → `size`, `number`, …. Empty when the daemon does not know the strategy
/// (it then refuses the request itself) or has no descriptor for it.
func parameterTypes(_ client: BlockingConnection, strategy: String) -> [String: String] {
    guard let list = try? client.call("strategy.list", [:]),
        let descriptor = list["strategies"]?.arrayValue?.first(where: { $0["name"]?.stringValue == strategy })
    else { return [:] }
    var types = [String: String]()
    for parameter in descriptor["parameters"]?.arrayValue ?? [] {
        if let name = parameter["name"]?.stringValue, let type = parameter["type"]?.stringValue { types[name] = type }
    }
    return types
}

/// The strategy `view` uses now (`view.list`), for reading `configure`'s values.
func strategy(of view: String, _ client: BlockingConnection) -> String? {
    guard let list = try? client.call("view.list", [:]) else { return nil }
    return list["views"]?.arrayValue?.first { $0["view"]?.stringValue == view }?["strategy"]?.stringValue
}

func item(_ text: String) -> JSONValue {
    guard let colon = text.lastIndex(of: ":"), let size = ValueText.size(String(text[text.index(after: colon)...])) else {
        return .object(["id": .string(text)])
    }
    return .object(["id": .string(String(text[..<colon])), "size": .size(size)])
}

func readAll(_ path: String) -> [UInt8] {
    let fd = path == "-" ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else {
        writeError("layoutctl: cannot read \(path): \(String(cString: strerror(errno)))\n")
        exit(1)
    }
    var bytes = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    if fd != STDIN_FILENO { close(fd) }
    return bytes
}
