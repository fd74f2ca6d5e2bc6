import LayoutFuzzing
import LayoutGeometry
import LayoutProtocol
import Testing
import TestSupport

/// Request lines of the hot methods as a client might write them: members in random order,
/// random whitespace, strings with random escapes (short ones, `\u` ones, surrogate pairs),
/// numbers in every form (integers, fractions, exponents, `-0`, forms with more digits than
/// the byte decoder converts), optional fields present, `null` or absent.
struct HotLineGenerator {
    var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func int(_ bound: Int) -> Int { Int(random.next() % UInt64(bound)) }
    mutating func chance(_ percent: Int) -> Bool { int(100) < percent }

    mutating func space() -> String {
        ["", "", "", "", " ", "  ", "\t", "\n", " \r\n "][int(9)]
    }

    mutating func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            let value = scalar.value
            let special: [UInt32: String] = [0x22: "\\\"", 0x5C: "\\\\", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t", 0x08: "\\b", 0x0C: "\\f", 0x2F: "\\/"]
            if value < 0x20 || value == 0x22 || value == 0x5C || chance(15) {
                if let short = special[value], chance(50) {
                    out += short
                } else if value >= 0x10000 {
                    let offset = value - 0x10000
                    out += hex(0xD800 + (offset >> 10)) + hex(0xDC00 + (offset & 0x3FF))
                } else {
                    out += hex(value)
                }
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// A key, escaped now and then (the byte decoder leaves those to the general path).
    mutating func key(_ text: String) -> String {
        chance(1) ? string(text) : "\"" + text + "\""
    }

    mutating func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: chance(50))
        return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    mutating func name() -> String {
        let pieces = ["a", "photos", "é", "😀", "\"", "\\", "\n", "\u{1}", " ", "€", "/", "z9", "\u{7F}", "日本"]
        return (0..<(1 + int(4))).map { _ in pieces[int(pieces.count)] }.joined()
    }

    /// A finite double of the kinds layouts use, and some others.
    mutating func double() -> Double {
        let raw = random.next()
        switch int(8) {
        case 0: return Double(Int64(bitPattern: raw) % 100_000)
        case 1: return Double(Int64(bitPattern: raw) % 2_000_000) / 4
        case 2: return Double(Int64(bitPattern: raw) % 2_000_000) / 1000
        case 3: return [0, -0.0, 1e15, -1e15, 1e-7, 123456.789e3, 9_007_199_254_740_992][int(7)]
        case 4: return Double(Int64(bitPattern: raw) % 1_000_000_000_000) / 1e6
        case 5:
            let value = Double(bitPattern: raw)
            return value.isFinite ? value : 0.5
        default: return Double(Int64(bitPattern: raw) % 1000)
        }
    }

    /// `value` written in one of several equivalent ways.
    mutating func number(_ value: Double) -> String {
        let plain = value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : value.description
        switch int(8) {
        case 0 where value == value.rounded() && abs(value) < 1e15: return plain + ".0"
        case 1 where value == value.rounded() && abs(value) < 1e15 && value != 0: return plain + "e0"
        case 2 where value == value.rounded() && abs(value) < 1e12 && value != 0: return plain + "000e-3"
        case 3 where value == value.rounded() && abs(value) < 1e15 && value != 0: return plain + "0E-1"
        case 4 where !plain.contains("e") && plain.contains("."): return plain + "0000000000000000000"  // too many digits for the byte decoder
        case 5 where value == 0: return ["-0", "0", "-0.0", "0e5", "-0E-3"][int(5)]
        default: return plain
        }
    }

    mutating func integer(_ value: Int) -> String {
        chance(85) ? String(value) : number(Double(value))
    }

    mutating func object(_ members: [(String, String)]) -> String {
        var members = members
        members.shuffle(using: &random)
        let body = members.map { "\(space())\(key($0.0))\(space()):\(space())\($0.1)\(space())" }.joined(separator: ",")
        return "{" + body + "}"
    }

    mutating func array(_ elements: [String]) -> String {
        "[" + elements.map { "\(space())\($0)\(space())" }.joined(separator: ",") + "]"
    }

    mutating func size() -> String { object([("width", number(double())), ("height", number(double()))]) }

    mutating func options() -> [(String, String)] {
        var members = [("view", string(name()))]
        if chance(40) { members.append(("animated", ["true", "false", "null"][int(3)])) }
        if chance(40) { members.append(("ifEpoch", chance(20) ? "null" : integer(int(1000)))) }
        if chance(30) { members.append(("dryRun", ["true", "false", "null"][int(3)])) }
        if chance(20) { members.append(("anchor", ["null", #""end""#, #""none""#, #""lastVisible""#, #"{"id":"a","edge":"center","offset":4}"#][int(5)])) }
        return members
    }

    mutating func ids() -> String { array((0..<int(5)).map { _ in string(name()) }) }

    mutating func item() -> String {
        var members = [("id", string(name()))]
        for key in ["size", "estimatedSize", "selectedSize"] where chance(30) { members.append((key, chance(20) ? "null" : size())) }
        return object(members)
    }

    mutating func items() -> String { array((0..<int(4)).map { _ in item() }) }

    mutating func section() -> String {
        var members = [("id", string(name())), ("items", items())]
        for key in ["headerSize", "footerSize"] where chance(30) { members.append((key, chance(20) ? "null" : size())) }
        return object(members)
    }

    mutating func update() -> String {
        let at = ("at", integer(int(50)))
        switch int(8) {
        case 0: return object([("op", string("insertItems")), ("items", items()), ("section", string(name())), at])
        case 1: return object([("op", string("deleteItems")), ("ids", ids())])
        case 2: return object([("op", string("moveItem")), ("id", string(name())), ("section", string(name())), at])
        case 3: return object([("op", string("reloadItems")), ("items", items())])
        case 4: return object([("op", string("insertSections")), ("sections", array((0..<int(3)).map { _ in section() })), at])
        case 5: return object([("op", string("deleteSections")), ("ids", ids())])
        case 6: return object([("op", string("moveSection")), ("id", string(name())), at])
        default: return object([("op", string("reloadSections")), ("sections", array((0..<int(3)).map { _ in section() }))])
        }
    }

    /// A valid request line for one of the four methods.
    mutating func line() -> String {
        var params = options()
        let method: String
        switch int(4) {
        case 0:
            method = "view.scroll"
            params.append(("offset", object([("x", number(double())), ("y", number(double()))])))
            if chance(30) { params.append(("velocity", chance(15) ? "null" : object([("x", number(double())), ("y", number(double()))]))) }
            if chance(20) { params.append(("horizon", chance(15) ? "null" : number(double()))) }
        case 1:
            method = "view.select"
            params.append(("ids", ids()))
            if chance(50) { params.append(("mode", chance(15) ? "null" : string(["set", "add", "remove", "toggle"][int(4)]))) }
        case 2:
            method = "view.measure"
            params.append(("sizes", array((0..<int(4)).map { _ in object([("id", string(name())), ("size", size())]) })))
        default:
            method = "view.update"
            params.append(("updates", array((0..<int(4)).map { _ in update() })))
        }
        var envelope = [("method", string(method)), ("params", object(params))]
        if chance(80) { envelope.append(("id", chance(70) ? integer(int(1_000_000)) : string(name()))) }
        return space() + object(envelope) + space()
    }

    /// `line` broken or bent in one place: a byte deleted, inserted or replaced, a member
    /// duplicated, added or retyped, a truncation, trailing bytes.
    mutating func mutated(_ line: String) -> [UInt8] {
        var bytes = Array(line.utf8)
        let noise: [UInt8] = Array("{}[],:\"\\0123456789-+.eEtrufalsn x".utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC0, 0xED, 0xF5, 0xFF]
        switch int(9) {
        case 0 where !bytes.isEmpty: bytes.remove(at: int(bytes.count))
        case 1: bytes.insert(noise[int(noise.count)], at: int(bytes.count + 1))
        case 2 where !bytes.isEmpty: bytes[int(bytes.count)] = noise[int(noise.count)]
        case 3: bytes = Array(bytes.prefix(int(bytes.count + 1)))
        case 4: bytes += Array([" x", "}", ",", "\u{0}", "{}"][int(5)].utf8)
        case 5:
            // A member inside the first object after `"params"`: a duplicate, an unknown key, a wrong type.
            let inserted = [#""view":"w","#, #""extra":1,"#, #""animated":1,"#, #""ifEpoch":1.5,"#, #""dryRun":"yes","#, #""mode":"all","#,
                            #""ids":null,"#, #""offset":null,"#, #""ifEpoch":9007199254740994,"#][int(9)]
            if let range = line.firstRange(of: "\"params\"") , let brace = line[range.upperBound...].firstIndex(of: "{") {
                var text = line
                text.insert(contentsOf: inserted, at: text.index(after: brace))
                bytes = Array(text.utf8)
            }
        case 6:
            let replacements = [("\"x\"", "\"z\""), ("true", "1"), ("\"op\"", "\"OP\""), ("\"deleteItems\"", "\"deleteItem\""), ("[", "[1,"),
                                ("\"width\"", "\"w\\u0069dth\""), ("\"method\"", "\"jsonrpc\":\"2.0\",\"method\""), ("\"id\"", "\"id\":2,\"id\"")]
            let (from, to) = replacements[int(replacements.count)]
            if let range = line.firstRange(of: from) { bytes = Array(line.replacingCharacters(in: range, with: to).utf8) }
        case 7 where !bytes.isEmpty:
            let at = int(bytes.count)
            bytes.insert(contentsOf: Array(["\\ud800", "\\udc00x", "\u{0}", "01", "1e999", "-", ".5"][int(7)].utf8), at: at)
        default:
            bytes = Array(line.utf8) + Array("\n".utf8) + Array(line.utf8)
        }
        return bytes
    }
}

extension String {
    func replacingCharacters(in range: Range<String.Index>, with text: String) -> String {
        String(self[..<range.lowerBound]) + text + String(self[range.upperBound...])
    }
}

@Suite("the hot requests' byte decoder")
struct HotRequestTests {
    static func general(_ line: [UInt8]) -> HotRequest? {
        guard let request = try? Request.decode(line) else { return nil }
        return (try? HotRequest(request)) ?? nil
    }

    @Test("generated valid lines: the byte decoder gives what the general path gives, and takes most of them")
    func validLines() {
        var generator = HotLineGenerator(seed: 19)
        var accepted = 0
        var generalFailures = [String]()
        let count = 40_000
        for _ in 0..<count {
            let line = Array(generator.line().utf8)
            for failure in FuzzTargets.hot(line) { Issue.record("\(failure)") }
            if HotRequest.decode(line) != nil { accepted += 1 }
            if Self.general(line) == nil, generalFailures.count < 5 { generalFailures.append(String(decoding: line, as: UTF8.self)) }
        }
        #expect(generalFailures.isEmpty, "the generator wrote lines the general path refuses: \(generalFailures)")
        // What it leaves to the general path: numbers with more than 15 significant digits or
        // an exponent past 22, escaped keys.
        #expect(accepted > count * 6 / 10, "the byte decoder took only \(accepted) of \(count)")
    }

    @Test("mutated and invalid lines: the byte decoder never accepts what the general path refuses")
    func mutatedLines() {
        var generator = HotLineGenerator(seed: 20)
        var refused = 0
        let count = 80_000
        for _ in 0..<count {
            let line = generator.mutated(generator.line())
            for failure in FuzzTargets.hot(line) { Issue.record("\(failure)") }
            if Self.general(line) == nil { refused += 1 }
        }
        #expect(refused > count / 3, "the mutations broke only \(refused) of \(count) lines")
    }

    /// (line, what the byte decoder must give: the value or nil).
    static let cases: [(String, HotRequest?)] = [
        (#"{"id":4711,"method":"view.scroll","params":{"view":"photos","offset":{"x":0,"y":1234.5}}}"#,
         HotRequest(id: .number(4711), params: .scroll(ScrollParams(options: MutationOptions(view: "photos"), offset: Point(x: 0, y: 1234.5))))),
        (#" {"params":{"offset":{"y":1.5e2,"x":-0},"view":"v","ifEpoch":3.0,"dryRun":true},"method":"view.scroll"} "#,
         HotRequest(id: nil, params: .scroll(ScrollParams(options: MutationOptions(view: "v", ifEpoch: 3, dryRun: true), offset: Point(x: 0, y: 150))))),
        (#"{"id":5,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":9},"velocity":{"y":-800,"x":0},"horizon":0.5}}"#,
         HotRequest(id: .number(5), params: .scroll(ScrollParams(options: MutationOptions(view: "v"), offset: Point(x: 0, y: 9), velocity: Point(x: 0, y: -800), horizon: 0.5)))),
        (#"{"id":6,"method":"view.measure","params":{"view":"v","anchor":"end","sizes":[]}}"#,
         HotRequest(id: .number(6), params: .measure(MeasureParams(options: MutationOptions(view: "v", anchor: .end), sizes: [])))),
        (#"{"id":6,"method":"view.select","params":{"view":"v","ids":[],"anchor":null}}"#,
         HotRequest(id: .number(6), params: .select(SelectParams(options: MutationOptions(view: "v"), ids: [])))),
        (#"{"id":5,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":9},"velocity":null,"horizon":null}}"#,
         HotRequest(id: .number(5), params: .scroll(ScrollParams(options: MutationOptions(view: "v"), offset: Point(x: 0, y: 9))))),
        (#"{"id":"a\u00e9","method":"view.select","params":{"view":"v","ids":["\ud83d\ude00","b"],"mode":null,"animated":null}}"#,
         HotRequest(id: .string("aé"), params: .select(SelectParams(options: MutationOptions(view: "v"), ids: ["😀", "b"], mode: .set))))
        ,
        (#"{"id":1,"method":"view.measure","params":{"view":"v","sizes":[{"size":{"height":2,"width":1},"id":"x"}]}}"#,
         HotRequest(id: .number(1), params: .measure(MeasureParams(options: MutationOptions(view: "v"), sizes: [.init(id: "x", size: Size(width: 1, height: 2))])))),
        (#"{"id":1,"method":"view.update","params":{"view":"v","updates":[{"ids":["a"],"op":"deleteItems"},{"op":"insertItems","section":"s","at":1e1,"items":[{"id":"n","size":null}]}]}}"#,
         HotRequest(id: .number(1), params: .update(UpdateParams(options: MutationOptions(view: "v"), updates: [.deleteItems(["a"]), .insertItems([WireItem(id: "n")], section: "s", at: 10)])))),
        // Refused by the general path too:
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"view":"w"}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1e400}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":01}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"\ud800","offset":{"x":0,"y":1}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"extra":1}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"velocity":{"x":0},"horizon":1}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"horizon":"1"}}"#, nil),
        (#"{"id":1,"method":"view.select","params":{"view":"v","ids":[],"anchor":"middle"}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"horizon":1,"horizon":2}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":null}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1}}} x"#, nil),
        (#"{"id":1.5,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1}}}"#, nil),
        (#"{"id":1,"method":"view.select","params":{"view":"v","ids":["a"],"mode":"all"}}"#, nil),
        (#"{"id":1,"method":"view.update","params":{"view":"v","updates":[{"op":"deleteItems","ids":["a"],"at":0}]}}"#, nil),
        (#"{"id":1,"method":"view.select","params":{"view":"v","ids":["a"],"ifEpoch":9007199254740994}}"#, nil),
        // Valid, but left to the general path:
        (#"{"id":1,"method":"view.select","params":{"view":"v","ids":[],"anchor":{"id":"a","edge":"end"}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"ifEpoch":null},"jsonrpc":"2.0"}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"vi\u0065w":"v","offset":{"x":0,"y":1}}}"#, nil),
        (#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":0.1000000000000000055511151231257827}}}"#, nil),
        (#"{"id":1,"method":"view.get","params":{"view":"v"}}"#, nil),
    ]

    @Test("lines with known answers", arguments: 0..<cases.count)
    func knownLine(index: Int) {
        let (text, expected) = Self.cases[index]
        let line = Array(text.utf8)
        let actual = HotRequest.decode(line)
        #expect(actual == expected, "line \(text)\n expected \(String(reflecting: expected))\n actual   \(String(reflecting: actual))")
        #expect(FuzzTargets.hot(line).isEmpty, "\(FuzzTargets.hot(line))")
        if expected == nil, text.contains("jsonrpc") || text.contains("\\u0065") || text.contains("0.1000") || text.contains("view.get") || text.contains(#""edge""#) {
            #expect(Self.general(line) != nil || text.contains("view.get"), "the general path takes \(text)")
        }
    }

    @Test("the byte decoder reads the very double the parser reads, down to -0.0", arguments: [
        "0", "-0", "-0.0", "0.0", "-0e3", "1.5", "-1234.125", "1e22", "1e-22", "123456789012345", "0.000123", "4.35", "1.7976931348623157e30",
        "9007199254740993.5e-10", "314159265358979e-14", "0.1", "2.675", "5E-1",
    ])
    func numbers(text: String) throws {
        let line = Array(#"{"method":"view.scroll","params":{"view":"v","offset":{"x":\#(text),"y":0}}}"#.utf8)
        let parsed = try #require(try JSONParser.parse(Array(text.utf8)).numberValue)
        if let fast = HotRequest.decode(line), case .scroll(let params) = fast.params {
            #expect(params.offset.x.bitPattern == parsed.bitPattern, "\(text): \(params.offset.x) vs \(parsed)")
        }
    }
}
