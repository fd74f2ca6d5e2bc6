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
        #expect(switching.repeating == .nothing)
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
        #expect(catalog.bashCompletion().contains("__complete \"$1\""))
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
}
