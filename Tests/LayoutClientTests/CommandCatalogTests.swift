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
}
