import LayoutctlKit
import LayoutProtocol
import Testing
@testable import layoutctl

/// layoutctl's one command table (`Commands.catalog`): what parsing, help, the man page and the
/// completions read off it, and that its commands name methods the protocol has.
@Suite("layoutctl's command table")
struct CommandTableTests {
    let catalog = Commands.catalog

    @Test("positional arguments complete by what their placeholder names")
    func positionalCompletions() throws {
        let load = try #require(catalog.command(named: "load")).positionalCompletions
        #expect(load.fixed == [.view, .file])
        #expect(load.repeating == nil)
        let switching = try #require(catalog.command(named: "switch")).positionalCompletions
        #expect(switching.fixed == [.view, .strategy])
        #expect(switching.repeating == .parameter)
        #expect(try #require(catalog.command(named: "configure")).positionalCompletions == ([.view], .parameter))
        let create = try #require(catalog.command(named: "create"))
        #expect(create.options.first { $0.name == "--param" }?.completes == .parameter)
        // zsh finds the strategy in --strategy (else flow) and the view in the first positional.
        #expect(catalog.zshCompletion().contains(#"_layoutctl_parameters "--strategy" 1"#))
        #expect(catalog.zshCompletion().contains(#"_layoutctl_parameters "2" 1"#))
        let completion = try #require(catalog.command(named: "completion")).positionalCompletions
        #expect(completion.fixed == [.words(["bash", "zsh"])])
        #expect(try #require(catalog.command(named: "help")).positionalCompletions.fixed == [.command])
    }

    @Test("the hidden completion helper is a command but not in help, the man page or the completions")
    func hiddenCommand() {
        #expect(catalog.command(named: "__complete") != nil)
        #expect(!catalog.overview(version: "0").contains("__complete"))
        #expect(!catalog.manPage(version: "0", date: "d").contains("__complete"))
        #expect(!catalog.bashCompletion().contains("__complete)"))
        #expect(catalog.bashCompletion().contains("__complete \"$@\""))
    }

    @Test("watch documents its own exit codes in help and the man page")
    func watchExitCodes() throws {
        let watch = try #require(catalog.command(named: "watch"))
        #expect(watch.exitCodes.map(\.code) == ["0", "1", "2", "3", "64"])
        #expect(CommandCatalog.help(for: watch).contains("Exit codes:\n  0   --count events were printed, or SIGINT/SIGTERM stopped it\n"))
        #expect(catalog.manPage(version: "0", date: "d").contains("\\fBlayoutctl watch\\fR has its own: 0"))
    }

    @Test("every command name is unique and every method a command names is one the protocol describes")
    func commandsNameDescribedMethods() {
        let names = (catalog.commands + catalog.hiddenCommands).map(\.name)
        #expect(Set(names).count == names.count, "a command name appears twice")
        for command in catalog.commands {
            if let method = command.method {
                #expect(MethodCatalog.method(named: method) != nil, "\(command.name) names \(method), which protocol/interface.json does not describe")
            }
        }
    }

    @Test("the parser: global options anywhere, a command's after it, values inline or next, -- ends options")
    func parsing() throws {
        guard case .run(let invocation) = catalog.parse(["-j", "scroll", "photos", "--y=40", "--velocity", "0,100", "--", "-5"]) else {
            Issue.record("not parsed as a command")
            return
        }
        #expect(invocation.command.name == "scroll" && invocation.json)
        #expect(invocation.positional == ["photos", "-5"])
        #expect(invocation.value("--y") == "40" && invocation.value("--velocity") == "0,100")
        guard case .usage(let message, _) = catalog.parse(["--y", "1", "scroll"]) else { Issue.record("a command option before the command"); return }
        #expect(message == "unknown option --y (a command's options go after the command)")
        guard case .usage(let twice, _) = catalog.parse(["scroll", "v", "--y", "1", "--y", "2"]) else { Issue.record("an option given twice"); return }
        #expect(twice == "--y given twice")
        guard case .usage(let flag, _) = catalog.parse(["--json=yes", "views"]) else { Issue.record("a flag with a value"); return }
        #expect(flag == "--json takes no value, not '--json=yes'")
        guard case .noCommand = catalog.parse(["-j"]) else { Issue.record("no command"); return }
        guard case .version = catalog.parse(["views", "--version"]) else { Issue.record("--version"); return }
        guard case .help(let command?) = catalog.parse(["views", "--help"]), command.name == "views" else { Issue.record("--help"); return }
    }

    @Test("short options combine as in getopt: flags in a cluster, the first that takes a value ends it")
    func shortOptionClusters() throws {
        func run(_ arguments: [String]) -> Invocation? {
            guard case .run(let invocation) = catalog.parse(arguments) else { return nil }
            return invocation
        }
        func usage(_ arguments: [String]) -> String? {
            guard case .usage(let message, _) = catalog.parse(arguments) else { return nil }
            return message
        }
        // Flags alone, in either order, before or after the command.
        let jq = try #require(run(["-jq", "views"]))
        #expect(jq.json && jq.quiet && jq.command.name == "views")
        let qj = try #require(run(["views", "-qj"]))
        #expect(qj.json && qj.quiet)
        // The option with a value takes the next word when it ends the cluster...
        let js = try #require(run(["-js", "/tmp/l.sock", "views"]))
        #expect(js.json && js.socket == "/tmp/l.sock" && js.positional.isEmpty)
        // ...else the rest of the cluster, as getopt does (`-jsq`: the socket is "q").
        #expect(run(["-s/tmp/l.sock", "views"])?.socket == "/tmp/l.sock")
        let jsq = try #require(run(["-jsq", "views"]))
        #expect(jsq.json && !jsq.quiet && jsq.socket == "q")
        // A command's short options and global ones mix.
        let watch = try #require(run(["watch", "v", "-mj"]))
        #expect(watch.has("--monitor") && watch.json && watch.positional == ["v"])
        #expect(run(["export", "v", "-qo", "out.jsonl"])?.value("--output") == "out.jsonl")
        #expect(run(["export", "v", "-qoout.jsonl"])?.value("--output") == "out.jsonl")
        guard case .version = catalog.parse(["-jv"]) else { Issue.record("-jv is --version"); return }
        guard case .help(let help?) = catalog.parse(["views", "-jh"]), help.name == "views" else { Issue.record("-jh is --help"); return }
        // Numbers stay positional; after -- nothing is an option.
        #expect(run(["scroll", "v", "--", "-jq"])?.positional == ["v", "-jq"])
        #expect(run(["scroll", "v", "-5"])?.positional == ["v", "-5"])
        // What is refused names the letter and the word it was in.
        #expect(usage(["-jx", "views"]) == "unknown option -x (in -jx)")
        #expect(usage(["views", "-jx"]) == "views has no option -x (in -jx)")
        #expect(usage(["-jm", "watch", "v"]) == "unknown option -m (in -jm; a command's options go after the command)")
        #expect(usage(["-js"]) == "-s needs PATH")
        #expect(usage(["export", "v", "-oqo", "x"]) == nil)
        #expect(usage(["export", "v", "-qo", "a", "-o", "b"]) == "-o given twice")
    }
}
