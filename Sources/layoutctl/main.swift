// layoutctl: drives layoutd from a shell. Commands, options, help, the man page and the
// completions all come from `CommandCatalog`; this file parses, calls and prints.
//
// Exit codes: 0 ok, 1 could not talk to the daemon or a bad reply, 2 the daemon refused,
// 3 timeout, 64 usage.
import Glibc
import LayoutClient
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

let version = Release.version

// MARK: Output

func writeOut(_ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
        if count <= 0 { exit(1) }
        written += count
    }
}

func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func usageError(_ message: String, command: Command? = nil) -> Never {
    writeError("layoutctl: \(message)\n")
    writeError(command.map { "Run 'layoutctl help \($0.name)'.\n" } ?? "Run 'layoutctl help'.\n")
    exit(64)
}

func fail(_ error: LayoutdError) -> Never {
    switch error {
    case .transport(let message):
        writeError("layoutctl: \(message)\n")
        exit(1)
    case .refused(let wire):
        writeError("layoutctl: \(wire.name): \(wire.message)\n")
        exit(2)
    case .timeout(let seconds):
        writeError("layoutctl: Timeout: no reply within \(formatNumber(.number(seconds))) s\n")
        exit(3)
    case .malformed(let message):
        writeError("layoutctl: \(message)\n")
        exit(1)
    }
}

// MARK: Arguments

struct Invocation {
    var command: Command
    var positional: [String] = []
    var values: [String: [String]] = [:]
    var socket: String?
    var timeout = 30.0
    var json = false
    var pretty = false
    var table = false
    var quiet = false

    func value(_ name: String) -> String? { values[name]?.last }
    func has(_ name: String) -> Bool { values[name] != nil }

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

/// Reads the command line in one pass: global options anywhere, a command's options after the
/// command, `--` ends the options (every later word is positional, `-x` too). An option with a
/// value takes `--name VALUE` or `--name=VALUE`; a flag takes none (`--json=yes` is refused). A
/// word that is a decimal number (`-5`) is positional, never an option.
func parseArguments(_ arguments: [String]) -> Invocation {
    var invocation = Invocation(command: CommandCatalog.command(named: "help")!)
    var command: Command?
    var printSocketPath = false
    var onlyPositional = false
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        let isOption = !onlyPositional && argument.hasPrefix("-") && argument != "-" && ValueText.number(argument) == nil
        if !isOption {
            if command != nil {
                invocation.positional.append(argument)
            } else {
                guard let named = CommandCatalog.command(named: argument) else { usageError("unknown command '\(argument)'") }
                command = named
            }
            continue
        }
        if argument == "--" {
            onlyPositional = true
            continue
        }
        var name = argument
        var inline: String?
        if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
            name = String(argument[..<equals])
            inline = String(argument[argument.index(after: equals)...])
        }
        func matches(_ option: CommandOption) -> Bool { option.name == name || option.short == name }
        guard let option = command?.options.first(where: matches) ?? CommandCatalog.globalOptions.first(where: matches) else {
            if let command { usageError("\(command.name) has no option \(name)", command: command) }
            let isCommandOption = CommandCatalog.commands.contains { $0.options.contains(where: matches) }
            usageError("unknown option \(name)" + (isCommandOption ? " (a command's options go after the command)" : ""))
        }
        var value = ""
        if let placeholder = option.argument {
            if let inline {
                value = inline
            } else {
                guard index < arguments.count else { usageError("\(name) needs \(placeholder)", command: command) }
                value = arguments[index]
                index += 1
            }
        } else if inline != nil {
            usageError("\(option.name) takes no value, not '\(argument)'", command: command)
        }
        switch option.name {
        case "--socket": invocation.socket = value
        case "--timeout":
            guard let seconds = ValueText.number(value), seconds > 0 else { usageError("--timeout needs seconds, not '\(value)'") }
            invocation.timeout = seconds
        case "--json": invocation.json = true
        case "--pretty": invocation.pretty = true
        case "--table": invocation.table = true
        case "--quiet": invocation.quiet = true
        case "--print-socket-path": printSocketPath = true
        case "--version":
            writeOut("layoutctl \(version)\n")
            exit(0)
        case "--help":
            writeOut(command.map(CommandCatalog.help(for:)) ?? CommandCatalog.overview(version: version))
            exit(0)
        default:
            if !option.repeatable, invocation.values[option.name] != nil { usageError("\(name) given twice", command: command) }
            invocation.values[option.name, default: []].append(value)
        }
    }
    if printSocketPath {
        writeOut(socketPath(invocation.socket) + "\n")
        exit(0)
    }
    guard let command else {
        writeError(CommandCatalog.overview(version: version))
        exit(64)
    }
    invocation.command = command
    return invocation
}

