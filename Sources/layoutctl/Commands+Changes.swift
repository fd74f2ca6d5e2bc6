import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

/// Commands that change a view's data or selection.
enum DataCommands {
    static func load(_ invocation: Invocation) {
        let words = positional(2, "VIEW FILE")
        Loader.load(view: words[0], bytes: readAll(words[1]), params: mutationParams(words[0]))
    }

    static func insert(_ invocation: Invocation) {
        let words = atLeast(2, "VIEW ITEM...")
        var params = mutationParams(words[0])
        params["updates"] = .array([.object([
            "op": .string("insertItems"), "section": .string(invocation.value("--section") ?? "s"),
            "at": .number(Double(invocation.integer("--at") ?? 0)), "items": .array(words.dropFirst().map(item)),
        ])])
        mutate("view.update", params)
    }

    static func delete(_ invocation: Invocation) {
        let words = atLeast(2, "VIEW ID...")
        var params = mutationParams(words[0])
        params["updates"] = .array([.object(["op": .string("deleteItems"), "ids": .array(words.dropFirst().map { .string($0) })])])
        mutate("view.update", params)
    }

    static func move(_ invocation: Invocation) {
        let words = positional(2, "VIEW ID")
        guard let at = invocation.integer("--at") else { usageError("move needs --at", command: command) }
        var params = mutationParams(words[0])
        params["updates"] = .array([.object([
            "op": .string("moveItem"), "id": .string(words[1]), "section": .string(invocation.value("--section") ?? "s"), "at": .number(Double(at)),
        ])])
        mutate("view.update", params)
    }

    static func update(_ invocation: Invocation) {
        let words = positional(2, "VIEW JSON")
        guard case .array(let updates)? = try? JSONParser.parse(Array(words[1].utf8)) else { usageError("JSON must be an array of updates", command: command) }
        var params = mutationParams(words[0])
        params["updates"] = .array(updates)
        mutate("view.update", params)
    }

    static func measure(_ invocation: Invocation) {
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
    }

    static func select(_ invocation: Invocation) {
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
    }
}

/// Commands that scroll a view or one of its sections.
enum ScrollCommands {
    /// `scroll` (`point` "offset") and `scroll-end` ("proposed"): a point, its coordinates
    /// not given staying where the view's offset is.
    static func scroll(point key: String) -> @Sendable (Invocation) -> Void {
        { invocation in
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
            params[key] = .object(["x": .number(x!), "y": .number(y!)])
            if let velocity = invocation.value("--velocity") {
                guard let (x, y) = ValueText.point(velocity) else { usageError("--velocity takes VX,VY", command: command) }
                params["velocity"] = .object(["x": .number(x), "y": .number(y)])
            }
            if let horizon = invocation.value("--horizon") {
                guard let seconds = ValueText.number(horizon) else { usageError("--horizon takes seconds", command: command) }
                params["horizon"] = .number(seconds)
            }
            emit(call(client, invocation.command.method!, params), table: invalidationTable)
        }
    }

    /// Points given as `option`'s value.
    private static func points(_ option: String, _ invocation: Invocation) -> Double? {
        guard let text = invocation.value(option) else { return nil }
        guard let value = ValueText.number(text) else { usageError("\(option) takes points", command: command) }
        return value
    }

    /// The params both section scrolls start from: the view's and the section's.
    private static func sectionParams(_ invocation: Invocation) -> JSONObject {
        let words = positional(2, "VIEW SECTION")
        var params = mutationParams(words[0])
        params["animated"] = nil
        params["section"] = .string(words[1])
        return params
    }

    static func scrollSection(_ invocation: Invocation) {
        var params = sectionParams(invocation)
        guard let offset = points("--offset", invocation) else { usageError("scroll-section needs --offset", command: command) }
        params["offset"] = .number(offset)
        mutate("view.scrollSection", params)
    }

    static func scrollSectionEnd(_ invocation: Invocation) {
        var params = sectionParams(invocation)
        if let proposed = points("--proposed", invocation) { params["proposed"] = .number(proposed) }
        if let velocity = points("--velocity", invocation) { params["velocity"] = .number(velocity) }
        mutate("view.scrollSectionEnd", params)
    }

    static func scrollTo(_ invocation: Invocation) {
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
    }
}

