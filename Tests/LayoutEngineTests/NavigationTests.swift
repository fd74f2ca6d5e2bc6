import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Hit testing and keyboard neighbours (`Layout+Navigation.swift`): fixtures of known answers,
/// and properties against brute force over every element.
@Suite("hit testing and neighbours")
struct NavigationTests {
    // MARK: Fixtures

    /// Three columns of 100 × 100 cells with 10 pt gaps (a fixed-spacing flow), 320 wide.
    func grid(_ count: Int, strategy: String = "flow") throws -> View {
        let items = (0..<count).map { ItemSpec(id: "i\($0)", size: Size(width: 100, height: 100)) }
        let parameters: [String: ParameterValue] = strategy == "flow"
            ? ["spacingMode": .string("fixed"), "minimumInteritemSpacing": .number(10), "minimumLineSpacing": .number(10), "itemAlignment": .string("start")]
            : ["itemSize": .size(Size(width: 100, height: 100)), "itemSpacing": .number(10), "rowSpacing": .number(10), "collapsed": .bool(true)]
        return try View(
            strategy: strategy, parameters: parameters, sections: [SectionSpec(id: "s", items: items)],
            viewport: Viewport(size: Size(width: 320, height: 400)))
    }

    struct NeighborCase: CustomTestStringConvertible, Sendable {
        let from: String
        let direction: NeighborDirection
        let expected: String?
        var testDescription: String { "\(from) \(direction.rawValue) → \(expected ?? "nothing")" }
    }

    /// i0 i1 i2 / i3 i4 i5 / i6 i7 (the last row short).
    static let gridCases: [NeighborCase] = [
        NeighborCase(from: "i0", direction: .right, expected: "i1"), NeighborCase(from: "i2", direction: .right, expected: nil),
        NeighborCase(from: "i0", direction: .left, expected: nil), NeighborCase(from: "i4", direction: .left, expected: "i3"),
        NeighborCase(from: "i1", direction: .down, expected: "i4"), NeighborCase(from: "i4", direction: .down, expected: "i7"),
        // Nothing below i5 in its column: the nearest cell below by 13·d² + c² is i7.
        NeighborCase(from: "i5", direction: .down, expected: "i7"), NeighborCase(from: "i7", direction: .down, expected: nil),
        NeighborCase(from: "i4", direction: .up, expected: "i1"), NeighborCase(from: "i0", direction: .up, expected: nil),
        NeighborCase(from: "i2", direction: .next, expected: "i3"), NeighborCase(from: "i7", direction: .next, expected: nil),
        NeighborCase(from: "i3", direction: .previous, expected: "i2"), NeighborCase(from: "i0", direction: .previous, expected: nil),
    ]

    @Test("neighbours in a grid", arguments: gridCases)
    func gridNeighbors(row: NeighborCase) throws {
        let view = try grid(8)
        #expect(try view.layout.neighbor(of: row.from, direction: row.direction)?.id == row.expected)
    }

    /// Collapsed, with i1 i2 i3 selected: they stack on i1's frame (i3 on top), and the stack is
    /// one stop. Rows: i0 [i1 i2 i3] i4 / i5 i6 i7.
    static let stackCases: [NeighborCase] = [
        NeighborCase(from: "i0", direction: .next, expected: "i3"), NeighborCase(from: "i0", direction: .right, expected: "i3"),
        NeighborCase(from: "i1", direction: .next, expected: "i4"), NeighborCase(from: "i2", direction: .next, expected: "i4"),
        NeighborCase(from: "i3", direction: .next, expected: "i4"), NeighborCase(from: "i4", direction: .previous, expected: "i3"),
        NeighborCase(from: "i3", direction: .previous, expected: "i0"), NeighborCase(from: "i2", direction: .previous, expected: "i0"),
        NeighborCase(from: "i6", direction: .up, expected: "i3"), NeighborCase(from: "i2", direction: .down, expected: "i6"),
        NeighborCase(from: "i4", direction: .left, expected: "i3"),
    ]