func socketPath(_ option: String?) -> String { SocketPath.resolve(option: option).path }

// MARK: Commands

let invocation = parseArguments(Array(CommandLine.arguments.dropFirst()))
let command = invocation.command

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
        fail(error)
    }
}

func call(_ client: BlockingConnection, _ method: String, _ params: JSONObject) -> JSONValue {
    do {
        return try client.call(method, params)
    } catch {
        fail(error)
    }
}

/// Every element `view.query` finds in `rect`, page after page (`after` = the previous page's
/// `next`), as one `{elements, selected}`: a page holds at most the daemon's
/// `maximumWindowElements`.
func queryAll(_ client: BlockingConnection, view: String, rect: JSONValue) -> JSONValue {
    var elements = [JSONValue]()
    var selected = [JSONValue]()
    var params: JSONObject = ["view": .string(view), "rect": rect]
    while true {
        let page = call(client, "view.query", params)
        elements += page["elements"]?.arrayValue ?? []
        selected += page["selected"]?.arrayValue ?? []
        guard let next = page["next"] else { break }
        params["after"] = next
    }
    return .object(["elements": .array(elements), "selected": .array(selected)])
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

switch command.name {
case "help":
    if let name = invocation.positional.first {
        guard let target = CommandCatalog.command(named: name) else { usageError("unknown command '\(name)'") }
        writeOut(CommandCatalog.help(for: target))
    } else {
        writeOut(CommandCatalog.overview(version: version))
    }
case "man":
    _ = positional(0, "no arguments")
    writeOut(CommandCatalog.manPage(version: version, date: "2026-11-30"))
case "__complete":
    // For the completion scripts: names one a line, nothing at all when the daemon cannot be
    // asked (the scripts discard stderr and the exit status).
    let what = positional(1, "views or strategies")[0]
    guard what == "views" || what == "strategies" else { usageError("__complete takes views or strategies", command: command) }
    guard let client = try? BlockingConnection(path: invocation.socket, timeout: invocation.timeout) else { exit(1) }
    let method = what == "views" ? "view.list" : "strategy.list"
    guard let result = try? client.call(method, [:]) else { exit(1) }
    let names = (result[what]?.arrayValue ?? []).compactMap { entry -> String? in
        if entry["status"]?.stringValue == "refused" { return nil }
        return entry[what == "views" ? "view" : "name"]?.stringValue
    }
    writeOut(names.map { $0 + "\n" }.joined())
case "completion":
    switch positional(1, "bash or zsh")[0] {
    case "bash": writeOut(CommandCatalog.bashCompletion())
    case "zsh": writeOut(CommandCatalog.zshCompletion())
    case let shell: usageError("no completion for '\(shell)' (bash, zsh)", command: command)
    }
case "hello", "describe", "status", "sync", "reload", "strategies", "views":
    _ = positional(0, "no arguments")
    let client = connect()
    let result = call(client, command.method!, [:])
    emit(result) { result in
        switch command.name {
        case "strategies":
            // A row per parameter, under its strategy's name, origin and summary; a refused
            // plugin gets one line with the reason.
            return (result["strategies"]?.arrayValue ?? []).map { strategy in
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
        case "views":
            return Table(
                columns: ["view", "strategy", "epoch", "items"],
                rows: (result["views"]?.arrayValue ?? []).map { view in
                    [view["view"]?.stringValue ?? "", view["strategy"]?.stringValue ?? "", formatNumber(view["epoch"]), formatNumber(view["itemCount"])]
                }
            ).render()
        case "describe":
            return Table(
                columns: ["method", "summary"],
                rows: (result["methods"]?.arrayValue ?? []).map { [$0["name"]?.stringValue ?? "", $0["summary"]?.stringValue ?? ""] }
            ).render()
        case "sync": return "synced\n"
        default: return Table(columns: ["field", "value"], rows: keyValueTable(result)).render()
        }
    }
case "create":
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
case "delete-view":
    let view = positional(1, "VIEW")[0]
    let client = connect()
    emit(call(client, "view.delete", ["view": .string(view)])) { _ in "deleted \(view)\n" }
case "get":
    let view = positional(1, "VIEW")[0]
    let client = connect()
    emit(call(client, "view.get", ["view": .string(view)]), table: snapshotTable)
case "load":
    let words = positional(2, "VIEW FILE")
    Loader.load(view: words[0], bytes: readAll(words[1]), params: mutationParams(words[0]))
case "insert":
    let words = atLeast(2, "VIEW ITEM...")
    var params = mutationParams(words[0])
    params["updates"] = .array([.object([
        "op": .string("insertItems"), "section": .string(invocation.value("--section") ?? "s"),
        "at": .number(Double(invocation.integer("--at") ?? 0)), "items": .array(words.dropFirst().map(item)),
    ])])
    mutate("view.update", params)
case "delete":
    let words = atLeast(2, "VIEW ID...")
    var params = mutationParams(words[0])
    params["updates"] = .array([.object(["op": .string("deleteItems"), "ids": .array(words.dropFirst().map { .string($0) })])])
    mutate("view.update", params)
case "move":
    let words = positional(2, "VIEW ID")
    guard let at = invocation.integer("--at") else { usageError("move needs --at", command: command) }
    var params = mutationParams(words[0])
    params["updates"] = .array([.object([
        "op": .string("moveItem"), "id": .string(words[1]), "section": .string(invocation.value("--section") ?? "s"), "at": .number(Double(at)),
    ])])
    mutate("view.update", params)
case "update":
    let words = positional(2, "VIEW JSON")
    guard case .array(let updates)? = try? JSONParser.parse(Array(words[1].utf8)) else { usageError("JSON must be an array of updates", command: command) }
    var params = mutationParams(words[0])
    params["updates"] = .array(updates)
    mutate("view.update", params)
case "measure":
    let words = atLeast(2, "VIEW ID=WxH...")
    var params = mutationParams(words[0])
    let kind = invocation.value("--kind")
    // The last '=' splits: an id may hold one, a WxH size never does.
    params["sizes"] = .array(words.dropFirst().map { word in
        guard let equals = word.lastIndex(of: "="), equals != word.startIndex, let size = ValueText.size(String(word[word.index(after: equals)...])) else {
            usageError("expected ID=WxH, not '\(word)'", command: command)
        }
        var entry: JSONObject = ["id": .string(String(word[..<equals])), "size": .size(size)]
        if let kind { entry["kind"] = .string(kind) }
        return .object(entry)
    })
    mutate("view.measure", params)
case "select":
    // An empty id list would clear the selection: only on purpose, with --clear.
    let words = atLeast(1, "VIEW [ID...]")
    if invocation.has("--clear") {
        guard words.count == 1 else { usageError("select --clear takes no IDs", command: command) }
        guard !invocation.has("--mode") else { usageError("select --clear takes no --mode", command: command) }
    } else if words.count == 1 {
        usageError("select needs at least one ID, or --clear to clear the selection", command: command)
    }
    var params = mutationParams(words[0])
    params["ids"] = .array(words.dropFirst().map { .string($0) })
    if let mode = invocation.value("--mode") { params["mode"] = .string(mode) }
    mutate("view.select", params)
case "scroll", "scroll-end":
    let view = positional(1, "VIEW")[0]
    let client = connect()
    var x = invocation.number("--x")
    var y = invocation.number("--y")
    if x == nil || y == nil {
        let current = call(client, "view.get", ["view": .string(view)])
        x = x ?? current["viewport"]?["offset"]?["x"]?.numberValue ?? 0
        y = y ?? current["viewport"]?["offset"]?["y"]?.numberValue ?? 0
    }
    var params = mutationParams(view)
    params["animated"] = nil
    let point: JSONValue = .object(["x": .number(x!), "y": .number(y!)])
    params[command.name == "scroll" ? "offset" : "proposed"] = point
    if let velocity = invocation.value("--velocity") {
        guard let (x, y) = ValueText.point(velocity) else { usageError("--velocity takes VX,VY", command: command) }
        params["velocity"] = .object(["x": .number(x), "y": .number(y)])
    }
    if let horizon = invocation.value("--horizon") {
        guard let seconds = ValueText.number(horizon) else { usageError("--horizon takes seconds", command: command) }
        params["horizon"] = .number(seconds)
    }
    emit(call(client, command.method!, params), table: invalidationTable)
case "resize":
    let view = positional(1, "VIEW")[0]
    guard let width = invocation.number("--width"), let height = invocation.number("--height") else { usageError("resize needs --width and --height", command: command) }
    var params = mutationParams(view)
    params["size"] = .object(["width": .number(width), "height": .number(height)])
    mutate("view.resize", params)
case "configure":
    let words = atLeast(2, "VIEW NAME=VALUE...")
    _ = parameters(words.dropFirst())
    let client = connect()
    var params = mutationParams(words[0])
    let types = strategy(of: words[0], client).map { parameterTypes(client, strategy: $0) } ?? [:]
    params["params"] = .object(parameters(words.dropFirst(), types: types))
    emit(call(client, "view.configure", params), table: invalidationTable)
case "switch":
    let words = atLeast(2, "VIEW STRATEGY [NAME=VALUE...]")
    _ = parameters(words.dropFirst(2))
    let client = connect()
    var params = mutationParams(words[0])
    params["strategy"] = .string(words[1])
    params["params"] = .object(parameters(words.dropFirst(2), types: words.count > 2 ? parameterTypes(client, strategy: words[1]) : [:]))
    emit(call(client, "view.setStrategy", params), table: invalidationTable)
case "begin-transition":
    let words = atLeast(1, "VIEW [STRATEGY] [NAME=VALUE...]")
    // A second word without '=' names a strategy: a switch; otherwise every word is a parameter change.
    let target = words.count > 1 && !words[1].contains("=") ? words[1] : nil
    let changes = words.dropFirst(target == nil ? 1 : 2)
    _ = parameters(changes)
    let client = connect()
    var params: JSONObject = ["view": .string(words[0])]
    if let epoch = invocation.integer("--if-epoch") { params["ifEpoch"] = .number(Double(epoch)) }
    if let anchor = invocation.value("--anchor") { params["anchor"] = .string(anchor) }
    if let target {
        params["strategy"] = .string(target)
        params["params"] = .object(parameters(changes, types: changes.isEmpty ? [:] : parameterTypes(client, strategy: target)))
    } else {
        let types = strategy(of: words[0], client).map { parameterTypes(client, strategy: $0) } ?? [:]
        params["params"] = .object(parameters(changes, types: types))
    }
    emit(call(client, "view.beginTransition", params), table: transitionTable)
case "update-transition":
    let words = positional(2, "VIEW PROGRESS")
    guard let progress = ValueText.number(words[1]) else { usageError("PROGRESS must be a number from 0 to 1", command: command) }
    let client = connect()
    emit(call(client, "view.updateTransition", ["view": .string(words[0]), "progress": .number(progress)])) { result in
        "\(words[0]) at \(formatNumber(result["progress"])): offset \(formatNumber(result["contentOffset"]?["x"])),\(formatNumber(result["contentOffset"]?["y"])), content \(formatNumber(result["contentSize"]?["width"]))×\(formatNumber(result["contentSize"]?["height"]))\n"
            + elementsTable(result["elements"]?.arrayValue ?? [])
    }
case "end-transition":
    let words = positional(2, "VIEW commit|revert")
    guard words[1] == "commit" || words[1] == "revert" else { usageError("say commit or revert", command: command) }
    var params = mutationParams(words[0])
    params["commit"] = .bool(words[1] == "commit")
    mutate("view.endTransition", params)
case "begin-move":
    let words = positional(2, "VIEW ID")
    var params = mutationParams(words[0])
    params["id"] = .string(words[1])
    if let at = invocation.value("--at") {
        guard let (x, y) = ValueText.point(at) else { usageError("--at takes X,Y", command: command) }
        params["point"] = .object(["x": .number(x), "y": .number(y)])
    }
    mutate("view.beginMove", params)
case "update-move":
    let words = positional(2, "VIEW X,Y")
    guard let (x, y) = ValueText.point(words[1]) else { usageError("X,Y must be two numbers", command: command) }
    var params = mutationParams(words[0])
    params["point"] = .object(["x": .number(x), "y": .number(y)])
    mutate("view.updateMove", params)
case "end-move":
    let words = positional(2, "VIEW commit|cancel")
    guard words[1] == "commit" || words[1] == "cancel" else { usageError("say commit or cancel", command: command) }
    var params = mutationParams(words[0])
    params["commit"] = .bool(words[1] == "commit")
    mutate("view.endMove", params)
case "margin":
    let words = positional(2, "VIEW POINTS")
    guard let margin = ValueText.number(words[1]) else { usageError("POINTS must be a number", command: command) }
    var params = mutationParams(words[0])
    params["margin"] = .number(margin)
    mutate("view.setWindowMargin", params)
case "query":
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
case "item":
    let words = positional(2, "VIEW ID")
    let client = connect()
    emit(call(client, "view.item", ["view": .string(words[0]), "id": .string(words[1])])) { result in
        elementsTable([result["attributes"] ?? .null])
    }
case "scroll-section", "scroll-section-end":
    let words = positional(2, "VIEW SECTION")
    var params = mutationParams(words[0])
    params["animated"] = nil
    params["section"] = .string(words[1])
    func points(_ option: String) -> Double? {
        guard let text = invocation.value(option) else { return nil }
        guard let value = ValueText.number(text) else { usageError("\(option) takes points", command: command) }
        return value
    }
    if command.name == "scroll-section" {
        guard let offset = points("--offset") else { usageError("scroll-section needs --offset", command: command) }
        params["offset"] = .number(offset)
        mutate("view.scrollSection", params)
    } else {
        if let proposed = points("--proposed") { params["proposed"] = .number(proposed) }
        if let velocity = points("--velocity") { params["velocity"] = .number(velocity) }
        mutate("view.scrollSectionEnd", params)
    }
case "scroll-to":
    let words = positional(2, "VIEW ID")
    var params = mutationParams(words[0])
    params["id"] = .string(words[1])
    if let align = invocation.value("--align") { params["align"] = .string(align) }
    if let kind = invocation.value("--kind") { params["kind"] = .string(kind) }
    if let text = invocation.value("--offset") {
        guard let offset = ValueText.number(text) else { usageError("--offset takes points", command: command) }
        params["offset"] = .number(offset)
    }
    mutate("view.scrollTo", params)
case "anchor":
    let words = atLeast(1, "VIEW [POLICY]")
    var params = mutationParams(words[0])
    if let id = invocation.value("--id") {
        guard words.count == 1 else { usageError("give a policy or --id, not both", command: command) }
        var element: JSONObject = ["id": .string(id)]
        if let edge = invocation.value("--edge") { element["edge"] = .string(edge) }
        if let kind = invocation.value("--kind") { element["kind"] = .string(kind) }
        if let text = invocation.value("--offset") {
            guard let offset = ValueText.number(text) else { usageError("--offset takes points", command: command) }
            element["offset"] = .number(offset)
        }
        params["anchor"] = .object(element)
    } else {
        guard words.count == 2 else { usageError("anchor takes VIEW POLICY, or VIEW --id ID", command: command) }
        params["anchor"] = .string(words[1])
    }
    mutate("view.setAnchor", params)
case "direction":
    let words = positional(2, "VIEW ltr|rtl")
    var params = mutationParams(words[0])
    params["layoutDirection"] = .string(words[1])
    mutate("view.setLayoutDirection", params)
case "hit":
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
case "neighbor":
    let words = positional(3, "VIEW ID DIRECTION")
    let client = connect()
    emit(call(client, "view.neighbor", ["view": .string(words[0]), "id": .string(words[1]), "direction": .string(words[2])])) { result in
        guard let element = result["element"], element != .null else { return "nothing \(words[2]) of \(words[1])\n" }
        return elementsTable([element])
    }
case "watch":
    Watcher.watch(view: positional(1, "VIEW")[0])
case "render":
    Renderer.render(view: positional(1, "VIEW")[0])
case "web":
    Web.run()
case "call":
    if invocation.has("--batch") {
        _ = positional(0, "no arguments with --batch")
        Batch.run()
    } else {
        let words = atLeast(1, "METHOD [JSON]")
        guard words.count <= 2 else { usageError("call takes METHOD [JSON]", command: command) }
        var params = JSONObject()
        if words.count == 2 {
            guard case .object(let object)? = try? JSONParser.parse(Array(words[1].utf8)) else { usageError("JSON params must be an object", command: command) }
            params = object
        }
        let client = connect()
        let result = call(client, words[0], params)
        emit(result) { PrettyJSON.string($0) + "\n" }
    }
default:
    usageError("unknown command '\(command.name)'")
}
exit(0)
