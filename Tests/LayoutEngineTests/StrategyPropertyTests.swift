import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Properties of collapsible, ultravisual and display on seeded random models. A failure
/// names the seed.
@Suite("strategy properties")
struct StrategyPropertyTests {
    static let seeds = (0..<UInt64(300)).map { 0x5EED_0000 + $0 }

    // MARK: collapsible

    @Test("collapsible: stacked items share their run leader's frame, other frames never overlap", arguments: seeds)
    func collapsibleStacks(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let layout = try Self.randomCollapsible(&random, collapsed: true)
        let all = allElements(of: layout)
        for section in layout.model.sections {
            var leader: LayoutAttributes?
            var cells = [LayoutAttributes]()
            for (index, id) in section.itemIDs.enumerated() {
                let cell = try #require(all[ElementKey(kind: .cell, id: id)])
                let previousSelected = index > 0 && layout.model.isSelected(section.itemIDs[index - 1])
                if layout.model.isSelected(id) && previousSelected, let leader {
                    #expect(cell.frame == leader.frame, "seed \(seed): \(id) is not on its leader \(leader.id)")
                    #expect(cell.zIndex > leader.zIndex, "seed \(seed): later cards sit on top")
                } else {
                    leader = cell
                    cells.append(cell)
                }
            }
            for i in cells.indices {
                for j in cells.indices where j > i {
                    #expect(!cells[i].frame.intersects(cells[j].frame), "seed \(seed): \(cells[i]) overlaps \(cells[j])")
                }
            }
        }
        let content = Rect(origin: .zero, size: layout.contentSize)
        for attributes in all.values {
            #expect(content.contains(attributes.frame, tolerance: 1e-9), "seed \(seed): \(attributes) outside content")
        }
    }

