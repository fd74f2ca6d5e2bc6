import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

/// A compositional description that says what a flow layout in fixed-spacing mode does must give
/// flow's frames: rows of estimated items in a `fractionalWidth(1)` group, packed greedily with
/// a fixed gap, top-aligned, stacked with a fixed line gap, inside the section's insets. Two
/// spellings of the gaps, both as iOS code writes them: the group's `interItemSpacing` and the
/// section's `interGroupSpacing`, or each item's `edgeSpacing` (the fixed-spacing seed's way:
/// fixed(a) leading and trailing, fixed(b) top and bottom, which is flow with gaps 2a and 2b and
/// insets a and b). Random sections, sizes (measured or left at the estimate) and widths; then a
/// few measurements, the incremental path, checked again.
@Suite("compositional equals flow where they describe the same layout")
struct CompositionalEquivalenceTests {
    static let seeds = (0..<UInt64(150)).map { 0xC0_0E00 + $0 }

    enum Spelling: CaseIterable, CustomStringConvertible {
        case groupSpacing, edgeSpacing
        var description: String { self == .groupSpacing ? "interItemSpacing + interGroupSpacing" : "item edgeSpacing" }
    }

    struct Case: CustomStringConvertible {
        var width: Double
        var estimate: Size
        /// Gaps between items in a row and between rows; the section's insets.
        var itemGap: Double
        var lineGap: Double
        var insets: EdgeInsets
        var sections: [SectionSpec]

        init(seed: UInt64, spelling: Spelling) {
            var random = SeededGenerator(seed: seed)
            func half(_ range: ClosedRange<Double>) -> Double { (Double.random(in: range, using: &random) * 2).rounded() / 2 }
            width = half(200...900)
            estimate = Size(width: half(10...80), height: half(10...60))
            switch spelling {
            case .groupSpacing:
                itemGap = half(0...20)
                lineGap = half(0...20)
                insets = EdgeInsets(top: half(0...30), left: half(0...30), bottom: half(0...30), right: half(0...30))
            case .edgeSpacing:
                // Edge spacing a, b: gaps 2a and 2b, and a, b around (left and right alike).
                let a = half(0...10)
                let b = half(0...10)
                itemGap = 2 * a
                lineGap = 2 * b
                insets = EdgeInsets(top: b, left: a, bottom: b, right: a)
            }
            let room = width - insets.left - insets.right
            var sections = [SectionSpec]()
            for section in 0..<Int.random(in: 1...4, using: &random) {
                let items = (0..<Int.random(in: 1...60, using: &random)).map { index in
                    // Some items keep the estimate; the rest have sizes of their own, never wider
                    // than a row (where the two layouts' rules for an oversized item differ).
                    let measured = Bool.random(using: &random)
                    let size = Size(width: min(room, half(4...200)), height: half(4...90))
                    return ItemSpec(id: "s\(section)-\(index)", size: measured ? size : nil)
                }
                sections.append(SectionSpec(id: "s\(section)", items: items))
            }
            self.sections = sections
        }

        var description: String {
            "width \(width), estimate \(estimate), gaps \(itemGap)/\(lineGap), insets \(insets), items \(sections.map(\.items.count))"
        }

        var flowParameters: [String: ParameterValue] {
            [
                "spacingMode": .string("fixed"), "itemAlignment": .string("start"), "lineAlignment": .string("leading"),
                "minimumInteritemSpacing": .number(itemGap), "minimumLineSpacing": .number(lineGap),
                "sectionInset": .insets(insets), "estimatedItemSize": .size(estimate),
            ]
        }

