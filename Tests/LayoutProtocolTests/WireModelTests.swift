import LayoutProtocol
import Testing

@Suite("wire items")
struct WireModelTests {
    /// Items lists the direct reading takes and ones it hands to the readers: each must give
    /// what the readers alone give, value or error.
    static let cases = [
        #"[]"#,
        #"[{"id": "a"}, {"id": "b", "size": {"width": 1, "height": 2}}, {"size": {"height": 3, "width": 4}, "id": "c"}]"#,
        #"[{"id": "a", "estimatedSize": {"width": 1, "height": 2}, "selectedSize": {"width": 5, "height": 6}, "size": null}]"#,
        #"[{"id": "a"}, {"id": 7}]"#,
        #"[{"id": "a"}, {"id": null}]"#,
        #"[{"id": "a"}, {}]"#,
        #"[{"id": "a", "colour": "red"}]"#,
        #"[{"id": "a", "size": {"width": 1}}]"#,
        #"[{"id": "a", "size": {"width": 1, "height": "2"}}]"#,
        #"[{"id": "a", "size": {"width": 1, "height": 2, "depth": 3}}]"#,
        #"[{"id": "a", "size": {"width": 1, "depth": 3}}]"#,
        #"[{"id": "a", "size": [1, 2]}]"#,
        #"[{"id": "a"}, 3]"#,
        #"{"id": "a"}"#,
        #"null"#,
    ]

    @Test("reading items directly gives the readers' values and errors", arguments: cases)
    func sameAsReaders(items: String) throws {
        let object = try #require(try JSONParser.parse(#"{"items": \#(items)}"#).objectValue)
        var direct = ParamsReader(object)
        var readers = ParamsReader(object)
        let fast = Result { () throws(WireError) -> [WireItem] in try WireModel.items(&direct, "items") }
        let slow = Result { () throws(WireError) -> [WireItem] in
            try readers.objects("items").map { element throws(WireError) -> WireItem in
                var element = element
                return try WireItem.read(&element)
            }
        }
        switch (fast, slow) {
        case (.success(let a), .success(let b)): #expect(a == b)
        case (.failure(let a), .failure(let b)): #expect(a == b)
        default: Issue.record("direct \(fast), readers \(slow)")
        }
        // Either way `items` counts as read.
        #expect(throws: Never.self) { try direct.finish() }
    }
}
