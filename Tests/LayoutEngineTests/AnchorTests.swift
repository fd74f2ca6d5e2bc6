import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Anchor policies and `scrollTo` (`Layout+Anchors.swift`, `View.scrollTo`): what a change
/// keeps still on screen, checked after random changes above, inside and below the window.
@Suite("anchors and scrollTo")
struct AnchorTests {
    /// Which way the feed scrolls and reads. Positions are measured in reading coordinates
    /// (from the leading edge along the scroll axis: a right-to-left horizontal feed counts from
    /// its right end), so every property reads the same in all four.
    struct Orientation: CustomStringConvertible, Sendable {
        var axis: Axis
        var direction: LayoutDirection

        var description: String { "\(axis) \(direction)" }
        /// The feed's width across the scroll axis and its viewport's extent along it.
        static let across = 390.0, along = 600.0

        func size(_ main: Double) -> Size { axis == .vertical ? Size(width: Self.across, height: main) : Size(width: main, height: Self.across) }

        func main(_ size: Size) -> Double { axis == .vertical ? size.height : size.width }

        /// The viewport's leading edge, in reading coordinates.
        func offset(in view: View) -> Double {
            guard axis == .horizontal else { return view.viewport.offset.y }
            let x = view.viewport.offset.x
            return direction == .ltr ? x : view.layout.contentSize.width - view.viewport.size.width - x
        }

        /// The content offset whose leading edge is `main` in reading coordinates.
        func point(_ main: Double, in view: View) -> Point {
            guard axis == .horizontal else { return Point(x: view.viewport.offset.x, y: main) }
            return Point(x: direction == .ltr ? main : view.layout.contentSize.width - view.viewport.size.width - main, y: 0)
        }

        /// `edge` of a frame in reading coordinates (a right-to-left start is its right edge).
        func edge(_ edge: AnchorEdge, of frame: Rect, width: Double) -> Double {
            guard axis == .horizontal else {
                return switch edge { case .start: frame.minY; case .center: frame.midY; case .end: frame.maxY }
            }
            let (start, end) = direction == .ltr ? (frame.minX, frame.maxX) : (width - frame.maxX, width - frame.minX)
            return switch edge { case .start: start; case .center: (start + end) / 2; case .end: end }
        }
    }

    static let orientations = [
        Orientation(axis: .vertical, direction: .ltr), Orientation(axis: .horizontal, direction: .ltr),
        Orientation(axis: .vertical, direction: .rtl), Orientation(axis: .horizontal, direction: .rtl),
    ]

    /// One column (or row) of self-sizing cells (estimated 50 along the scroll axis), 200 of
    /// them, a viewport 600 along and 390 across, scrolled to `main`.
    func feed(rows: Int = 200, y main: Double = 3_000, anchor: AnchorPolicy = .firstVisible, _ orientation: Orientation = orientations[0]) throws -> View {
        let items = (0..<rows).map { ItemSpec(id: "r\($0)", estimatedSize: orientation.size(50)) }
        let view = try View(
            strategy: "flow",
            parameters: [
                "minimumLineSpacing": .number(0), "minimumInteritemSpacing": .number(0),
                "scrollDirection": .string(orientation.axis.rawValue),
            ],
            sections: [SectionSpec(id: "s", items: items)], viewport: Viewport(size: orientation.size(Orientation.along)),
            anchor: anchor, layoutDirection: orientation.direction)
        try view.scroll(to: orientation.point(main, in: view))
        return view
    }

    func edge(_ id: String, _ edge: AnchorEdge, in view: View, _ orientation: Orientation = orientations[0]) -> Double {
        let frame = view.layout.attributes(forItem: id)!.frame
        return orientation.edge(edge, of: frame, width: view.layout.contentSize.width) - orientation.offset(in: view)
    }

    /// Whether the offset lies strictly inside the range a scroll view can rest in, so clamping
    /// played no part.
    func unclamped(_ view: View, _ orientation: Orientation = orientations[0]) -> Bool {
        let farthest = max(0, orientation.main(view.layout.contentSize) - Orientation.along)
        let offset = orientation.offset(in: view)
        return offset > 1e-9 && offset < farthest - 1e-9
    }

