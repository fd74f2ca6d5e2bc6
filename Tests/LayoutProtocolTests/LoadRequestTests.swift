import LayoutFuzzing
import LayoutGeometry
import LayoutProtocol
import Testing
import TestSupport

extension HotLineGenerator {
    /// A valid request line for one of the loads: `view.create` with its small members (the
    /// strategy's params, the viewport, options) and sections, `view.setData`, or
    /// `view.stage.append`; sometimes many sections, sometimes a member the method does not
    /// know (the method refuses it, not the decoder).
    mutating func loadLine() -> String {
        var params = [(String, String)]()
        let method: String
        let sections = array((0..<(chance(10) ? 40 : int(4))).map { _ in section() })
        switch int(3) {
        case 0:
            method = "view.create"
            params.append(("view", string(name())))
            params.append(("strategy", string(["flow", "waterfall", "ultravisual"][int(3)])))
            params.append(("viewport", object([("width", number(double())), ("height", number(double()))] + (chance(30) ? [("offset", object([("x", number(0)), ("y", number(double()))]))] : []))))
            if chance(50) { params.append(("params", chance(10) ? "null" : object([("itemSize", size()), ("columns", integer(int(9)))]))) }
            if chance(30) { params.append(("windowMargin", number(double()))) }
            if chance(20) { params.append(("anchor", ["null", #""end""#, #"{"id":"a","edge":"center","offset":4}"#][int(3)])) }
            if chance(20) { params.append(("layoutDirection", string(["ltr", "rtl"][int(2)]))) }
            if chance(85) { params.append(("sections", sections)) }
        case 1:
            method = "view.setData"
            params = options()
            params.append(("sections", sections))
        default:
            method = "view.stage.append"
            params.append(("upload", string(name())))
            params.append(("sections", sections))
        }
        if chance(5) { params.append(("extra", chance(50) ? "[1,{\"a\":[]}]" : string(name()))) }
        var envelope = [("method", string(method))]
        if chance(97) { envelope.append(("params", object(params))) }
        if chance(80) { envelope.append(("id", chance(70) ? integer(int(1_000_000)) : string(name()))) }
        return space() + object(envelope) + space()
    }

    /// `line` bent inside its sections, or anywhere (`mutated`).
    mutating func mutatedLoad(_ line: String) -> [UInt8] {
        let replacements = [
            (#""id""#, #""id":1,"id""#), (#"{"id""#, #"{"extra":1,"id""#), (#""items""#, #""items":null,"items""#), (#""items":["#, #""items":[1,"#),
            (#""size""#, #""size":{"width":1},"x""#), (#""height""#, #""height":"1","h""#), (#""width""#, #""w\u0069dth""#),
            (#""sections":["#, #""sections":[{"id":"s"},"#), (#""sections":["#, #""sections":{},"s":["#), (#""sections""#, #""sections":[],"sections""#),
            (#""headerSize""#, #""headerSize":{"width":1,"height":2,"depth":3},"h""#), (#""items""#, #""it\u0065ms""#),
            (#""method""#, #""jsonrpc":"2.0","method""#), (#""params""#, #""params":{"sections":[{"id":"x","items":[]}]},"params""#),
        ]
        if chance(50), case let (from, to) = replacements[int(replacements.count)], let range = line.firstRange(of: from) {
            return Array(line.replacingCharacters(in: range, with: to).utf8)
        }
        return mutated(line)
    }
}

@Suite("the load requests' byte decoder")
struct LoadRequestTests {
    @Test("generated valid lines: the load decoder gives what the general path gives, and takes most of them")
    func validLines() {
        var generator = HotLineGenerator(seed: 41)
        var accepted = 0
        var generalFailures = [String]()
        let count = 20_000
        for _ in 0..<count {
            let line = Array(generator.loadLine().utf8)
            for failure in FuzzTargets.load(line) { Issue.record("\(failure)") }
            if LoadRequest.decode(line) != nil { accepted += 1 }
            if (try? Request.decode(line)) == nil, generalFailures.count < 5 { generalFailures.append(String(decoding: line, as: UTF8.self)) }
        }
        #expect(generalFailures.isEmpty, "the generator wrote lines the general path refuses: \(generalFailures)")
        // What it leaves to the general path: numbers in sections with more than 15 significant
        // digits or an exponent past 22 (the generator writes many: a line of 40 sections
        // rarely has none), escaped keys. It takes 47 % of these lines.
        #expect(accepted > count * 4 / 10, "the load decoder took only \(accepted) of \(count)")
    }

    @Test("mutated and invalid lines: the load decoder never accepts what the general path refuses")
    func mutatedLines() {
        var generator = HotLineGenerator(seed: 42)
        var refused = 0
        var taken = 0
        let count = 40_000
        for _ in 0..<count {
            let line = generator.mutatedLoad(generator.loadLine())
            for failure in FuzzTargets.load(line) { Issue.record("\(failure)") }
            if (try? Request.decode(line)) == nil { refused += 1 }
            if LoadRequest.decode(line) != nil { taken += 1 }
        }
        #expect(refused > count / 4, "the mutations broke only \(refused) of \(count) lines")
        #expect(taken > count / 10, "the decoder took only \(taken) of \(count) mutated lines: the check compared little")
    }

    static let create = #"{"id":7,"method":"view.create","params":{"view":"v","strategy":"flow","viewport":{"width":390,"height":844},"sections":[{"id":"s","items":[{"id":"a","size":{"width":1,"height":2.5}},{"estimatedSize":null,"id":"b\u00e9"}],"footerSize":{"width":0,"height":1e1}}]}}"#

    @Test("a create's sections are read into the wire model and left out of its params")
    func createLine() throws {
        let request = try #require(LoadRequest.decode(Array(Self.create.utf8)))
        #expect(request.id == .number(7) && request.method == "view.create")
        #expect(request.params.keys == ["view", "strategy", "viewport"])
        #expect(request.sections == [
            WireSection(id: "s", items: [WireItem(id: "a", size: Size(width: 1, height: 2.5)), WireItem(id: "bé")], footerSize: Size(width: 0, height: 10))
        ])
        var reader = ParamsReader(request)
        #expect(reader.has("sections"))
        #expect(try WireModel.sections(&reader, "sections") == request.sections)
        #expect(FuzzTargets.load(Array(Self.create.utf8)).isEmpty)
    }

    /// A long items array is reserved once from a count of the rest of it (growing by doubling
    /// held two buffers at the peak of a 1M-item load). The count follows strings and nesting:
    /// ids full of commas, brackets and escaped quotes, and nested sizes, change nothing.
    @Test("a long items array is reserved to its length, whatever its strings and sizes hold", arguments: [4096, 4097, 5000, 9000])
    func longItemsArray(count: Int) throws {
        let items = (0..<count).map { n in
            n % 3 == 0 ? #"{"id":"i\#(n),]}\"[{","size":{"width":1,"height":2}}"# : #"{"id":"i\#(n)"}"#
        }
        let line = #"{"id":1,"method":"view.setData","params":{"view":"v","sections":[{"id":"s","items":["# + items.joined(separator: ",")
            + #"]},{"id":"t","items":[{"id":"x"},{"id":"y"}]}]}}"#
        let request = try #require(LoadRequest.decode(Array(line.utf8)))
        let decoded = try #require(request.sections?.first?.items)
        #expect(decoded.count == count)
        let expected = (0..<count).map { n in
            n % 3 == 0 ? WireItem(id: #"i\#(n),]}"[{"#, size: Size(width: 1, height: 2)) : WireItem(id: "i\(n)")
        }
        #expect(decoded == expected)
        #expect(decoded.capacity < count + count / 8, "reserved once, not doubled: \(decoded.capacity) for \(count)")
        #expect(request.sections?.last?.items.map(\.id) == ["x", "y"])
    }

    /// Lines the decoder must leave to the general path: refused there, or valid in a way it
    /// does not read.
    @Test("lines left to the general path", arguments: [
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","id":"b"}]}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","extra":1}]}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":1}]}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","size":{"width":1}}]}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s"}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":null}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[],"sections":[]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","view":"w","sections":[]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","params":{"a":1,"a":2},"sections":[]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[]},"jsonrpc":"2.0"}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","s\u0065ctions":[]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[{"id":"s","items":[{"id":"a","size":{"width":0.1000000000000000055511151231257827,"height":1}}]}]}}"#,
        #"{"id":1,"method":"view.create","params":{"view":"v","sections":[]}} x"#,
        #"{"id":1,"method":"view.import","params":{"view":"v","sections":[]}}"#,
    ])
    func leftToGeneralPath(text: String) {
        #expect(LoadRequest.decode(Array(text.utf8)) == nil)
    }

    /// The nesting limit counts from the line, not from the member: a member of `params` is two
    /// containers deep already.
    @Test("a params member nested to the limit is taken, one deeper is refused as by the parser")
    func depth() {
        func line(_ depth: Int) -> [UInt8] {
            let nested = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            return Array(#"{"id":1,"method":"view.create","params":{"params":\#(nested),"sections":[]}}"#.utf8)
        }
        let deepest = JSONParser.defaultMaximumDepth - 2
        #expect((try? Request.decode(line(deepest))) != nil)
        #expect(LoadRequest.decode(line(deepest)) != nil)
        #expect((try? Request.decode(line(deepest + 1))) == nil)
        #expect(LoadRequest.decode(line(deepest + 1)) == nil)
    }
}
