import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import LayoutService
import StrategyCodec
import Testing

/// Descriptors and parameters as JSON: what plugins declare and receive, and what
/// `strategy.list` publishes, are one format.
@Suite("strategy JSON codec")
struct StrategyCodecTests {
    @Test("every built-in descriptor survives writing and reading back")
    func builtInRoundTrip() throws {
        for descriptor in StrategyRegistry.builtIn.descriptors {
            let text = JSONWriter.string(StrategyJSON.descriptor(descriptor))
            #expect(try StrategyJSON.descriptor(from: text) == descriptor, "\(descriptor.name)")
        }
    }

    @Test("resolved parameters written for a plugin read back to the same values")
    func parametersRoundTrip() throws {
        let flow = try #require(StrategyRegistry.builtIn.descriptor(named: "flow"))
        let resolved = try flow.resolve([
            "itemSize": .size(Size(width: 12.5, height: 3)), "estimatedItemSize": .null,
            "sectionInset": .insets(EdgeInsets(top: 1, left: 2, bottom: 3, right: 4)), "scrollDirection": .string("horizontal"),
        ])
        let text = JSONWriter.string(StrategyJSON.parameters(resolved))
        #expect(text.hasPrefix(#"{"estimatedItemSize":null,"footerReferenceSize":"#), "keys sorted: \(text)")
        #expect(try StrategyJSON.resolvedParameters(text, for: flow) == resolved)
    }

    @Test(
        "a bad declaration is refused with a sentence naming what is wrong",
        arguments: [
            ("not json", "not valid JSON"),
            ("[]", "not a JSON object"),
            (#"{"summary":"","parameters":[]}"#, "needs a name"),
            (#"{"name":"has space","summary":"","parameters":[]}"#, "needs a name"),
            (#"{"name":"x","parameters":[]}"#, "needs a summary"),
            (#"{"name":"x","summary":""}"#, "needs a parameters array"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"length","default":1}]}"#, "unknown type 'length'"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"number"}]}"#, "needs a default"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"number","default":"1"}]}"#, "parameter 'a': default"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"number","default":5,"maximum":2}]}"#, "at most 2"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"integer","default":1,"minimum":0.5}]}"#, "whole numbers"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"choice","default":"b","choices":[]}]}"#, "non-empty choices"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"choice","default":"c","choices":["b"]}]}"#, "must be one of b"),
            (#"{"name":"x","summary":"","parameters":[{"name":"a","type":"bool","default":true},{"name":"a","type":"bool","default":false}]}"#, "declared twice"),
        ])
    func refusals(text: String, expected: String) {
        do {
            _ = try StrategyJSON.descriptor(from: text)
            Issue.record("accepted \(text)")
        } catch {
            #expect(error.message.contains(expected), "\(text): \(error.message)")
        }
    }

    @Test("strategy.list shows each strategy's origin, then the refused plugins")
    func listing() throws {
        var registry = StrategyRegistry.builtIn
        try registry.register(descriptor: StrategyDescriptor(name: "plain", summary: "a test strategy", parameters: []), origin: .plugin(path: "/p/plain.so")) {
            (_) throws(LayoutError) in throw .unknownStrategy("plain")
        }
        registry.recordRefusal(StrategyRefusal(name: "old", path: "/p/old.so", reason: "was built for plugin ABI version 0"))
        let service = LayoutService(registry: registry)
        let reply = try ServiceTests.reply(service, #"{"id":1,"method":"strategy.list"}"#)
        let entries = try #require(reply["result"]?["strategies"]?.arrayValue)
        #expect(entries.map { $0["name"]?.stringValue } == ["collapsible", "compositional", "display", "flow", "plain", "ultravisual", "old"])
        #expect(entries[3]["origin"] == .string("built-in") && entries[3]["status"] == .string("available"))
        #expect(entries[4]["origin"] == .string("/p/plain.so"))
        #expect(entries[6] == .object(["name": .string("old"), "origin": .string("/p/old.so"), "status": .string("refused"), "reason": .string("was built for plugin ABI version 0")]))
        // A refused plugin's name is not a strategy.
        let create = try ServiceTests.reply(service, #"{"id":2,"method":"view.create","params":{"view":"v","strategy":"old","viewport":{"width":10,"height":10}}}"#)
        #expect(create["error"]?["name"] == .string("UnknownStrategy"))
    }

    @Test("a replaced registry serves new views and strategy switches of existing ones")
    func replacedRegistry() throws {
        let service = LayoutService()
        try ServiceTests.create(service)
        let refused = try ServiceTests.reply(service, #"{"id":1,"method":"view.setStrategy","params":{"view":"photos","strategy":"rows"}}"#)
        #expect(refused["error"]?["name"] == .string("UnknownStrategy"))
        var registry = StrategyRegistry.builtIn
        try registry.register(descriptor: DisplayLayout.descriptor.renamed("rows"), origin: .plugin(path: "/p/rows.so")) { (parameters) throws(LayoutError) in
            DisplayLayout(parameters: parameters)
        }
        service.replaceRegistry(registry)
        let switched = try ServiceTests.reply(service, #"{"id":2,"method":"view.setStrategy","params":{"view":"photos","strategy":"rows"}}"#)
        #expect(switched["result"]?["epoch"] == .number(1), "\(switched)")
    }
}

extension StrategyDescriptor {
    fileprivate func renamed(_ name: String) -> StrategyDescriptor {
        StrategyDescriptor(name: name, summary: summary, parameters: parameters)
    }
}