        func compositionalParameters(_ spelling: Spelling) -> [String: ParameterValue] {
            func number(_ value: Double) -> ParameterTree { .number(value) }
            func dimension(_ kind: String, _ value: Double) -> ParameterTree { .object([kind: number(value)]) }
            var item: [String: ParameterTree] = [
                "size": .object(["width": dimension("estimated", estimate.width), "height": dimension("estimated", estimate.height)])
            ]
            var group: [String: ParameterTree] = [
                "direction": .string("horizontal"),
                "size": .object(["width": dimension("fractionalWidth", 1), "height": dimension("estimated", estimate.height)]),
            ]
            var section: [String: ParameterTree] = [:]
            switch spelling {
            case .groupSpacing:
                group["interItemSpacing"] = .object(["fixed": number(itemGap)])
                section["interGroupSpacing"] = number(lineGap)
                section["contentInsets"] = .object([
                    "top": number(insets.top), "leading": number(insets.left), "bottom": number(insets.bottom), "trailing": number(insets.right),
                ])
            case .edgeSpacing:
                let (a, b) = (itemGap / 2, lineGap / 2)
                item["edgeSpacing"] = .object([
                    "leading": .object(["fixed": number(a)]), "top": .object(["fixed": number(b)]),
                    "trailing": .object(["fixed": number(a)]), "bottom": .object(["fixed": number(b)]),
                ])
            }
            group["subitems"] = .array([.object(item)])
            section["group"] = .object(group)
            return ["section": .tree(.object(section))]
        }
    }

    @Test("the same frames, before and after measurements", arguments: Spelling.allCases, seeds)
    func sameFrames(spelling: Spelling, seed: UInt64) throws {
        let example = Case(seed: seed, spelling: spelling)
        let viewport = Viewport(size: Size(width: example.width, height: 700))
        let model = try CollectionModel(sections: example.sections)
        let registry = StrategyRegistry.builtIn
        let flow = try Layout(strategy: registry.makeStrategy(named: "flow", parameters: example.flowParameters), model: model, viewport: viewport)
        let compositional = try Layout(
            strategy: registry.makeStrategy(named: "compositional", parameters: example.compositionalParameters(spelling)),
            model: model, viewport: viewport)
        try expectSame(flow, compositional, "seed \(seed), \(spelling): \(example)")

        var random = SeededGenerator(seed: seed ^ 0x5EED)
        let ids = example.sections.flatMap { $0.items.map(\.id) }
        for round in 0..<3 {
            let measured = (0..<Int.random(in: 1...8, using: &random)).map { _ in
                (id: ids.randomElement(using: &random)!,
                 size: Size(width: min(example.width - example.insets.left - example.insets.right, Double(Int.random(in: 4...200, using: &random))),
                            height: Double(Int.random(in: 4...90, using: &random))))
            }
            _ = try flow.applyMeasurements(measured)
            _ = try compositional.applyMeasurements(measured)
            try expectSame(flow, compositional, "seed \(seed), \(spelling), after measurement round \(round) \(measured): \(example)")
        }
    }

    private func expectSame(_ flow: Layout, _ compositional: Layout, _ context: String) throws {
        #expect(abs(flow.contentSize.height - compositional.contentSize.height) < 1e-9,
                "\(context)\ncontent height: flow \(flow.contentSize.height), compositional \(compositional.contentSize.height)")
        let expected = cells(flow)
        let actual = cells(compositional)
        #expect(Set(expected.keys) == Set(actual.keys), "\(context)\ncells differ")
        var mismatches = [String]()
        for (id, frame) in expected.sorted(by: { $0.key < $1.key }) {
            guard let other = actual[id] else { continue }
            let close = abs(frame.minX - other.minX) < 1e-9 && abs(frame.minY - other.minY) < 1e-9
                && abs(frame.width - other.width) < 1e-9 && abs(frame.height - other.height) < 1e-9
            if !close { mismatches.append("  \(id): flow \(frame), compositional \(other)") }
        }
        #expect(mismatches.count == 0, "\(context)\nexpected (flow) vs actual (compositional):\n\(mismatches.prefix(12).joined(separator: "\n"))")
    }

    private func cells(_ layout: Layout) -> [String: Rect] {
        var frames = [String: Rect]()
        for attributes in layout.elements(in: everywhere(layout.contentSize)) where attributes.kind == .cell {
            frames[attributes.id] = attributes.frame
        }
        return frames
    }
}
