import LayoutEngine
import LayoutGeometry
import LayoutProtocol
@testable import LayoutService
import Testing

/// The direct writers must produce exactly the bytes of the `JSONValue` path they replace:
/// the published transcripts compare replies byte for byte.
@Suite("direct encoding of replies")
struct EncodingTests {
    @Test("invalidations written directly equal the JSONValue tree written", arguments: ["flow", "collapsible", "ultravisual", "display"])
    func invalidations(strategy: String) throws {
        let items: [ItemSpec] = (0..<300).map { (index: Int) -> ItemSpec in
            let size = Size(width: Double(40 + index % 97) + 0.5, height: Double(30 + index % 61))
            return ItemSpec(id: "item-\(index)", size: size)
        }
        let view = try View(
            strategy: strategy, sections: [SectionSpec(id: "main", items: items), SectionSpec(id: "more", items: [ItemSpec(id: "x \"quoted\" é")])],
            viewport: Viewport(size: Size(width: 390, height: 844)), windowMargin: 120)
        var invalidations = [Invalidation]()
        for step in 0..<12 { invalidations.append(try view.scroll(to: Point(x: 0, y: Double(step) * 133.25))) }
        invalidations.append(try view.select(["item-3", "item-4", "item-5"], mode: .set, animated: true))
        let batch: [BatchUpdate] = [.insertItems([ItemSpec(id: "new")], section: "main", at: 2), .deleteItems(["item-9"])]
        invalidations.append(try view.performBatch(batch, animated: true))
        invalidations.append(try view.measure([("item-20", Size(width: 77.25, height: 91))], animated: true))
        invalidations.append(try view.resize(to: Size(width: 500, height: 700), animated: true))
        invalidations.append(try view.scrollEnd(proposed: Point(x: 0, y: 900), velocity: Point(x: 0, y: 300)))
        let listMode: [String: ParameterValue] = ["mode": .string("list")]
        invalidations.append(try view.switchStrategy(to: "display", parameters: listMode, animated: true))
        var checked = 0
        for invalidation in invalidations {
            let expected = JSONWriter.encode(WireMapping.invalidation(invalidation, view: "v \"1\""))
            let actual = WireMapping.encodedInvalidation(invalidation, view: "v \"1\"")
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            checked += invalidation.entered.count + invalidation.changed.count + (invalidation.transition?.segments.count ?? 0)
        }
        #expect(checked > 40, "the comparison covered elements and transition segments")
    }

    @Test("attributes with transforms and effects take the general path for those fields")
    func attributes() {
        let plain = WireAttributes(id: "a", kind: "cell", section: 1, item: nil, frame: Rect(x: 0.5, y: -2, width: 1e-3, height: 123_456_789))
        var transformed = plain
        transformed.transform = Transform2D(a: 1.5, b: 0, c: 0, d: 1.5, tx: 3, ty: -4)
        transformed.effects = ["parallax": 0.25, "coverAlpha": 0.5]
        for attributes in [plain, transformed] {
            var writer = JSONWriter()
            writer.write(attributes)
            #expect(writer.bytes == JSONWriter.encode(attributes.json))
        }
    }
}
