import LayoutctlKit
import LayoutGeometry
import LayoutProtocol
import Testing

@Suite("command-line values and tables")
struct FormattingTests {
    @Test(
        "NAME=VALUE reads numbers, flags, sizes, insets, JSON and text",
        arguments: [
            ("itemSize=100x44.5", "itemSize", #"{"width":100,"height":44.5}"#),
            ("minimumLineSpacing=8", "minimumLineSpacing", "8"),
            ("collapsed=true", "collapsed", "true"),
            ("estimatedItemSize=null", "estimatedItemSize", "null"),
            ("sectionInset=1,2,3,4", "sectionInset", #"{"top":1,"left":2,"bottom":3,"right":4}"#),
            ("mode=list", "mode", #""list""#),
            ("label=a=b", "label", #""a=b""#),
            ("x=-2.5", "x", "-2.5"),
            ("raw={\"a\":[1]}", "raw", #"{"a":[1]}"#),
            ("name=inf", "name", #""inf""#),
            ("headerReferenceSize=0x40", "headerReferenceSize", #"{"width":0,"height":40}"#),
            ("itemSize=0x0", "itemSize", #"{"width":0,"height":0}"#),
            ("label=0x1p3", "label", #""0x1p3""#),
            ("n=nan", "n", #""nan""#),
        ])
    func parameters(text: String, name: String, json: String) throws {
        let parsed = try #require(ValueText.parameter(text))
        #expect(parsed.name == name)
        #expect(JSONWriter.string(parsed.value) == json)
    }

    @Test("malformed words are refused, not guessed")
    func refusals() {
        #expect(ValueText.parameter("noequals") == nil)
        #expect(ValueText.parameter("=value") == nil)
        #expect(ValueText.rect("1,2,3") == nil)
        #expect(ValueText.rect("1,2,3,x") == nil)
        #expect(ValueText.size("10x") == nil)
        #expect(JSONWriter.string(ValueText.rect("0,540.5,390,844")!) == #"{"x":0,"y":540.5,"width":390,"height":844}"#)
    }

    @Test(
        "a parameter reads as its descriptor's type says: WxH is a size, never a hex number",
        arguments: [
            ("headerReferenceSize=0x40", "size", #"{"width":0,"height":40}"#),
            ("itemSize=0x0", "size", #"{"width":0,"height":0}"#),
            ("estimatedItemSize=null", "size?", "null"),
            ("estimatedItemSize=10x20", "size?", #"{"width":10,"height":20}"#),
            ("spacing=8", "number", "8"),
            ("columns=3", "integer", "3"),
            ("collapsed=false", "bool", "false"),
            ("mode=100x100", "choice", #""100x100""#),
            ("inset=1,2,3,4", "insets", #"{"top":1,"left":2,"bottom":3,"right":4}"#),
            ("itemSize={\"width\":1,\"height\":2}", "size", #"{"width":1,"height":2}"#),
        ])
    func typedParameters(text: String, type: String, json: String) throws {
        let name = String(text.prefix { $0 != "=" })
        let parsed = try ValueText.parameter(text, types: [name: type])
        #expect(JSONWriter.string(parsed.value) == json)
    }

    @Test(
        "a value that is not of its parameter's type is refused before the daemon sees it",
        arguments: [("spacing=0x40", "number"), ("itemSize=64", "size"), ("itemSize=abc", "size"), ("collapsed=yes", "bool"), ("inset=1,2,3", "insets")])
    func typedRefusals(text: String, type: String) {
        let name = String(text.prefix { $0 != "=" })
        #expect(throws: ValueTextError.self) { try ValueText.parameter(text, types: [name: type]) }
    }

    @Test("numbers are decimal: hex, inf and nan are not numbers on the command line")
    func decimalNumbers() {
        #expect(ValueText.number("0x40") == nil)
        #expect(ValueText.number("-0x40") == nil)
        #expect(ValueText.number("inf") == nil)
        #expect(ValueText.number("-nan") == nil)
        #expect(ValueText.number("1e") == nil)
        #expect(ValueText.number(".") == nil)
        #expect(ValueText.number("") == nil)
        #expect(ValueText.number("12") == 12)
        #expect(ValueText.number("-2.5") == -2.5)
        #expect(ValueText.number(".5") == 0.5)
        #expect(ValueText.number("1e3") == 1000)
        #expect(ValueText.number("1.5E-1") == 0.15)
        #expect(ValueText.size("0x40") == Size(width: 0, height: 40))
        #expect(ValueText.size("0x1x2") == nil)
        #expect(ValueText.size("infx2") == nil)
        #expect(ValueText.rect("0x10,0,1,1") == nil)
    }

    @Test(
        "table numbers have at most three decimals, trailing zeros trimmed",
        arguments: [(33.3333333, "33.333"), (2.50, "2.5"), (100, "100"), (-0.0001, "0"), (0.1 + 0.2, "0.3"), (-12.34567, "-12.346"), (1.0005, "1.001"), (59.11111, "59.111")])
    func roundedNumbers(number: Double, text: String) {
        #expect(formatNumber(.number(number)) == text)
    }

    @Test("a plain grid has an alpha column and no hidden, transform or effects column")
    func plainElements() {
        let element: JSONValue = .object([
            "id": .string("i0"), "kind": .string("cell"), "section": .number(0), "item": .number(0),
            "frame": .object(["x": .number(0), "y": .number(1.0 / 3), "width": .number(100), "height": .number(100)]), "zIndex": .number(0),
            "alpha": .number(1), "hidden": .bool(false),
        ])
        #expect(ElementTable.render([element]) == "id  kind  section  item  frame            z  alpha\ni0  cell        0     0  0,0.333,100,100  0      1\n")
    }

    @Test("hidden, transform and effects get columns when some element has them")
    func decoratedElements() {
        func element(_ id: String, _ extra: JSONObject) -> JSONValue {
            var object: JSONObject = [
                "id": .string(id), "kind": .string("cell"), "section": .number(0), "item": .number(0),
                "frame": .object(["x": .number(0), "y": .number(0), "width": .number(10), "height": .number(10)]), "zIndex": .number(0),
                "alpha": .number(0.6666666), "hidden": .bool(false),
            ]
            for (key, value) in extra.pairs { object[key] = value }
            return .object(object)
        }
        let rotated: JSONValue = .object(["a": .number(0.5), "b": .number(0.8660254), "c": .number(-0.8660254), "d": .number(0.5), "tx": .number(0), "ty": .number(0)])
        let text = ElementTable.render([
            element("a", ["hidden": .bool(true)]), element("b", ["transform": rotated]),
            element("c", ["effects": .object(["coverAlpha": .number(0.41777), "titleScale": .number(1)])]),
        ])
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines[0] == "id  kind  section  item  frame      z  alpha  hidden  transform                 effects")
        #expect(lines[1].hasSuffix("0.667  yes"))
        #expect(lines[2].hasSuffix("0.667          0.5,0.866,-0.866,0.5,0,0"))
        #expect(lines[3] == "c   cell        0     0  0,0,10,10  0  0.667                                    coverAlpha=0.418 titleScale=1")
    }

    @Test("tables align text left and numbers right, under a header")
    func table() {
        let text = Table(columns: ["id", "epoch"], rows: [["photos", "7"], ["a", "1234"]]).render()
        #expect(text == "id      epoch\nphotos      7\na        1234\n")
    }

    @Test("pretty JSON keeps the daemon's key order and parses back")
    func pretty() throws {
        let value: JSONValue = .object(["b": .number(1), "a": .array([.bool(true), .object([:])]), "c": .array([])])
        let text = PrettyJSON.string(value)
        #expect(text == "{\n  \"b\": 1,\n  \"a\": [\n    true,\n    {}\n  ],\n  \"c\": []\n}")
        #expect(try JSONParser.parse(Array(text.utf8)) == value)
    }
}
