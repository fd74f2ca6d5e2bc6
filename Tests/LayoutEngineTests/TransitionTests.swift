import LayoutEngine
import LayoutGeometry
import Testing

extension LayoutAttributes {
    func with(alpha: Double) -> LayoutAttributes {
        var copy = self
        copy.alpha = alpha
        return copy
    }
}

@Suite("transitions and appearing attributes")
struct TransitionTests {
    static func model(_ count: Int) throws -> CollectionModel {
        try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<count).map { ItemSpec(id: "\($0)") })])
    }

    /// 30 items of 100×100 under a 40 pt header, three per row, scrolled to `offset`.
    static func flowWithHeaders(offset: Double) throws -> Layout {
        let flow = try StrategyRegistry.builtIn.makeStrategy(
            named: "flow",
            parameters: ["itemSize": .size(Size(width: 100, height: 100)), "headerReferenceSize": .size(Size(width: 0, height: 40))])
        return try Layout(
            strategy: flow, model: model(30), viewport: Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: offset)))
    }

    @Test("appearing and disappearing elements fade at their frame by default", arguments: ["flow", "ultravisual", "display", "collapsible"])
    func fadeDefaults(strategy name: String) throws {
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: name), model: Self.model(6),
            viewport: Viewport(size: Size(width: 375, height: 667)))
        let attributes = try #require(layout.attributes(forItem: "2"))
        let appearing = layout.strategy.initialAttributes(forAppearing: attributes, model: layout.model)
        let disappearing = layout.strategy.finalAttributes(forDisappearing: attributes, model: layout.model)
        for moved in [appearing, disappearing] {
            #expect(moved.frame == attributes.frame)
            #expect(moved.alpha == 0)
            #expect(moved.key == attributes.key)
        }
    }

    @Test("an item appearing inside a collapsed stack comes out from under it, opaque")
    func collapsibleAppearsFromStack() throws {
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "collapsible", parameters: ["collapsed": .bool(true)]),
            model: Self.model(10), viewport: Viewport(size: Size(width: 282, height: 320)))
        try layout.select(["3", "4", "5"], mode: .set)
        let leader = try #require(layout.attributes(forItem: "3"))
        let stacked = try #require(layout.attributes(forItem: "5"))
        let appearing = layout.strategy.initialAttributes(forAppearing: stacked, model: layout.model)
        #expect(appearing.frame == leader.frame)
        #expect(appearing.alpha == 1)
        let free = try #require(layout.attributes(forItem: "7"))
        #expect(layout.strategy.initialAttributes(forAppearing: free, model: layout.model).alpha == 0)
    }

    @Test("switching from flow with headers to display: headers fade out, cells move, the anchor stays")
    func strategySwitch() throws {
        let layout = try Self.flowWithHeaders(offset: 370)
        let anchor = try #require(layout.firstVisibleItem)
        #expect(anchor.id == "9")  // rows of 3 at 40, 150, 260, 370: item 9 starts the row at the top edge
        let switched = layout.switchStrategy(
            to: try StrategyRegistry.builtIn.makeStrategy(named: "display", parameters: ["mode": .string("list")]))
        #expect(switched.anchor == "9")
        #expect(switched.contentOffset == Point(x: 0, y: 9 * 140))
        #expect(layout.viewport.offset == switched.contentOffset)
        #expect(switched.transition.duration == Transition.defaultDuration)
        #expect(switched.transition.segments(for: ElementKey(kind: .header, id: "s")).isEmpty, "the header was off screen")
        let moved = switched.transition.segments(for: ElementKey(kind: .cell, id: "9"))
        #expect(moved.first?.from.frame == Rect(x: 0, y: 370, width: 100, height: 100))
        #expect(moved.first?.to.frame == Rect(x: 0, y: 1260, width: 375, height: 130))
    }

    @Test("a header that disappears in the new strategy fades out; an offset above the content is clamped")
    func headerFadesOut() throws {
        let layout = try Self.flowWithHeaders(offset: 20)
        let switched = layout.switchStrategy(
            to: try StrategyRegistry.builtIn.makeStrategy(named: "display", parameters: ["mode": .string("list")]))
        #expect(switched.anchor == "0")
        #expect(switched.contentOffset == .zero, "item 0 was 20 pt below the top edge: -20 clamps to 0")
        let header = switched.transition.segments(for: ElementKey(kind: .header, id: "s"))
        #expect(header.count == 1)
        #expect(header.first?.from == layout.strategy.finalAttributes(forDisappearing: header.first!.to, model: layout.model).with(alpha: 1))
        #expect(header.first?.to.alpha == 0)
        #expect(header.first?.to.frame == Rect(x: 0, y: 0, width: 375, height: 40))
    }

    @Test("a window margin brings elements beyond the viewport into the transition")
    func windowMargin() throws {
        func segments(margin: Double) throws -> Int {
            let layout = try Layout(
                strategy: StrategyRegistry.builtIn.makeStrategy(named: "display"), model: Self.model(60),
                viewport: Viewport(size: Size(width: 375, height: 667)))
            return try layout.reconfigure(["mode": .string("list")], windowMargin: margin).transition.segments.count
        }
        let tight = try segments(margin: 0)
        let wide = try segments(margin: 600)
        #expect(tight > 0)
        #expect(wide > tight)
    }

    @Test("reconfiguring to the same parameters moves nothing")
    func noOpReconfiguration() throws {
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "collapsible"), model: Self.model(20),
            viewport: Viewport(size: Size(width: 282, height: 320)))
        let switched = try layout.reconfigure(["collapsed": .bool(false)])
        #expect(switched.transition.segments.isEmpty)
        #expect(switched.transition.duration == 0)
        #expect(switched.contentOffset == .zero)
    }
}