    /// A random change: a measurement or a small batch above, inside or below the window.
    func randomChange(
        _ view: View, _ fuzzer: inout ViewFuzzer<SeededGenerator>, counter: inout Int, anchor: AnchorPolicy? = nil,
        _ orientation: Orientation = orientations[0]
    ) throws {
        let ids = view.model.sections[0].itemIDs
        let visible = view.snapshot().filter { $0.kind == .cell }.map(\.id)
        let first = ids.firstIndex(of: visible.first ?? ids[0]) ?? 0
        let last = ids.firstIndex(of: visible.last ?? ids[0]) ?? 0
        let place = fuzzer.int(0...2)
        let index = switch place {
        case 0: fuzzer.int(0...max(0, first - 1))
        case 1: fuzzer.int(first...max(first, last))
        default: fuzzer.int(min(last + 1, ids.count - 1)...ids.count - 1)
        }
        switch fuzzer.int(0...2) {
        case 0: try view.measure([(ids[index], orientation.size(fuzzer.half(40...400)))], anchor: anchor)
        case 1:
            counter += 1
            try view.performBatch([.insertItems([ItemSpec(id: "n\(counter)", size: orientation.size(fuzzer.half(20...200)))], section: "s", at: index)], anchor: anchor)
        default:
            // Never the anchor itself: a removed anchor only clamps.
            let id = ids[index]
            guard !visible.prefix(1).contains(id), !visible.suffix(1).contains(id), ids.count > 20 else { return }
            try view.performBatch([.deleteItems([id])], anchor: anchor)
        }
    }

    static let seeds = (0..<UInt64(10)).map { 0xA4C_0000 + $0 }
    /// Every seed vertical left to right, and four in each other orientation.
    static let cases = seeds.map { (0, $0) } + (1..<orientations.count).flatMap { index in seeds.prefix(4).map { (index, $0) } }

    @Test("firstVisible and lastVisible keep their cell's edge still, the view's policy or a request's", arguments: cases)
    func visibleEdgesStayStill(orientationIndex: Int, seed: UInt64) throws {
        let orientation = Self.orientations[orientationIndex]
        for (policy, asOverride) in [(AnchorPolicy.firstVisible, false), (.lastVisible, false), (.lastVisible, true)] {
            var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
            let view = try feed(anchor: asOverride ? .firstVisible : policy, orientation)
            var counter = 0
            for step in 0..<40 {
                let cell = policy == .firstVisible ? view.layout.firstVisibleItem! : view.layout.lastVisibleItem!
                let edgeKind: AnchorEdge = policy == .firstVisible ? .start : .end
                let before = edge(cell.id, edgeKind, in: view, orientation)
                try randomChange(view, &fuzzer, counter: &counter, anchor: asOverride ? policy : nil, orientation)
                guard unclamped(view, orientation), view.model.contains(item: cell.id) else { continue }
                #expect(abs(edge(cell.id, edgeKind, in: view, orientation) - before) < 1e-9, "\(orientation) seed \(seed) \(policy) step \(step): \(cell.id) moved on screen")
            }
        }
    }

    @Test("end keeps a view at the end as items are appended and grow; none keeps the offset", arguments: cases)
    func endAndNone(orientationIndex: Int, seed: UInt64) throws {
        let orientation = Self.orientations[orientationIndex]
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let chat = try feed(rows: 40, y: 0, anchor: .end, orientation)
        try chat.scroll(to: orientation.point(orientation.main(chat.layout.contentSize) - 600, in: chat))
        for step in 0..<30 {
            let count = chat.model.numberOfItems
            if fuzzer.chance(50) {
                try chat.performBatch([.insertItems([ItemSpec(id: "m\(step)", size: orientation.size(fuzzer.half(30...300)))], section: "s", at: count)])
            } else {
                try chat.measure([(chat.model.sections[0].itemIDs[count - 1 - fuzzer.int(0...3)], orientation.size(fuzzer.half(30...300)))])
            }
            #expect(abs(orientation.offset(in: chat) - (orientation.main(chat.layout.contentSize) - 600)) < 1e-9, "\(orientation) seed \(seed) step \(step): left the end")
        }
        let still = try feed(anchor: .none, orientation)
        var counter = 0
        for step in 0..<30 {
            let before = orientation.offset(in: still)
            try randomChange(still, &fuzzer, counter: &counter, orientation)
            guard unclamped(still, orientation) else { continue }
            #expect(abs(orientation.offset(in: still) - before) < 1e-9, "\(orientation) seed \(seed) step \(step): none moved the offset")
        }
    }