    @Test("collapsible: incremental selection changes equal a layout prepared from scratch", arguments: seeds)
    func collapsibleIncremental(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let layout = try Self.randomCollapsible(&random, collapsed: Bool.random(using: &random))
        let ids = layout.model.sections.flatMap(\.itemIDs)
        guard !ids.isEmpty else { return }
        for _ in 0..<25 {
            let chosen = (0..<Int.random(in: 1...4, using: &random)).map { _ in ids.randomElement(using: &random)! }
            let mode = SelectionMode.allCases.randomElement(using: &random)!
            try layout.select(chosen, mode: mode)
            let fresh = try Layout(
                strategy: StrategyRegistry.builtIn.makeStrategy(named: "collapsible", parameters: layout.strategy.parameters.values),
                model: layout.model, viewport: layout.viewport)
            #expect(layout.contentSize == fresh.contentSize, "seed \(seed)")
            let mine = allElements(of: layout)
            #expect(mine == allElements(of: fresh), "seed \(seed): incremental differs after \(mode) \(chosen)")
            let rect = Self.randomRect(&random, in: layout.contentSize)
            #expect(
                Set(layout.elements(in: rect).map(\.key)) == Set(bruteForce(mine, in: rect).keys),
                "seed \(seed): query \(rect)")
        }
    }

    @Test("collapsible: queries equal a brute-force filter", arguments: seeds)
    func collapsibleQueries(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed ^ 0xC0)
        let layout = try Self.randomCollapsible(&random, collapsed: Bool.random(using: &random))
        try Self.checkQueries(layout, seed: seed, random: &random)
    }

    // MARK: ultravisual

    @Test("ultravisual: frames are a pure function of the offset, whatever the order of ticks", arguments: seeds)
    func ultravisualPure(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 0...40, using: &random)
        let parameters: [String: ParameterValue] = [
            "standardHeight": .number(Double(Int.random(in: 20...150, using: &random))),
            "featuredHeight": .number(Double(Int.random(in: 160...400, using: &random))),
        ]
        let model = try CollectionModel(sections: [
            SectionSpec(id: "a", items: (0..<count / 2).map { ItemSpec(id: "a\($0)") }),
            SectionSpec(id: "b", items: (0..<(count - count / 2)).map { ItemSpec(id: "b\($0)") }),
        ])
        let viewport = Viewport(size: Size(width: 375, height: Double(Int.random(in: 300...900, using: &random))))
        let strategy = { try StrategyRegistry.builtIn.makeStrategy(named: "ultravisual", parameters: parameters) }
        let ticking = try Layout(strategy: strategy(), model: model, viewport: viewport)
        let extent = ticking.contentSize.height
        var offsets = (0..<30).map { _ in Double.random(in: -200...(extent + 200), using: &random).rounded() }
        offsets.append(offsets[Int.random(in: 0..<offsets.count, using: &random)])
        for offset in offsets {
            var moved = viewport
            moved.offset = Point(x: 0, y: offset)
            try ticking.setViewport(moved)
            let fresh = try Layout(strategy: strategy(), model: model, viewport: moved)
            #expect(allElements(of: ticking) == allElements(of: fresh), "seed \(seed) offset \(offset)")
            try Self.checkQueries(ticking, seed: seed, random: &random)
        }
    }

    @Test("ultravisual: only the featured and next items differ from standard height", arguments: seeds.prefix(100))
    func ultravisualShape(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let count = Int.random(in: 2...30, using: &random)
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<count).map { ItemSpec(id: "\($0)") })])
        let offset = Double.random(in: 0...Double(count - 1) * 180, using: &random).rounded()
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "ultravisual"), model: model,
            viewport: Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: offset)))
        let featured = Int((offset / 180).rounded(.towardZero))
        for index in 0..<count {
            let frame = try #require(layout.attributes(forItem: "\(index)")).frame
            switch index {
            case featured: #expect(frame.height == 280, "seed \(seed)")
            case featured + 1: #expect(frame.height >= 100 && frame.height <= 280, "seed \(seed)")
            default: #expect(frame.height == 100, "seed \(seed)")
            }
        }
        let target = layout.targetContentOffset(proposed: Point(x: 0, y: offset), velocity: .zero)
        #expect(target.y.truncatingRemainder(dividingBy: 180) == 0 && target.y >= 0 && target.y <= Double(count - 1) * 180)
    }

    // MARK: display

    @Test("display: queries equal a brute-force filter in every mode", arguments: seeds)
    func displayQueries(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let layout = try Self.randomDisplay(&random)
        try Self.checkQueries(layout, seed: seed, random: &random)
        let content = Rect(origin: .zero, size: layout.contentSize)
        for attributes in allElements(of: layout).values {
            #expect(content.contains(attributes.frame, tolerance: 1e-9), "seed \(seed): \(attributes) outside content")
        }
    }

    @Test("display: a mode switch keeps the anchor where it was on screen unless clamped", arguments: seeds)
    func displayAnchoring(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let layout = try Self.randomDisplay(&random)
        guard let anchor = layout.firstVisibleItem else { return }
        let oldAxis = layout.strategy.scrollAxis
        let before = oldAxis.mainRange(of: anchor.frame).min - oldAxis.main(of: layout.viewport.offset)
        let mode = DisplayLayout.Mode.allCases.randomElement(using: &random)!
        let switched = try layout.reconfigure(["mode": .string(mode.rawValue)])
        #expect(switched.anchor == anchor.id)
        let newAxis = layout.strategy.scrollAxis
        let moved = try #require(layout.attributes(forItem: anchor.id))
        let after = newAxis.mainRange(of: moved.frame).min - newAxis.main(of: layout.viewport.offset)
        let highest = max(0, newAxis.main(of: layout.contentSize) - newAxis.main(of: layout.viewport.size))
        let main = newAxis.main(of: layout.viewport.offset)
        #expect(main >= 0 && main <= highest + 1e-9, "seed \(seed): offset \(main) outside 0...\(highest)")
        if main > 0 && main < highest {
            #expect(abs(after - before) < 1e-6, "seed \(seed): anchor moved on screen from \(before) to \(after)")
        }
        for segment in switched.transition.segments {
            #expect(layout.attributes(for: segment.key) == segment.to, "seed \(seed): \(segment.key) does not end where it lives")
        }
    }

    // MARK: Helpers

    static func randomCollapsible(_ random: inout SeededGenerator, collapsed: Bool) throws -> Layout {
        var specs = [SectionSpec]()
        var ids = [String]()
        for section in 0..<Int.random(in: 1...5, using: &random) {
            let count = [0, 1, 4, 9, 25, 60].randomElement(using: &random)!
            let items = (0..<count).map { ItemSpec(id: "s\(section)i\($0)") }
            ids += items.map(\.id)
            specs.append(SectionSpec(id: "s\(section)", items: items))
        }
        let parameters: [String: ParameterValue] = [
            "itemSize": .size(Size(width: Double(Int.random(in: 10...120, using: &random)), height: Double(Int.random(in: 10...120, using: &random)))),
            "itemSpacing": .number(Double(Int.random(in: 0...12, using: &random))),
            "rowSpacing": .number(Double(Int.random(in: 0...12, using: &random))),
            "sectionSpacing": .number(Double(Int.random(in: 0...30, using: &random))),
            "collapsed": .bool(collapsed),
        ]
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "collapsible", parameters: parameters),
            model: CollectionModel(sections: specs),
            viewport: Viewport(size: Size(width: Double(Int.random(in: 100...600, using: &random)), height: 500)))
        try layout.select(ids.filter { _ in Int.random(in: 0..<100, using: &random) < 45 }, mode: .set)
        return layout
    }

    static func randomDisplay(_ random: inout SeededGenerator) throws -> Layout {
        var specs = [SectionSpec]()
        for section in 0..<Int.random(in: 1...4, using: &random) {
            let count = [0, 1, 3, 8, 31].randomElement(using: &random)!
            specs.append(SectionSpec(id: "s\(section)", items: (0..<count).map { ItemSpec(id: "s\(section)i\($0)") }))
        }
        let mode = DisplayLayout.Mode.allCases.randomElement(using: &random)!
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(
                named: "display",
                parameters: [
                    "mode": .string(mode.rawValue), "columns": .integer(Int.random(in: 1...5, using: &random)),
                    "rowHeight": .number(Double(Int.random(in: 20...200, using: &random))),
                ]),
            model: CollectionModel(sections: specs),
            viewport: Viewport(size: Size(width: Double(Int.random(in: 200...800, using: &random)), height: Double(Int.random(in: 200...900, using: &random)))))
        let axis = layout.strategy.scrollAxis
        let extent = axis.main(of: layout.contentSize)
        let main = Double.random(in: 0...max(1, extent), using: &random).rounded()
        var viewport = layout.viewport
        viewport.offset = axis == .vertical ? Point(x: 0, y: main) : Point(x: main, y: 0)
        try layout.setViewport(viewport)
        return layout
    }

    static func randomRect(_ random: inout SeededGenerator, in content: Size) -> Rect {
        Rect(
            x: Double.random(in: -50...(content.width + 50), using: &random).rounded(),
            y: Double.random(in: -50...(content.height + 50), using: &random).rounded(),
            width: Double.random(in: 0...500, using: &random).rounded(),
            height: Double.random(in: 0...500, using: &random).rounded())
    }

    static func checkQueries(_ layout: Layout, seed: UInt64, random: inout SeededGenerator) throws {
        let all = allElements(of: layout)
        var rects = [everywhere(layout.contentSize), layout.viewport.bounds]
        for _ in 0..<8 { rects.append(randomRect(&random, in: layout.contentSize)) }
        for rect in rects {
            let queried = layout.elements(in: rect)
            #expect(Set(queried.map(\.key)).count == queried.count, "seed \(seed): duplicates in \(rect)")
            let expected = bruteForce(all, in: rect)
            #expect(Set(queried.map(\.key)) == Set(expected.keys), "seed \(seed): query \(rect)")
            for attributes in queried {
                #expect(expected[attributes.key] == attributes, "seed \(seed): \(attributes.key) differs between paths")
            }
        }
    }
}
