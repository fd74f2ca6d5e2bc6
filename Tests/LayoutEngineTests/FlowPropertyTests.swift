import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Properties that must hold for any flow layout, checked on seeded random models. A failure
/// names the seed; `FlowCase(seed:)` rebuilds that exact case.
@Suite("flow properties")
struct FlowPropertyTests {
    static let caseCount = 600
    static let seeds = (0..<UInt64(caseCount)).map { 0x1A70_0000 + $0 }

    @Test("elements(in:) equals a brute-force filter of every frame", arguments: seeds)
    func queriesMatchBruteForce(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed ^ 0xFEED)
        let flow = try FlowCase(seed: seed)
        let all = allElements(of: flow.layout)
        let content = flow.layout.contentSize
        var rects = [everywhere(content), flow.viewport.bounds]
        for _ in 0..<12 {
            let x = Double.random(in: -50...(content.width + 50), using: &random).rounded()
            let y = Double.random(in: -50...(content.height + 50), using: &random).rounded()
            let width = Double.random(in: 0...400, using: &random).rounded()
            let height = Double.random(in: 0...400, using: &random).rounded()
            rects.append(Rect(x: x, y: y, width: width, height: height))
        }
        for rect in rects {
            let queried = flow.layout.elements(in: rect)
            let keys = queried.map(\.key)
            #expect(Set(keys).count == keys.count, "seed \(seed): duplicates in \(rect)")
            let expected = bruteForce(all, in: rect)
            #expect(Set(keys) == Set(expected.keys), "seed \(seed): query \(rect)\n\(flow)")
            for attributes in queried {
                #expect(expected[attributes.key] == attributes, "seed \(seed): \(attributes.key) differs between paths")
            }
        }
    }

    @Test("cells of a section never overlap, and headers and footers never cover cells", arguments: seeds)
    func framesDoNotOverlap(seed: UInt64) throws {
        let flow = try FlowCase(seed: seed)
        let all = allElements(of: flow.layout)
        for (sectionIndex, section) in flow.layout.model.sections.enumerated() {
            let cells = section.itemIDs.compactMap { all[ElementKey(kind: .cell, id: $0)] }
            #expect(cells.count == section.count, "seed \(seed): missing cells")
            for i in cells.indices {
                for j in cells.indices where j > i {
                    #expect(
                        !cells[i].frame.intersects(cells[j].frame),
                        "seed \(seed): section \(sectionIndex) \(cells[i]) overlaps \(cells[j])\n\(flow)")
                }
            }
            let pinned = flow.parameters["sectionHeadersPinToVisibleBounds"] == .bool(true)
            for kind in [ElementKind.header, .footer] where !(kind == .header && pinned) {
                guard let supplementary = all[ElementKey(kind: kind, id: section.id)] else { continue }
                for cell in cells {
                    #expect(!supplementary.frame.intersects(cell.frame), "seed \(seed): \(supplementary) covers \(cell)")
                }
            }
        }
    }

    @Test("every frame lies inside the content size", arguments: seeds)
    func framesInsideContent(seed: UInt64) throws {
        let flow = try FlowCase(seed: seed)
        let content = Rect(origin: .zero, size: flow.layout.contentSize)
        for attributes in allElements(of: flow.layout).values {
            #expect(content.contains(attributes.frame, tolerance: 1e-9), "seed \(seed): \(attributes) outside \(content)")
        }
    }

    @Test("the other scroll direction gives exactly the transposed frames", arguments: seeds)
    func transposition(seed: UInt64) throws {
        let flow = try FlowCase(seed: seed)
        let other = try flow.transposed()
        #expect(other.layout.contentSize.isClose(to: flow.layout.contentSize.transposed, tolerance: 1e-9))
        let mine = allElements(of: flow.layout)
        let theirs = allElements(of: other.layout)
        #expect(Set(mine.keys) == Set(theirs.keys), "seed \(seed)")
        for (key, attributes) in mine {
            guard let transposed = theirs[key] else { continue }
            #expect(
                attributes.frame.transposed.isClose(to: transposed.frame, tolerance: 1e-9),
                "seed \(seed): \(key) \(attributes.frame) vs transposed \(transposed.frame)")
        }
    }

    @Test("a scroll moves only pinned headers, and queries stay exact after it", arguments: seeds.prefix(200))
    func scrolling(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed ^ 0x5C011)
        let flow = try FlowCase(seed: seed)
        let before = allElements(of: flow.layout)
        let axis = flow.axis
        let extent = axis.main(of: flow.layout.contentSize)
        let main = Double.random(in: -100...(extent + 100), using: &random).rounded()
        var moved = flow.viewport
        moved.offset = axis == .vertical ? Point(x: 0, y: main) : Point(x: main, y: 0)
        let invalidation = try flow.layout.setViewport(moved)
        let after = allElements(of: flow.layout)
        let pinned = flow.parameters["sectionHeadersPinToVisibleBounds"] == .bool(true)
        for (key, attributes) in after where !(pinned && key.kind == .header) {
            #expect(before[key] == attributes, "seed \(seed): \(key) moved on scroll")
        }
        if !pinned || main == axis.main(of: flow.viewport.offset) {
            #expect(invalidation == .none, "seed \(seed)")
        } else {
            #expect(invalidation == .offsetDependent, "seed \(seed)")
        }
        let expected = bruteForce(after, in: moved.bounds)
        #expect(Set(flow.layout.elements(in: moved.bounds).map(\.key)) == Set(expected.keys), "seed \(seed)")
    }
}