    @Test("a collapsible stack is one stop, given as the cell on top", arguments: stackCases)
    func stackNeighbors(row: NeighborCase) throws {
        let view = try grid(8, strategy: "collapsible")
        try view.select(["i1", "i2", "i3"], mode: .set)
        #expect(try view.layout.neighbor(of: row.from, direction: row.direction)?.id == row.expected)
    }

    @Test("a stack is hit on its top cell; gaps and the space past the content hit nothing")
    func hitFixtures() throws {
        let view = try grid(8, strategy: "collapsible")
        try view.select(["i1", "i2", "i3"], mode: .set)
        #expect(view.layout.hitTest(Point(x: 150, y: 50))?.id == "i3")
        #expect(view.layout.hitTest(Point(x: 105, y: 50)) == nil, "the gap between columns")
        // Frames are half-open: x 100 is past i0 (0..<100), x 110 is i3's first point.
        #expect(view.layout.hitTest(Point(x: 100, y: 0)) == nil)
        #expect(view.layout.hitTest(Point(x: 110, y: 0))?.id == "i3")
        #expect(view.layout.hitTest(Point(x: 50, y: 5_000)) == nil)
        #expect(view.layout.hitTest(Point(x: 50, y: 50), kinds: [.header]) == nil)
    }

    @Test("an unknown id is ItemNotFound")
    func unknownItem() throws {
        #expect(throws: LayoutError.itemNotFound("nope")) { try grid(3).layout.neighbor(of: "nope", direction: .down) }
    }