    @Test("an element anchor holds its edge at the offset asked for")
    func elementAnchor() throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: 3))
        let view = try feed()
        let key = ElementKey(kind: .cell, id: "r65")
        try view.setAnchor(.element(key, edge: .center, offset: 250))
        var counter = 0
        for step in 0..<30 {
            try randomChange(view, &fuzzer, counter: &counter)
            guard unclamped(view), view.model.contains(item: "r65") else { continue }
            #expect(edge("r65", .center, in: view) == 250, "step \(step)")
        }
        #expect(throws: LayoutError.itemNotFound("nope")) { try view.setAnchor(.element(ElementKey(kind: .cell, id: "nope"), edge: .start, offset: nil)) }
        #expect(throws: LayoutError.sectionNotFound("t")) { try view.measure([("r1", Size(width: 390, height: 99))], anchor: .element(ElementKey(kind: .header, id: "t"), edge: .start, offset: nil)) }
        #expect(throws: LayoutError.elementNotFound(kind: "header", id: "s")) { try view.setAnchor(.element(ElementKey(kind: .header, id: "s"), edge: .start, offset: nil)) }
    }

    static let alignments: [(ScrollAlignment, AnchorEdge)] = [(.start, .start), (.center, .center), (.end, .end)]

    @Test("after scrollTo the target sits where it was asked to, through 50 measurements around it", arguments: cases)
    func scrollToStaysExact(orientationIndex: Int, seed: UInt64) throws {
        let orientation = Self.orientations[orientationIndex]
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        for (align, edgeKind) in Self.alignments {
            let view = try feed(y: 0, orientation)
            let target = fuzzer.int(30...170)
            let offset = fuzzer.pick([0.0, 12, -8])
            let result = try view.scrollTo(ElementKey(kind: .cell, id: "r\(target)"), align: align, offset: offset)
            // The target's edge belongs at `distance` from the viewport's top.
            let distance = switch align {
            case .start: offset
            case .end: 600 - offset
            default: 300 + offset
            }
            let window = view.snapshot().filter { $0.kind == .cell }.sorted { $0.item! < $1.item! }.map(\.id)
            #expect(result.needsMeasure == window, "every row is an estimate, in reading order")
            #expect(result.anchor == "r\(target)" && result.anchorPolicy == "scrollTo")
            #expect(abs(edge("r\(target)", edgeKind, in: view, orientation) - distance) < 1e-9)
            for step in 0..<50 {
                let near = max(0, min(199, target + fuzzer.int(-12...12)))
                let changed = try view.measure([("r\(near)", orientation.size(fuzzer.half(20...300)))])
                guard unclamped(view, orientation) else { continue }
                #expect(abs(edge("r\(target)", edgeKind, in: view, orientation) - distance) < 1e-9, "\(orientation) seed \(seed) \(align) step \(step): r\(target) moved")
                if changed.epoch > 0 { #expect(changed.anchorPolicy == "scrollTo" || changed.changed.isEmpty) }
            }
            // Scrolling by itself ends it: the next change keeps the first visible row instead.
            try view.scroll(to: orientation.point(orientation.offset(in: view) + 10, in: view))
            let first = view.layout.firstVisibleItem!
            let before = edge(first.id, .start, in: view, orientation)
            let after = try view.measure([("r\(max(0, target - 20))", orientation.size(333))])
            #expect(after.anchorPolicy == nil)
            if unclamped(view, orientation) { #expect(abs(edge(first.id, .start, in: view, orientation) - before) < 1e-9) }
        }
    }

    @Test("scrollTo clamps at the ends, nearest scrolls the least, and unknown targets are refused")
    func scrollToFixtures() throws {
        let view = try feed(rows: 40, y: 0)
        // 40 rows of 50: content 2000, the farthest rest is 1400.
        try view.scrollTo(ElementKey(kind: .cell, id: "r39"), align: .start)
        #expect(view.viewport.offset.y == 1_400)
        try view.scrollTo(ElementKey(kind: .cell, id: "r0"), align: .end)
        #expect(view.viewport.offset.y == 0)
        try view.scrollTo(ElementKey(kind: .cell, id: "r20"), align: .nearest)
        #expect(view.viewport.offset.y == 1_050 - 600, "below: its bottom edge at the viewport's bottom")
        try view.scrollTo(ElementKey(kind: .cell, id: "r12"), align: .nearest)
        #expect(view.viewport.offset.y == 450, "already visible: no scroll")
        try view.scrollTo(ElementKey(kind: .cell, id: "r2"), align: .nearest)
        #expect(view.viewport.offset.y == 100, "above: its top edge at the viewport's top")
        #expect(throws: LayoutError.itemNotFound("zz")) { try view.scrollTo(ElementKey(kind: .cell, id: "zz"), align: .start) }
        #expect(throws: LayoutError.elementNotFound(kind: "footer", id: "s")) { try view.scrollTo(ElementKey(kind: .footer, id: "s"), align: .start) }
    }

    @Test("ultravisual: scrollTo and the target it keeps land exactly, though cells move with the offset", arguments: seeds.prefix(4))
    func ultravisualLandsExactly(seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let items = (0..<1_000).map { ItemSpec(id: "u\($0)") }
        let view = try View(strategy: "ultravisual", sections: [SectionSpec(id: "s", items: items)], viewport: Viewport(size: Size(width: 390, height: 844)))
        let farthest = view.layout.contentSize.height - 844
        for step in 0..<40 {
            let ids = view.model.sections[0].itemIDs
            let target = ids[fuzzer.int(0...ids.count - 1)]
            let (align, edgeKind) = fuzzer.pick(Self.alignments)
            let offset = fuzzer.pick([0.0, 37, -20])
            try view.scrollTo(ElementKey(kind: .cell, id: target), align: align, offset: offset)
            let distance = switch align {
            case .start: offset
            case .end: 844 - offset
            default: 422 + offset
            }
            let y = view.viewport.offset.y
            guard y > 0, y < farthest else { continue }
            #expect(abs(edge(target, edgeKind, in: view) - distance) < 1e-6, "seed \(seed) step \(step): \(target) \(align) \(offset)")
            // A change above keeps the target where it is on screen, exactly.
            try view.performBatch([.insertItems([ItemSpec(id: "n\(step)")], section: "s", at: 0)])
            if view.viewport.offset.y > 0, view.viewport.offset.y < view.layout.contentSize.height - 844 {
                #expect(abs(edge(target, edgeKind, in: view) - distance) < 1e-6, "seed \(seed) step \(step): \(target) moved after an insert")
            }
        }
    }

    @Test("needsMeasure names exactly the cells whose sizes are guesses, across chunks and sections", arguments: seeds.prefix(4))
    func estimatesAcrossChunks(seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        func items(_ section: Int, _ count: Int) -> [ItemSpec] {
            (0..<count).map { index in
                let id = "s\(section)-\(index)"
                return switch fuzzer.int(0...2) {
                case 0: ItemSpec(id: id, size: Size(width: 90, height: 40))
                case 1: ItemSpec(id: id, estimatedSize: Size(width: 90, height: 60))
                default: ItemSpec(id: id)
                }
            }
        }
        let sections = [SectionSpec(id: "a", items: items(0, 3_000)), SectionSpec(id: "b", items: []), SectionSpec(id: "c", items: items(2, 2_000))]
        let view = try View(
            strategy: "flow", parameters: ["estimatedItemSize": .size(Size(width: 90, height: 50))], sections: sections,
            viewport: Viewport(size: Size(width: 390, height: 844)))
        let ids = view.model.sections.flatMap(\.itemIDs)
        try view.measure((0..<200).map { _ in (fuzzer.pick(ids), Size(width: 90, height: fuzzer.half(20...90))) })
        let layout = view.layout
        for _ in 0..<20 {
            let rect = Rect(x: 0, y: fuzzer.half(0...Int(layout.contentSize.height) * 2), width: 390, height: fuzzer.half(100...3_000))
            let cells = layout.elements(in: rect).filter { $0.kind == .cell }.sorted { $0.indexPath! < $1.indexPath! }
            let expected = cells.filter { cell in
                switch view.model.sections[cell.section].sizeSource(ofItem: cell.item!) {
                case .estimated, .strategyDefault: true
                case .absolute, .measured: false
                }
            }.map(\.id)
            #expect(layout.estimatedItems(in: rect) == expected, "seed \(seed) \(rect)")
        }
    }
}
