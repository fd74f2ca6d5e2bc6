import LayoutClient
import Testing

@Suite("the command table")
struct CommandCatalogTests {
    @Test("positional arguments complete by what their placeholder names")
    func positionalCompletions() throws {
        let load = try #require(CommandCatalog.command(named: "load")).positionalCompletions
        #expect(load.fixed == [.view, .file])
        #expect(load.repeating == nil)
        let switching = try #require(CommandCatalog.command(named: "switch")).positionalCompletions
        #expect(switching.fixed == [.view, .strategy])
        #expect(switching.repeating == .nothing)
        let completion = try #require(CommandCatalog.command(named: "completion")).positionalCompletions
        #expect(completion.fixed == [.words(["bash", "zsh"])])
        #expect(try #require(CommandCatalog.command(named: "help")).positionalCompletions.fixed == [.command])
    }

    @Test("the hidden completion helper is a command but not in help, the man page or the completions")
    func hiddenCommand() {
        #expect(CommandCatalog.command(named: "__complete") != nil)
        #expect(!CommandCatalog.overview(version: "0").contains("__complete"))
        #expect(!CommandCatalog.manPage(version: "0", date: "d").contains("__complete"))
        #expect(!CommandCatalog.bashCompletion().contains("__complete)"))
        #expect(CommandCatalog.bashCompletion().contains("__complete \"$1\""))
    }

    @Test("watch documents its own exit codes in help and the man page")
    func watchExitCodes() throws {
        let watch = try #require(CommandCatalog.command(named: "watch"))
        #expect(watch.exitCodes.map(\.code) == ["0", "1", "2", "3", "64"])
        #expect(CommandCatalog.help(for: watch).contains("Exit codes:\n  0   --count events were printed, or SIGINT/SIGTERM stopped it\n"))
        #expect(CommandCatalog.manPage(version: "0", date: "d").contains("\\fBlayoutctl watch\\fR has its own: 0"))
    }
}
