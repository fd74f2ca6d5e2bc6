import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

/// layoutctl's own commands and the tools built on the protocol: help, completions, watch, render, web, call.
enum ToolCommands {
    static func help(_ invocation: Invocation) {
        if let name = invocation.positional.first {
            guard let target = Commands.catalog.command(named: name) else { usageError("unknown command '\(name)'") }
            writeOut(CommandCatalog.help(for: target))
        } else {
            writeOut(Commands.catalog.overview(version: version))
        }
    }

    static func man(_ invocation: Invocation) {
        _ = positional(0, "no arguments")
        writeOut(Commands.catalog.manPage(version: version, date: "2026-11-30"))
    }

    static func complete(_ invocation: Invocation) {
        // For the completion scripts: names one a line, nothing at all when the daemon cannot be
        // asked (the scripts discard stderr and the exit status); parameters fall back on the
        // built-in strategies' then.
        let words = invocation.positional
        guard let what = words.first, ["views", "strategies", "parameters"].contains(what), what == "parameters" ? words.count <= 3 : words.count == 1 else {
            usageError("__complete takes views, strategies, or parameters [STRATEGY [VIEW]]", command: command)
        }
        let client = try? BlockingConnection(path: invocation.socket, timeout: invocation.timeout)
        if what == "parameters" {
            writeOut(ParameterCompletion.lines(parameters(strategy: words.count > 1 ? words[1] : "", view: words.count > 2 ? words[2] : "", client)).map { $0 + "\n" }.joined())
            return
        }
        guard let client else { exit(1) }
        let method = what == "views" ? "view.list" : "strategy.list"
        guard let result = try? client.call(method, [:]) else { exit(1) }
        let names = (result[what]?.arrayValue ?? []).compactMap { entry -> String? in
            if entry["status"]?.stringValue == "refused" { return nil }
            return entry[what == "views" ? "view" : "name"]?.stringValue
        }
        writeOut(names.map { $0 + "\n" }.joined())
    }

    /// The parameters of `strategy`, else of `view`'s strategy, else of the one `create` uses by
    /// default: from the daemon's descriptors (plugins included), or from the built-in copy
    /// when it cannot be asked. Empty strings count as not given.
    static func parameters(strategy named: String, view: String, _ client: BlockingConnection?) -> [ParameterCompletion] {
        var name = named.isEmpty ? nil : named
        if name == nil, !view.isEmpty, let client { name = strategy(of: view, client) }
        let chosen = name ?? ParameterCompletion.defaultStrategy
        guard let client, let list = try? client.call("strategy.list", [:]) else { return ParameterCompletion.builtIn[chosen] ?? [] }
        let entry = list["strategies"]?.arrayValue?.first { $0["name"]?.stringValue == chosen }
        return (entry?["parameters"]?.arrayValue ?? []).compactMap(ParameterCompletion.init(descriptor:))
    }

    static func completion(_ invocation: Invocation) {
        switch positional(1, "bash or zsh")[0] {
        case "bash": writeOut(Commands.catalog.bashCompletion())
        case "zsh": writeOut(Commands.catalog.zshCompletion())
        case let shell: usageError("no completion for '\(shell)' (bash, zsh)", command: command)
        }
    }

    static func watch(_ invocation: Invocation) {
        Watcher.watch(view: positional(1, "VIEW")[0])
    }

    static func render(_ invocation: Invocation) {
        Renderer.render(view: positional(1, "VIEW")[0])
    }

    static func web(_ invocation: Invocation) {
        Web.run()
    }

    static func callMethod(_ invocation: Invocation) {
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
    }
}
