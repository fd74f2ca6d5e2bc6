import LayoutEngine
import LayoutGeometry
import Testing

/// Flow behaviour beyond single fixtures: viewport changes, lookups, parameters in action.
@Suite("flow behaviour")
struct FlowBehaviourTests {
    static func f1(width: Double = 375, parameters: [String: ParameterValue] = [:]) throws -> (Layout, CollectionModel) {
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<7).map { ItemSpec(id: "\($0)") })])
        var all = parameters
        all["itemSize"] = .size(Size(width: 100, height: 100))
        let flow = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: all), model: model,
            viewport: Viewport(size: Size(width: width, height: 667)))
        return (flow, model)
    }

    @Test("a resize across the scroll axis re-lays out; along it, nothing changes")
    func resize() throws {
        let (flow, _) = try Self.f1()
        #expect(try flow.setViewport(Viewport(size: Size(width: 375, height: 500))) == .none)
        #expect(flow.attributes(forItem: "1")?.frame.minX == 137.5)
        #expect(try flow.setViewport(Viewport(size: Size(width: 320, height: 500))) == .layout)
        #expect(flow.attributes(forItem: "1")?.frame.minX == 110)
        #expect(flow.contentSize == Size(width: 320, height: 320))
    }

    @Test("a scroll invalidates nothing without pinned headers and only headers with them")
    func scrollInvalidation() throws {
        let (plain, _) = try Self.f1()
        #expect(try plain.setViewport(Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: 40))) == .none)
        let (pinned, _) = try Self.f1(parameters: ["sectionHeadersPinToVisibleBounds": .bool(true)])
        #expect(try pinned.setViewport(Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: 40))) == .offsetDependent)
        #expect(try pinned.setViewport(Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: 40))) == .none)
    }

    @Test("unknown ids have no attributes; sections without headers have none")
    func missingLookups() throws {
        let (flow, _) = try Self.f1()
        #expect(flow.attributes(forItem: "nope") == nil)
        #expect(flow.attributes(forSupplementary: .header, id: "s") == nil)
        #expect(flow.attributes(forSupplementary: .header, id: "nope") == nil)
        #expect(flow.attributes(forSupplementary: .cell, id: "s") == nil)
        #expect(flow.attributes(for: ElementKey(kind: .cell, id: "3"))?.item == 3)
    }

    @Test("non-finite query rects return nothing instead of trapping")
    func nonFiniteQueries() throws {
        let (flow, _) = try Self.f1()
        #expect(flow.elements(in: Rect(x: 0, y: .nan, width: 10, height: 10)).isEmpty)
        #expect(flow.elements(in: Rect(x: 0, y: 0, width: 10, height: .infinity)).isEmpty)
        #expect(flow.elements(in: Rect(x: -1e300, y: -1e300, width: 2e300, height: 2e300)).count == 7)
    }

    @Test("attributes carry index paths, default zIndex and alpha")
    func attributeDefaults() throws {
        let (flow, _) = try Self.f1()
        let attributes = try #require(flow.attributes(forItem: "4"))
        #expect(attributes.indexPath == ItemIndexPath(section: 0, item: 4))
        #expect(attributes.kind == .cell)
        #expect(attributes.zIndex == 0)
        #expect(attributes.alpha == 1)
        #expect(!attributes.isHidden)
        #expect(attributes.transform.isIdentity)
        #expect(attributes.effects.isEmpty)
    }

    @Test("selection of an expanding item changes its frame and pushes later lines")
    func expandingItem() throws {
        let model = try CollectionModel(sections: [
            SectionSpec(id: "s", items: [
                ItemSpec(id: "a", size: Size(width: 375, height: 60)),
                ItemSpec(id: "b", size: Size(width: 375, height: 60), selectedSize: Size(width: 375, height: 200)),
                ItemSpec(id: "c", size: Size(width: 375, height: 60)),
            ])
        ])
        let flow = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow"), model: model,
            viewport: Viewport(size: Size(width: 375, height: 667)))
        #expect(flow.attributes(forItem: "c")?.frame.minY == 140)
        try flow.select(["b"], mode: .toggle)
        #expect(flow.attributes(forItem: "b")?.frame.height == 200)
        #expect(flow.attributes(forItem: "c")?.frame.minY == 280)
    }

    @Test("the strategy's default size is the estimate when self-sizing")
    func defaultItemSize() throws {
        let plain = try StrategyRegistry.builtIn.makeStrategy(named: "flow")
        #expect(plain.defaultItemSize == Size(width: 50, height: 50))
        let sizing = try StrategyRegistry.builtIn.makeStrategy(
            named: "flow", parameters: ["estimatedItemSize": .size(Size(width: 300, height: 44))])
        #expect(sizing.defaultItemSize == Size(width: 300, height: 44))
    }

    @Test("a million uniform items cost nothing per item to prepare or query")
    func millionUniformItems() throws {
        let ids = (0..<1_000_000).map { "p\($0)" }
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: ids.map { ItemSpec(id: $0) })])
        let flow = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: ["itemSize": .size(Size(width: 100, height: 100))]),
            model: model, viewport: Viewport(size: Size(width: 375, height: 667)))
        #expect(flow.contentSize.height == 333_333 * 110 + 100)
        let window = Rect(x: 0, y: 20_000_000, width: 375, height: 667)
        let visible = flow.elements(in: window)
        #expect(visible.count == 21)
        #expect(flow.attributes(forItem: "p999999")?.frame == Rect(x: 0, y: 333_333 * 110, width: 100, height: 100))
    }
}