/// Commands that change how a view is laid out: size, strategy, parameters, anchor, direction, margin.
enum LayoutCommands {
    static func resize(_ invocation: Invocation) {
        let view = positional(1, "VIEW")[0]
        guard let width = invocation.number("--width"), let height = invocation.number("--height") else { usageError("resize needs --width and --height", command: command) }
        var params = mutationParams(view)
        params["size"] = .object(["width": .number(width), "height": .number(height)])
        mutate("view.resize", params)
    }

    static func configure(_ invocation: Invocation) {
        let words = atLeast(2, "VIEW NAME=VALUE...")
        _ = parameters(words.dropFirst())
        let client = connect()
        var params = mutationParams(words[0])
        let types = strategy(of: words[0], client).map { parameterTypes(client, strategy: $0) } ?? [:]
        params["params"] = .object(parameters(words.dropFirst(), types: types))
        emit(call(client, "view.configure", params), table: invalidationTable)
    }

    static func switchStrategy(_ invocation: Invocation) {
        let words = atLeast(2, "VIEW STRATEGY [NAME=VALUE...]")
        _ = parameters(words.dropFirst(2))
        let client = connect()
        var params = mutationParams(words[0])
        params["strategy"] = .string(words[1])
        params["params"] = .object(parameters(words.dropFirst(2), types: words.count > 2 ? parameterTypes(client, strategy: words[1]) : [:]))
        emit(call(client, "view.setStrategy", params), table: invalidationTable)
    }

    static func anchor(_ invocation: Invocation) {
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
    }

    static func direction(_ invocation: Invocation) {
        let words = positional(2, "VIEW ltr|rtl")
        var params = mutationParams(words[0])
        params["layoutDirection"] = .string(words[1])
        mutate("view.setLayoutDirection", params)
    }

    static func margin(_ invocation: Invocation) {
        let words = positional(2, "VIEW POINTS")
        guard let margin = ValueText.number(words[1]) else { usageError("POINTS must be a number", command: command) }
        var params = mutationParams(words[0])
        params["margin"] = .number(margin)
        mutate("view.setWindowMargin", params)
    }
}

/// Commands for the interactive gestures: transitions scrubbed by a client, and drags to reorder.
enum GestureCommands {
    static func beginTransition(_ invocation: Invocation) {
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
    }

    static func updateTransition(_ invocation: Invocation) {
        let words = positional(2, "VIEW PROGRESS")
        guard let progress = ValueText.number(words[1]) else { usageError("PROGRESS must be a number from 0 to 1", command: command) }
        let client = connect()
        emit(call(client, "view.updateTransition", ["view": .string(words[0]), "progress": .number(progress)])) { result in
            "\(words[0]) at \(formatNumber(result["progress"])): offset \(formatNumber(result["contentOffset"]?["x"])),\(formatNumber(result["contentOffset"]?["y"])), content \(formatNumber(result["contentSize"]?["width"]))×\(formatNumber(result["contentSize"]?["height"]))\n"
                + elementsTable(result["elements"]?.arrayValue ?? [])
        }
    }

    static func endTransition(_ invocation: Invocation) {
        let words = positional(2, "VIEW commit|revert")
        guard words[1] == "commit" || words[1] == "revert" else { usageError("say commit or revert", command: command) }
        var params = mutationParams(words[0])
        params["commit"] = .bool(words[1] == "commit")
        mutate("view.endTransition", params)
    }

    static func beginMove(_ invocation: Invocation) {
        let words = positional(2, "VIEW ID")
        var params = mutationParams(words[0])
        params["id"] = .string(words[1])
        if let at = invocation.value("--at") {
            guard let (x, y) = ValueText.point(at) else { usageError("--at takes X,Y", command: command) }
            params["point"] = .object(["x": .number(x), "y": .number(y)])
        }
        mutate("view.beginMove", params)
    }

    static func updateMove(_ invocation: Invocation) {
        let words = positional(2, "VIEW X,Y")
        guard let (x, y) = ValueText.point(words[1]) else { usageError("X,Y must be two numbers", command: command) }
        var params = mutationParams(words[0])
        params["point"] = .object(["x": .number(x), "y": .number(y)])
        mutate("view.updateMove", params)
    }

    static func endMove(_ invocation: Invocation) {
        let words = positional(2, "VIEW commit|cancel")
        guard words[1] == "commit" || words[1] == "cancel" else { usageError("say commit or cancel", command: command) }
        var params = mutationParams(words[0])
        params["commit"] = .bool(words[1] == "commit")
        mutate("view.endMove", params)
    }
}