/// A random flow layout: parameters, model, selection, measurements and viewport, all drawn
/// from one seed. Sizes are multiples of 0.5 so sums are exact in binary floating point.
struct FlowCase: CustomStringConvertible {
    var seed: UInt64
    var parameters: [String: ParameterValue]
    var specs: [SectionSpec]
    var selected: [String]
    var measurements: [(id: String, size: Size)]
    var viewport: Viewport
    var layout: Layout

    var axis: Axis { parameters["scrollDirection"] == .string("horizontal") ? .horizontal : .vertical }

    init(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        func half(_ range: ClosedRange<Int>) -> Double { Double(Int.random(in: range, using: &random)) / 2 }
        func pick<T>(_ options: [T]) -> T { options[Int.random(in: 0..<options.count, using: &random)] }
        func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        func size(maximum: Int) -> Size { Size(width: half(0...maximum * 2), height: half(0...maximum * 2)) }

        let viewportSize = Size(width: half(240...1000), height: half(300...1400))
        var parameters: [String: ParameterValue] = [
            "itemSize": .size(Size(width: half(20...300), height: half(20...300))),
            "minimumInteritemSpacing": .number(pick([0, 4, 10, 12.5])),
            "minimumLineSpacing": .number(pick([0, 8, 10, 20.5])),
            "scrollDirection": .string(pick(["vertical", "horizontal"])),
            "sectionHeadersPinToVisibleBounds": .bool(chance(30)),
            "lastLineAlignment": .string(pick(FlowLayout.LastLineAlignment.allCases.map(\.rawValue))),
            "spacingMode": .string(pick(FlowLayout.SpacingMode.allCases.map(\.rawValue))),
            "lineAlignment": .string(pick(FlowLayout.LineAlignment.allCases.map(\.rawValue))),
            "itemAlignment": .string(pick(FlowLayout.ItemAlignment.allCases.map(\.rawValue))),
        ]
        if chance(50) {
            parameters["sectionInset"] = .insets(EdgeInsets(top: half(0...40), left: half(0...40), bottom: half(0...40), right: half(0...40)))
        }
        if chance(50) { parameters["headerReferenceSize"] = .size(size(maximum: 60)) }
        if chance(30) { parameters["footerReferenceSize"] = .size(size(maximum: 40)) }
        if chance(20) { parameters["estimatedItemSize"] = .size(Size(width: half(20...200), height: half(20...200))) }

        var specs = [SectionSpec]()
        var allIDs = [String]()
        for sectionIndex in 0..<Int.random(in: 1...5, using: &random) {
            let count = pick([0, 1, 2, 3, 7, 12, 30])
            let style = Int.random(in: 0..<4, using: &random)
            let shared = size(maximum: 200)
            var items = [ItemSpec]()
            for itemIndex in 0..<count {
                let id = "s\(sectionIndex)i\(itemIndex)"
                var item = ItemSpec(id: id)
                switch style {
                case 0: break  // uniform: strategy default
                case 1: item.size = shared  // equal explicit sizes
                case 2: item.size = chance(5) ? Size(width: half(800...2400), height: half(10...200)) : size(maximum: 250)
                default: if chance(50) { item.estimatedSize = size(maximum: 200) }
                }
                if chance(15) { item.selectedSize = size(maximum: 300) }
                items.append(item)
                allIDs.append(id)
            }
            var section = SectionSpec(id: "s\(sectionIndex)", items: items)
            if chance(20) { section.headerSize = size(maximum: 80) }
            if chance(10) { section.footerSize = size(maximum: 80) }
            specs.append(section)
        }
        let selected = allIDs.filter { _ in chance(30) }
        let measurements = allIDs.filter { _ in chance(15) }.map { ($0, size(maximum: 220)) }
        let viewport = Viewport(
            size: viewportSize, offset: Point(x: 0, y: 0),
            contentInsets: chance(30) ? EdgeInsets(top: half(0...100), left: 0, bottom: 0, right: 0) : .zero)
        try self.init(
            seed: seed, parameters: parameters, specs: specs, selected: selected, measurements: measurements,
            viewport: viewport, offsetFraction: Double.random(in: -0.1...1.1, using: &random))
    }