    @Test("a transform applies around the frame's centre, as UIKit applies it")
    func transformedCoverage() {
        let frame = Rect(x: 100, y: 100, width: 100, height: 50)
        var element = LayoutAttributes(kind: .cell, id: "t", section: 0, item: 0, frame: frame, transform: .scale(x: 2, y: 2))
        // Scaled 2× around (150, 125): covers 50..<250 × 75..<175.
        #expect(element.covers(Point(x: 60, y: 80)))
        #expect(!element.covers(Point(x: 45, y: 125)))
        #expect(!element.covers(Point(x: 250, y: 125)), "the far edge stays open")
        // A quarter turn: the 100 × 50 frame becomes 50 wide and 100 tall around its centre.
        element.transform = Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 0, ty: 0)
        #expect(element.covers(Point(x: 130, y: 80)))
        #expect(!element.covers(Point(x: 110, y: 125)))
        element.transform = Transform2D(a: 1, b: 0, c: 0, d: 1, tx: 30, ty: 0)
        #expect(element.covers(Point(x: 229, y: 110)) && !element.covers(Point(x: 101, y: 110)))
        element.transform = .scale(x: 0, y: 1)
        #expect(!element.covers(Point(x: 150, y: 125)), "a collapsed area covers nothing")
    }

    // MARK: Orthogonal sections

    /// The repro of issue 40: six 150 × 100 cells in a carousel (`behavior`), then a one-row
    /// section, in a 375-wide view. The carousel's cells past x 375 lie outside the content
    /// rect; moves must still reach them.
    func carousel(_ behavior: String, layoutDirection: LayoutDirection = .ltr) throws -> View {
        func full(_ height: ParameterTree) -> ParameterTree {
            .object(["width": .object(["fractionalWidth": .number(1)]), "height": height])
        }
        let item: ParameterTree = .object(["size": full(.object(["fractionalHeight": .number(1)]))])
        let carousel: ParameterTree = .object([
            "group": .object([
                "direction": .string("horizontal"),
                "size": .object(["width": .object(["absolute": .number(150)]), "height": .object(["absolute": .number(100)])]),
                "subitems": .array([item]),
            ]),
            "orthogonalScrollingBehavior": .string(behavior),
        ])
        let row: ParameterTree = .object([
            "group": .object(["direction": .string("horizontal"), "size": full(.object(["absolute": .number(44)])), "subitems": .array([item])]),
        ])
        return try View(
            strategy: "compositional", parameters: ["section": .tree(carousel), "sections": .tree(.object(["s2": row]))],
            sections: [
                SectionSpec(id: "s1", items: (0..<6).map { ItemSpec(id: "a\($0)") }), SectionSpec(id: "s2", items: [ItemSpec(id: "z")]),
            ],
            viewport: Viewport(size: Size(width: 375, height: 600)), layoutDirection: layoutDirection)
    }

    @Test("left and right move along a carousel past the content width", arguments: ["paging", "continuous", "groupPagingCentered"])
    func carouselPastTheContentWidth(behavior: String) throws {
        let view = try carousel(behavior)
        #expect(try view.layout.neighbor(of: "a2", direction: .right)?.id == "a3")
        #expect(try view.layout.neighbor(of: "a4", direction: .left)?.id == "a3")
        #expect(try view.layout.neighbor(of: "a4", direction: .right)?.id == "a5")
        #expect(try view.layout.neighbor(of: "a5", direction: .right) == nil)
        #expect(try view.layout.neighbor(of: "a4", direction: .down)?.id == "z")
        // Scrolled to its end, the first cells lie before the content's start.
        let end = try #require(try view.layout.sectionScroll(ofSection: "s1")).scroll.maximumOffset
        _ = try view.scrollSection("s1", to: end)
        #expect(try view.layout.neighbor(of: "a3", direction: .left)?.id == "a2")
        #expect(try view.layout.neighbor(of: "a1", direction: .left)?.id == "a0")
        #expect(try view.layout.neighbor(of: "a0", direction: .left) == nil)
    }

    @Test("right to left, the carousel's moves mirror", arguments: ["paging", "continuous", "groupPagingCentered"])
    func carouselRightToLeft(behavior: String) throws {
        let view = try carousel(behavior, layoutDirection: .rtl)
        #expect(try view.layout.neighbor(of: "a2", direction: .left)?.id == "a3")
        #expect(try view.layout.neighbor(of: "a4", direction: .right)?.id == "a3")
        #expect(try view.layout.neighbor(of: "a5", direction: .left) == nil)
    }

    static let orthogonalBehaviors = ["continuous", "continuousGroupLeadingBoundary", "paging", "groupPaging", "groupPagingCentered"]

    /// Carousels of varied cells between rows, in both scroll directions and both reading
    /// directions, the carousels scrolled to offsets before, inside and past their range: the
    /// search must agree with the rule applied to every cell.
    @Test("with carousels, a screen-direction move equals the rule applied to every cell", arguments: orthogonalBehaviors)
    func orthogonalMatchesBruteForce(behavior: String) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: 0x0_7740 &+ UInt64(behavior.utf8.count)))
        for scrollDirection in ["vertical", "horizontal"] {
            for layoutDirection in LayoutDirection.allCases {
                let vertical = scrollDirection == "vertical"
                func dimension(_ value: Double) -> ParameterTree { .object(["absolute": .number(value)]) }
                // Groups of two cells (each half the group), one after another across.
                func carousel(_ width: Double, _ height: Double) -> ParameterTree {
                    let cell: ParameterTree = .object(["size": .object([
                        "width": .object(["fractionalWidth": .number(vertical ? 1 : 0.5)]),
                        "height": .object(["fractionalHeight": .number(vertical ? 0.5 : 1)]),
                    ])])
                    return .object([
                        "group": .object([
                            "direction": .string(vertical ? "vertical" : "horizontal"),
                            "size": .object(["width": dimension(width), "height": dimension(height)]),
                            "subitems": .array([cell]),
                        ]),
                        "interGroupSpacing": .number(10), "contentInsets": .object(["leading": .number(16), "trailing": .number(16), "top": .number(8), "bottom": .number(8)]),
                        "orthogonalScrollingBehavior": .string(behavior),
                    ])
                }
                let row: ParameterTree = .object(["group": .object([
                    "direction": .string("horizontal"),
                    "size": .object(vertical
                        ? ["width": .object(["fractionalWidth": .number(0.5)]), "height": dimension(44)]
                        : ["width": dimension(60), "height": .object(["fractionalHeight": .number(0.5)])]),
                    "subitems": .array([.object(["size": .object([
                        "width": .object(["fractionalWidth": .number(1)]), "height": .object(["fractionalHeight": .number(1)])])])]),
                ])])
                let parameters: [String: ParameterValue] = [
                    "scrollDirection": .string(scrollDirection), "section": .tree(row),
                    "sections": .tree(.object(["c1": carousel(150, 200), "c2": carousel(vertical ? 90 : 120, vertical ? 120 : 90)])),
                ]
                let sections = [("r0", 3), ("c1", 9), ("r1", 5), ("c2", 14), ("r2", 2)].map { id, count in
                    SectionSpec(id: id, items: (0..<count).map { ItemSpec(id: "\(id)-\($0)") })
                }
                let view = try View(
                    strategy: "compositional", parameters: parameters, sections: sections,
                    viewport: Viewport(size: Size(width: 375, height: 500)), layoutDirection: layoutDirection)
                for round in 0..<4 {
                    if round > 0 {
                        for id in ["c1", "c2"] {
                            let range = try #require(try view.layout.sectionScroll(ofSection: id)).scroll.maximumOffset
                            _ = try view.scrollSection(id, to: fuzzer.half(-60...Int(range) + 120))
                        }
                    }
                    let cells = everything(view).filter { $0.kind == .cell }
                    #expect(cells.count == 33)
                    for source in cells {
                        for direction in [NeighborDirection.up, .down, .left, .right] {
                            let expected = FocusOracle(direction).best(from: source, among: cells, scrollAxis: view.layout.strategy.scrollAxis, viewport: view.viewport.size)
                            let found = try view.layout.neighbor(of: source.id, direction: direction)
                            #expect(found?.id == expected?.id, "\(behavior) \(scrollDirection) \(layoutDirection) round \(round): \(source.id) \(direction.rawValue): \(found?.description ?? "nil") vs \(expected?.description ?? "nil")")
                        }
                    }
                }
            }
        }
    }

    // MARK: Properties against brute force

    static let cases = ["flow", "collapsible", "ultravisual", "display"].flatMap { strategy in (0..<UInt64(12)).map { (strategy, 0xA11_0000 + $0) } }

    /// A random view (the fuzzer's data and viewport), mutated a few times so selections,
    /// measurements and stacks are in play.
    func randomView(_ strategy: String, _ fuzzer: inout ViewFuzzer<SeededGenerator>) throws -> View {
        let view = try View(strategy: strategy, sections: fuzzer.sections(), viewport: fuzzer.viewport())
        for _ in 0..<6 {
            let mutation = fuzzer.mutation(for: view)
            if case .switchStrategy = mutation { continue }
            _ = try? mutation.apply(to: view)
        }
        return view
    }

    func everything(_ view: View) -> [LayoutAttributes] {
        let size = view.layout.contentSize
        return view.layout.elements(in: Rect(x: -1e6, y: -1e6, width: size.width + 2e6, height: size.height + 2e6))
    }

    @Test("hitTest equals a search of every element", arguments: cases)
    func hitTestMatchesBruteForce(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let view = try randomView(strategy, &fuzzer)
        let all = everything(view)
        let size = view.layout.contentSize
        // Random points, and every frame's corners and edges, where half-open edges matter.
        var points = (0..<200).map { _ in Point(x: fuzzer.half(-20...Int(size.width * 2) + 20), y: fuzzer.half(-20...Int(size.height * 2) + 20)) }
        for element in all.prefix(60) {
            let frame = element.frame
            points += [frame.origin, Point(x: frame.maxX, y: frame.minY), Point(x: frame.minX, y: frame.maxY), Point(x: frame.midX, y: frame.midY)]
        }
        for kinds in [Set(all.map(\.kind)), [.cell], [.header, .footer]] as [Set<ElementKind>] {
            for point in points {
                var expected: LayoutAttributes?
                for element in all where kinds.contains(element.kind) && !element.isHidden && element.alpha >= 0.01 && element.covers(point) {
                    if expected.map({ element.isDrawn(above: $0) }) ?? true { expected = element }
                }
                let found = view.layout.hitTest(point, kinds: kinds)
                #expect(found?.key == expected?.key, "seed \(seed) \(strategy) at \(point) kinds \(kinds.map(\.rawValue).sorted()): \(found?.description ?? "nil") vs \(expected?.description ?? "nil")")
            }
        }
    }

    @Test("every stop is reachable from the first by next, and back by previous", arguments: cases)
    func readingOrderRoundTrip(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let view = try randomView(strategy, &fuzzer)
        let model = view.model
        var cells = [LayoutAttributes]()
        for section in 0..<model.numberOfSections {
            for item in 0..<model.sections[section].count {
                cells.append(view.layout.attributes(forItem: model.itemID(at: ItemIndexPath(section: section, item: item)))!)
            }
        }
        // The stops: runs of consecutive cells sharing a frame, each given by its top cell.
        var stops = [String]()
        var index = 0
        while index < cells.count {
            var end = index
            while end + 1 < cells.count && cells[end + 1].frame == cells[index].frame { end += 1 }
            let run = cells[index...end].filter { !$0.isHidden && $0.alpha >= 0.01 }
            if let top = run.max(by: { $1.isDrawn(above: $0) }) { stops.append(top.id) }
            index = end + 1
        }
        guard let first = stops.first else { return }
        var forward = [first]
        while let next = try view.layout.neighbor(of: forward.last!, direction: .next) { forward.append(next.id) }
        #expect(forward == stops, "seed \(seed) \(strategy): next visits \(forward.count) of \(stops.count) stops")
        var backward = [stops.last!]
        while let previous = try view.layout.neighbor(of: backward.last!, direction: .previous) { backward.append(previous.id) }
        #expect(backward == stops.reversed(), "seed \(seed) \(strategy): previous")
    }

    @Test("prefetch names exactly the cells the moved window gains, in the order they enter", arguments: cases)
    func prefetchMatchesMovedWindow(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let view = try randomView(strategy, &fuzzer)
        let axis = view.layout.strategy.scrollAxis
        let all = everything(view).filter { $0.kind == .cell }
        for _ in 0..<20 {
            let speed = fuzzer.half(-8_000...8_000)
            let horizon = fuzzer.pick([0.05, 0.25, 1.0])
            let velocity = axis == .vertical ? Point(x: fuzzer.half(-500...500), y: speed) : Point(x: speed, y: fuzzer.half(-500...500))
            let window = view.window
            let reach = speed * horizon
            // The window swept over the horizon, along the scroll axis only.
            let main = axis.mainRange(of: window)
            let cross = axis.crossRange(of: window)
            let swept = axis.rect(
                cross: cross.min, main: min(main.min, main.min + reach), crossExtent: cross.max - cross.min,
                mainExtent: main.max - main.min + abs(reach))
            let expected = all.filter { $0.frame.intersects(swept) && !$0.frame.intersects(window) }
                .sorted { a, b in
                    let (ra, rb) = (axis.mainRange(of: a.frame), axis.mainRange(of: b.frame))
                    let (ea, eb) = reach > 0 ? (ra.min, rb.min) : (-ra.max, -rb.max)
                    return (ea, a.section, a.item ?? 0) < (eb, b.section, b.item ?? 0)
                }
                .map(\.id)
            let found = view.layout.prefetch(window: window, velocity: velocity, horizon: horizon, maximum: 10_000)
            #expect(found == (reach == 0 ? [] : expected), "seed \(seed) \(strategy): velocity \(velocity) horizon \(horizon)")
            #expect(view.layout.prefetch(window: window, velocity: velocity, horizon: horizon, maximum: 2) == Array(found.prefix(2)))
        }
    }

    @Test("a screen-direction move equals the rule applied to every cell", arguments: cases)
    func geometricMatchesBruteForce(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let view = try randomView(strategy, &fuzzer)
        let cells = everything(view).filter { $0.kind == .cell }
        let axis: Axis = view.layout.strategy.scrollAxis
        for source in cells.prefix(40) {
            for direction in [NeighborDirection.up, .down, .left, .right] {
                let expected = FocusOracle(direction).best(from: source, among: cells, scrollAxis: axis, viewport: view.viewport.size)
                let found = try view.layout.neighbor(of: source.id, direction: direction)
                #expect(found?.id == expected?.id, "seed \(seed) \(strategy): \(source.id) \(direction.rawValue): \(found?.description ?? "nil") vs \(expected?.description ?? "nil")")
            }
        }
    }
}

