import LayoutctlKit
import LayoutEngine
import LayoutProtocol
import Testing

@Suite("parameter names for the shell completions")
struct ParameterCompletionTests {
    @Test("the built-in copy is the engine's descriptors: every strategy, parameter, choice and bool")
    func builtInMatchesTheEngine() {
        var engine = [String: [ParameterCompletion]]()
        for descriptor in StrategyRegistry.builtIn.descriptors {
            engine[descriptor.name] = descriptor.parameters.map { parameter in
                switch parameter.kind {
                case .choice(let values): ParameterCompletion(parameter.name, values: values)
                case .bool: ParameterCompletion(parameter.name, values: ["true", "false"])
                default: ParameterCompletion(parameter.name)
                }
            }
        }
        #expect(ParameterCompletion.builtIn == engine)
        #expect(engine[ParameterCompletion.defaultStrategy] != nil)
    }

    @Test("names first, each with its =, then the values worth offering")
    func lines() {
        let lines = ParameterCompletion.lines([ParameterCompletion("mode", values: ["grid", "list"]), ParameterCompletion("columns")])
        #expect(lines == ["mode=", "columns=", "mode=grid", "mode=list"])
    }

    @Test("read from a strategy.list entry's parameter: choices, bool, other types")
    func fromDescriptor() throws {
        let choice = try JSONParser.parse(#"{"name":"mode","type":"choice","choices":["grid","list"]}"#)
        #expect(ParameterCompletion(descriptor: choice) == ParameterCompletion("mode", values: ["grid", "list"]))
        let flag = try JSONParser.parse(#"{"name":"collapsed","type":"bool","default":false}"#)
        #expect(ParameterCompletion(descriptor: flag) == ParameterCompletion("collapsed", values: ["true", "false"]))
        let size = try JSONParser.parse(#"{"name":"itemSize","type":"size"}"#)
        #expect(ParameterCompletion(descriptor: size) == ParameterCompletion("itemSize"))
        #expect(ParameterCompletion(descriptor: try JSONParser.parse(#"{"type":"size"}"#)) == nil)
    }
}
