import LayoutClient
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