/// The focus rules of `Layout.neighbor` written out again, plainly, over every cell: the
/// oracle the region-limited search must agree with.
struct FocusOracle {
    let direction: NeighborDirection

    init(_ direction: NeighborDirection) { self.direction = direction }

    var vertical: Bool { direction == .up || direction == .down }
    var forward: Bool { direction == .down || direction == .right }

    func along(_ r: Rect) -> (Double, Double) { vertical ? (r.minY, r.maxY) : (r.minX, r.maxX) }
    func across(_ r: Rect) -> (Double, Double) { vertical ? (r.minX, r.maxX) : (r.minY, r.maxY) }

    func candidate(_ s: Rect, _ d: Rect) -> Bool {
        let ((s0, s1), (d0, d1)) = (along(s), along(d))
        return forward ? (s0 < d0 || s1 <= d0) && s1 < d1 : (s1 > d1 || s0 >= d1) && s0 > d0
    }

    func beam(_ s: Rect, _ d: Rect) -> Bool {
        let ((s0, s1), (d0, d1)) = (across(s), across(d))
        return d1 > s0 && d0 < s1
    }

    func near(_ s: Rect, _ d: Rect) -> Double {
        let ((s0, s1), (d0, d1)) = (along(s), along(d))
        return max(0, forward ? d0 - s1 : s0 - d1)
    }