    private init(
        seed: UInt64, parameters: [String: ParameterValue], specs: [SectionSpec], selected: [String],
        measurements: [(id: String, size: Size)], viewport: Viewport, offsetFraction: Double
    ) throws {
        self.seed = seed
        self.parameters = parameters
        self.specs = specs
        self.selected = selected
        self.measurements = measurements
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: parameters),
            model: CollectionModel(sections: specs), viewport: viewport)
        try layout.select(selected, mode: .set)
        try layout.applyMeasurements(measurements)
        // Scroll somewhere in (or a little past) the content, so pinned headers are exercised.
        let axis: Axis = parameters["scrollDirection"] == .string("horizontal") ? .horizontal : .vertical
        let main = (axis.main(of: layout.contentSize) * offsetFraction).rounded()
        var scrolled = viewport
        scrolled.offset = axis == .vertical ? Point(x: 0, y: main) : Point(x: main, y: 0)
        try layout.setViewport(scrolled)
        self.viewport = scrolled
        self.layout = layout
    }

    /// The same case in the other scroll direction.
    func transposed() throws -> FlowCase {
        var parameters = self.parameters.mapValues { value -> ParameterValue in
            switch value {
            case .size(let size): .size(size.transposed)
            case .insets(let insets): .insets(insets.transposed)
            default: value
            }
        }
        parameters["scrollDirection"] = .string(axis == .vertical ? "horizontal" : "vertical")
        let specs = self.specs.map { section in
            SectionSpec(
                id: section.id,
                items: section.items.map {
                    ItemSpec(
                        id: $0.id, size: $0.size?.transposed, estimatedSize: $0.estimatedSize?.transposed,
                        selectedSize: $0.selectedSize?.transposed)
                },
                headerSize: section.headerSize?.transposed, footerSize: section.footerSize?.transposed)
        }
        var other = try FlowCase(
            seed: seed, parameters: parameters, specs: specs, selected: selected,
            measurements: measurements.map { ($0.id, $0.size.transposed) },
            viewport: Viewport(size: viewport.size.transposed, contentInsets: viewport.contentInsets.transposed),
            offsetFraction: 0)
        let scrolled = Viewport(
            size: viewport.size.transposed, offset: viewport.offset.transposed,
            contentInsets: viewport.contentInsets.transposed)
        try other.layout.setViewport(scrolled)
        other.viewport = scrolled
        return other
    }

    var description: String {
        """
        FlowCase(seed: \(seed))
          params \(parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
          viewport \(viewport.size) offset \(viewport.offset) insets \(viewport.contentInsets)
          sections \(specs.map { "\($0.id)[\($0.items.count)]" }.joined(separator: " ")) selected \(selected.count) measured \(measurements.count)
        """
    }
}
