import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Right to left (`MirroredStrategy`): every strategy's RTL layout is its LTR layout mirrored
/// across the content width, vertical and horizontal; the fixtures are the LTR ones mirrored.
@Suite("right to left")
struct RightToLeftTests {
    /// Strategy parameters that scroll each built-in strategy vertically and horizontally.
    static let configurations: [(String, [String: ParameterValue])] = [
        ("flow", [:]), ("flow", ["scrollDirection": .string("horizontal")]),
        ("collapsible", ["collapsed": .bool(true)]), ("ultravisual", [:]),
        ("display", ["mode": .string("grid")]), ("display", ["mode": .string("inline")]),
    ]

    static let cases = configurations.indices.flatMap { index in (0..<UInt64(6)).map { (index, 0x47_0000 + $0) } }

    func mirrored(_ attributes: LayoutAttributes, width: Double) -> LayoutAttributes {
        var copy = attributes
        copy.frame.origin.x = width - attributes.frame.maxX
        let t = attributes.transform
        if !t.isIdentity { copy.transform = Transform2D(a: t.a, b: -t.b, c: -t.c, d: t.d, tx: -t.tx, ty: t.ty) }
        return copy
    }

    @Test("the RTL layout is the LTR layout mirrored, element for element, through random changes", arguments: cases)
    func mirrorsLeftToRight(index: Int, seed: UInt64) throws {
        let (strategy, parameters) = Self.configurations[index]
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let sections = fuzzer.sections()
        let viewport = Viewport(size: Size(width: fuzzer.half(600...1200), height: fuzzer.half(600...1400)))
        let ltr = try View(strategy: strategy, parameters: parameters, sections: sections, viewport: viewport)
        let rtl = try View(strategy: strategy, parameters: parameters, sections: sections, viewport: viewport, layoutDirection: .rtl)
        for step in 0..<12 {
            let width = ltr.layout.contentSize.width
            #expect(rtl.layout.contentSize == ltr.layout.contentSize)
            let everything = Rect(x: -1e5, y: -1e5, width: width + 2e5, height: ltr.layout.contentSize.height + 2e5)
            let expected = ltr.layout.elements(in: everything).map { mirrored($0, width: width) }.sorted { $0.key < $1.key }
            let actual = rtl.layout.elements(in: everything).sorted { $0.key < $1.key }
            #expect(actual == expected, "seed \(seed) \(strategy) \(parameters) step \(step)")
            // The same change to both, the RTL one at the mirrored offset.
            let ids = ltr.model.sections.flatMap(\.itemIDs)
            guard let id = ids.isEmpty ? nil : fuzzer.pick(ids) else { break }
            switch fuzzer.int(0...2) {
            case 0:
                try ltr.select([id], mode: .toggle)
                try rtl.select([id], mode: .toggle)
            case 1:
                let size = Size(width: fuzzer.half(20...300), height: fuzzer.half(20...300))
                try ltr.measure([(id, size)])
                try rtl.measure([(id, size)])
            default:
                try ltr.performBatch([.deleteItems([id])])
                try rtl.performBatch([.deleteItems([id])])
            }
        }
    }

    @Test("a horizontal RTL view starts at its right end, where its first items are, and hit tests and moves mirrored")
    func horizontalStartsAtTheRight() throws {
        let items = (0..<20).map { ItemSpec(id: "i\($0)", size: Size(width: 100, height: 100)) }
        let parameters: [String: ParameterValue] = [
            "scrollDirection": .string("horizontal"), "spacingMode": .string("fixed"), "minimumInteritemSpacing": .number(10),
            "minimumLineSpacing": .number(10), "itemAlignment": .string("start"),
        ]
        let view = try View(
            strategy: "flow", parameters: parameters, sections: [SectionSpec(id: "s", items: items)],
            viewport: Viewport(size: Size(width: 320, height: 100)), layoutDirection: .rtl)
        // One row of 20 cells 110 apart: 2190 wide; i0 at the right end.
        let width = view.layout.contentSize.width
        #expect(view.viewport.offset.x == width - 320)
        #expect(view.layout.attributes(forItem: "i0")?.frame.maxX == width)
        #expect(view.layout.firstVisibleItem?.id == "i0")
        #expect(view.layout.hitTest(Point(x: width - 50, y: 50))?.id == "i0")
        #expect(try view.layout.neighbor(of: "i1", direction: .left)?.id == "i2", "left reads forward in RTL")
        #expect(try view.layout.neighbor(of: "i1", direction: .right)?.id == "i0")
        // Switching back keeps the first visible item where it is.
        let switched = try view.setLayoutDirection(.ltr)
        #expect(switched.anchor == "i0" && view.viewport.offset.x == 0)
    }
}