    func far(_ s: Rect, _ d: Rect) -> Double {
        let ((s0, s1), (d0, d1)) = (along(s), along(d))
        return max(1, forward ? d1 - s1 : s0 - d0)
    }

    func beyond(_ s: Rect, _ d: Rect) -> Bool {
        let ((s0, s1), (d0, d1)) = (along(s), along(d))
        return forward ? s1 <= d0 : s0 >= d1
    }

    func beats(_ s: Rect, _ a: Rect, _ b: Rect) -> Bool {
        guard beam(s, a), !beam(s, b) else { return false }
        if !beyond(s, b) || !vertical { return true }
        return near(s, a) < far(s, b)
    }

    func score(_ s: Rect, _ d: Rect) -> Double {
        let ((s0, s1), (d0, d1)) = (across(s), across(d))
        let major = near(s, d)
        let minor = (d0 + d1) / 2 - (s0 + s1) / 2
        return 13 * major * major + minor * minor
    }

    func best(from source: LayoutAttributes, among cells: [LayoutAttributes], scrollAxis: Axis, viewport: Size) -> LayoutAttributes? {
        let s = source.frame
        let movesAlongScroll = vertical == (scrollAxis == .vertical)
        let reach = scrollAxis.main(of: viewport)
        var best: LayoutAttributes?
        for cell in cells where !cell.isHidden && cell.alpha >= 0.01 && candidate(s, cell.frame) {
            // Across the scroll axis, the search looks at most a viewport along it either way.
            if !movesAlongScroll {
                let (c0, c1) = scrollAxis == .vertical ? (cell.frame.minY, cell.frame.maxY) : (cell.frame.minX, cell.frame.maxX)
                let (s0, s1) = scrollAxis == .vertical ? (s.minY, s.maxY) : (s.minX, s.maxX)
                guard c1 > s0 - reach && c0 < s1 + reach else { continue }
            }
            guard let current = best else {
                best = cell
                continue
            }
            if beats(s, cell.frame, current.frame) {
                best = cell
            } else if beats(s, current.frame, cell.frame) {
                continue
            } else {
                let (a, b) = (score(s, cell.frame), score(s, current.frame))
                if a < b || (a == b && cell.isDrawn(above: current)) { best = cell }
            }
        }
        return best
    }
}
