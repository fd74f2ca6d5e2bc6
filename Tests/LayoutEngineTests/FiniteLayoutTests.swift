import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

/// Finite inputs near the largest double used to overflow to infinity in layout arithmetic
/// (a section inset of 1e308 on both sides, a viewport offset of 1e308 plus a window margin),
/// and replies carried `null` where the schemas require numbers. Every length a client sends
/// is now bounded by `LayoutBounds.maximumCoordinate`: just over it is refused by name and
/// changes nothing; at it, layouts of up to the item limit stay finite.
@Suite("finite layouts")
struct FiniteLayoutTests {
    static let bound = LayoutBounds.maximumCoordinate
    static let over = LayoutBounds.maximumCoordinate.nextUp
    static let sections = [SectionSpec(id: "s", items: (0..<30).map { ItemSpec(id: "\($0)") })]
    static let viewport = Viewport(size: Size(width: 375, height: 667))

    // MARK: Regressions

    @Test("regression: a flow section inset of 1e308 is refused, not laid out to infinity")
    func sectionInsetNear1e308() {
        do {
            let view = try View(
                strategy: "flow", parameters: ["sectionInset": .insets(EdgeInsets(top: 1e308, left: 0, bottom: 1e308, right: 0))],
                sections: Self.sections, viewport: Self.viewport)
            Issue.record("accepted: content size \(view.layout.contentSize)")
        } catch {
            #expect(error.name == "InvalidParameter")
        }
    }

    @Test("regression: a viewport offset of 1e308 plus a window margin of 1e308 is refused")
    func viewportPlusMarginNear1e308() throws {
        let view = try View(strategy: "flow", sections: Self.sections, viewport: Self.viewport, windowMargin: 1e15)
        do {
            try view.scroll(to: Point(x: 0, y: 1e308))
            Issue.record("accepted: window \(view.window)")
        } catch {
            #expect(error.name == "InvalidViewport")
        }
        #expect(throws: LayoutError.self) { try view.setWindowMargin(1e308) }
    }

    // MARK: Parameters

    /// One length parameter of a built-in strategy: just over the bound it is refused with
    /// `error`; `atBound` configures it at the bound (with what it needs to stay valid).
    struct ParameterCase: CustomTestStringConvertible, Sendable {
        var strategy: String
        var parameter: String
        var over: ParameterValue
        var error: LayoutError
        var atBound: [String: ParameterValue]

        var testDescription: String { "\(strategy).\(parameter)" }
    }

    static func number(_ strategy: String, _ name: String, atBound: [String: ParameterValue]? = nil) -> ParameterCase {
        ParameterCase(
            strategy: strategy, parameter: name, over: .number(over),
            error: .invalidParameter(parameter: name, reason: "must be at most 1e15"),
            atBound: atBound ?? [name: .number(bound)])
    }

    static func size(_ strategy: String, _ name: String) -> ParameterCase {
        ParameterCase(
            strategy: strategy, parameter: name, over: .size(Size(width: 10, height: over)),
            error: .invalidParameter(parameter: name, reason: "width and height must be at most 1e15"),
            atBound: [name: .size(Size(width: bound, height: bound))])
    }

    static func insets(_ strategy: String, _ name: String) -> ParameterCase {
        ParameterCase(
            strategy: strategy, parameter: name, over: .insets(EdgeInsets(top: over, left: 0, bottom: 0, right: 0)),
            error: .invalidParameter(parameter: name, reason: "insets must be at most 1e15"),
            atBound: [name: .insets(EdgeInsets(all: bound))])
    }

    /// Every length parameter of every built-in strategy (`coversEveryLengthParameter` keeps
    /// it complete).
    static let parameterCases: [ParameterCase] = [
        size("flow", "itemSize"),
        size("flow", "estimatedItemSize"),
        number("flow", "minimumInteritemSpacing"),
        number("flow", "minimumLineSpacing"),
        insets("flow", "sectionInset"),
        size("flow", "headerReferenceSize"),
        size("flow", "footerReferenceSize"),
        size("collapsible", "itemSize"),
        number("collapsible", "itemSpacing"),
        number("collapsible", "rowSpacing"),
        number("collapsible", "sectionSpacing"),
        number("ultravisual", "standardHeight", atBound: ["standardHeight": .number(bound.nextDown), "featuredHeight": .number(bound)]),
        number("ultravisual", "featuredHeight"),
        number("display", "rowHeight", atBound: ["mode": .string("list"), "rowHeight": .number(bound)]),
        number("display", "inlineHeight", atBound: ["mode": .string("inline"), "inlineHeight": .number(bound)]),
        number("display", "interitemSpacing"),
        number("display", "lineSpacing"),
    ]

    @Test("reasons spell the bound as 1e15")
    func boundText() {
        #expect(Double("1e15") == LayoutBounds.maximumCoordinate)
    }

    @Test("the table covers every length parameter of the built-in strategies, and the issue's")
    func coversEveryLengthParameter() {
        var lengths = Set<String>()
        for name in ["flow", "collapsible", "ultravisual", "display"] {
            let descriptor = StrategyRegistry.builtIn.descriptor(named: name)!
            for parameter in descriptor.parameters {
                switch parameter.kind {
                case .number(_, nil), .size, .optionalSize, .insets: lengths.insert("\(name).\(parameter.name)")
                default: break
                }
            }
        }
        #expect(Set(Self.parameterCases.map(\.testDescription)) == lengths)
        for named in ["flow.sectionInset", "collapsible.rowSpacing", "ultravisual.featuredHeight", "display.rowHeight"] {
            #expect(lengths.contains(named))
        }
    }

    @Test("a length parameter just over the bound is refused by name and changes nothing", arguments: parameterCases)
    func parameterOverBound(_ row: ParameterCase) throws {
        let view = try View(strategy: row.strategy, sections: Self.sections, viewport: Self.viewport)
        try view.scroll(to: Point(x: 0, y: 40))
        let before = ViewDump(view)
        #expect(throws: row.error) { try view.configure([row.parameter: row.over], animated: true) }
        #expect(ViewDump(view) == before)
        #expect(throws: row.error) {
            try View(strategy: row.strategy, parameters: [row.parameter: row.over], sections: Self.sections, viewport: Self.viewport)
        }
        let other = row.strategy == "flow" ? "display" : "flow"
        let switched = try View(strategy: other, sections: Self.sections, viewport: Self.viewport)
        let unswitched = ViewDump(switched)
        #expect(throws: row.error) { try switched.switchStrategy(to: row.strategy, parameters: [row.parameter: row.over]) }
        #expect(ViewDump(switched) == unswitched)
    }

    @Test("a length parameter at the bound lays out finitely", arguments: parameterCases)
    func parameterAtBound(_ row: ParameterCase) throws {
        let view = try View(strategy: row.strategy, sections: Self.sections, viewport: Self.viewport, windowMargin: Self.bound)
        try view.configure(row.atBound, animated: true)
        try view.scroll(to: Point(x: -Self.bound, y: Self.bound))
        try view.select(["0", "1", "2"], mode: .set, animated: true)
        Self.expectFinite(view, "\(row.testDescription) at the bound")
    }

    // MARK: Viewport, window and sizes

    static let overOffset = LayoutError.invalidViewport(reason: "offset must be at most 1e15 in magnitude, got (0, 1000000000000000.1)")

    /// Every other length a client sends: viewport size, offset and insets, window margin,
    /// scrollEnd's proposed offset and velocity, and every size of items and sections.
    static var viewCases: [(String, LayoutError, (View) throws(LayoutError) -> Void)] {
        [
        ("scroll", overOffset, { view throws(LayoutError) in try view.scroll(to: Point(x: 0, y: over)) }),
        ("scroll up", .invalidViewport(reason: "offset must be at most 1e15 in magnitude, got (-1000000000000000.1, 0)"),
         { view throws(LayoutError) in try view.scroll(to: Point(x: -over, y: 0)) }),
        ("resize", .invalidViewport(reason: "size must be at most 1e15, got 375×1000000000000000.1"),
         { view throws(LayoutError) in try view.resize(to: Size(width: 375, height: over), animated: true) }),
        ("windowMargin", .invalidParameter(parameter: "windowMargin", reason: "must be at most 1e15"),
         { view throws(LayoutError) in try view.setWindowMargin(over) }),
        ("scrollEnd proposed", .invalidViewport(reason: "proposed offset and velocity must be at most 1e15 in magnitude"),
         { view throws(LayoutError) in try view.scrollEnd(proposed: Point(x: 0, y: over)) }),
        ("scrollEnd velocity", .invalidViewport(reason: "proposed offset and velocity must be at most 1e15 in magnitude"),
         { view throws(LayoutError) in try view.scrollEnd(proposed: .zero, velocity: Point(x: 0, y: -over)) }),
        ("measuredSize", .invalidSize(id: "1", field: "measuredSize"),
         { view throws(LayoutError) in try view.measure([("1", Size(width: over, height: 10))]) }),
        ("size", .invalidSize(id: "n", field: "size"),
         { view throws(LayoutError) in try view.performBatch([.insertItems([ItemSpec(id: "n", size: Size(width: 1, height: over))], section: "s", at: 0)]) }),
        ("estimatedSize", .invalidSize(id: "1", field: "estimatedSize"),
         { view throws(LayoutError) in try view.performBatch([.reloadItems([ItemSpec(id: "1", estimatedSize: Size(width: 1, height: over))])]) }),
        ("selectedSize", .invalidSize(id: "n", field: "selectedSize"),
         { view throws(LayoutError) in try view.performBatch([.insertItems([ItemSpec(id: "n", selectedSize: Size(width: over, height: 1))], section: "s", at: 0)]) }),
        ("headerSize", .invalidSize(id: "h", field: "headerSize"),
         { view throws(LayoutError) in try view.performBatch([.insertSections([SectionSpec(id: "h", items: [], headerSize: Size(width: 0, height: over))], at: 0)]) }),
        ("footerSize", .invalidSize(id: "s", field: "footerSize"),
         { view throws(LayoutError) in try view.replaceData([SectionSpec(id: "s", items: [], footerSize: Size(width: 0, height: over))]) }),
        ]
    }

    @Test("a viewport, window or size just over the bound is refused by name and changes nothing", arguments: ["flow", "collapsible", "ultravisual", "display"])
    func viewInputsOverBound(strategy: String) throws {
        let view = try View(strategy: strategy, sections: Self.sections, viewport: Self.viewport, windowMargin: 100)
        try view.scroll(to: Point(x: 0, y: 40))
        for (name, error, attempt) in Self.viewCases {
            let before = ViewDump(view)
            #expect(throws: error, "\(strategy): \(name)") { try attempt(view) }
            #expect(ViewDump(view) == before, "\(strategy): \(name) changed the view")
        }
    }

    @Test("a view created with a viewport or margin just over the bound is refused")
    func creationOverBound() {
        let cases: [(Viewport, Double, LayoutError)] = [
            (Viewport(size: Size(width: Self.over, height: 10)), 0,
             .invalidViewport(reason: "size must be at most 1e15, got 1000000000000000.1×10")),
            (Viewport(size: Size(width: 10, height: 10), offset: Point(x: 0, y: Self.over)), 0, Self.overOffset),
            (Viewport(size: Size(width: 10, height: 10), contentInsets: EdgeInsets(top: 0, left: -Self.over, bottom: 0, right: 0)), 0,
             .invalidViewport(reason: "content insets must be at most 1e15 in magnitude")),
            (Viewport(size: Size(width: 10, height: 10)), Self.over,
             .invalidParameter(parameter: "windowMargin", reason: "must be at most 1e15")),
        ]
        for (viewport, margin, error) in cases {
            #expect(throws: error) { try View(strategy: "flow", sections: Self.sections, viewport: viewport, windowMargin: margin) }
        }
    }

    @Test("an offset the engine chose beyond the bound does not make a later resize fail")
    func engineOffsetsAreNotHeldToTheBound() throws {
        let side = Self.bound / 2
        let view = try View(
            strategy: "flow", parameters: ["itemSize": .size(Size(width: side, height: side)), "minimumLineSpacing": .number(0)],
            sections: [SectionSpec(id: "s", items: (0..<8).map { ItemSpec(id: "\($0)") })],
            viewport: Viewport(size: Size(width: side, height: 100), offset: Point(x: 0, y: Self.bound)))
        try view.performBatch([.insertItems((0..<4).map { ItemSpec(id: "n\($0)") }, section: "s", at: 0)])
        #expect(view.viewport.offset.y > Self.bound)  // the first visible item stayed on screen
        try view.resize(to: Size(width: side, height: 200))
        try view.scrollEnd(proposed: Point(x: 0, y: Self.bound))
        Self.expectFinite(view, "anchored beyond the bound")
    }

    // MARK: Every input at the bound, at the item limit

    /// Every length at the bound, every strategy mode that uses them.
    static let boundConfigurations: [(strategy: String, parameters: [String: ParameterValue])] = {
        let size = ParameterValue.size(Size(width: bound, height: bound))
        let length = ParameterValue.number(bound)
        return [
            ("flow", [
                "itemSize": size, "minimumInteritemSpacing": length, "minimumLineSpacing": length,
                "sectionInset": .insets(EdgeInsets(all: bound)), "headerReferenceSize": size, "footerReferenceSize": size,
                "sectionHeadersPinToVisibleBounds": .bool(true),
            ]),
            ("flow", [
                "estimatedItemSize": size, "minimumInteritemSpacing": length, "minimumLineSpacing": length,
                "sectionInset": .insets(EdgeInsets(all: bound)), "headerReferenceSize": size, "footerReferenceSize": size,
                "scrollDirection": .string("horizontal"), "spacingMode": .string("fixed"), "lineAlignment": .string("trailing"),
            ]),
            ("collapsible", ["itemSize": size, "itemSpacing": length, "rowSpacing": length, "sectionSpacing": length, "collapsed": .bool(true)]),
            ("ultravisual", ["standardHeight": .number(bound.nextDown), "featuredHeight": length]),
            ("display", ["mode": .string("grid"), "columns": .integer(1000), "interitemSpacing": length, "lineSpacing": length]),
            ("display", ["mode": .string("list"), "rowHeight": length, "lineSpacing": length]),
            ("display", ["mode": .string("inline"), "inlineHeight": length, "inlineWidthFraction": .number(10), "interitemSpacing": length]),
        ]
    }()

    /// 2,000,000 items (the default item limit) in 1,000 sections plus empty ones, every item,
    /// header and footer size at the bound on some items.
    static let limitSections: [SectionSpec] = {
        let side = Size(width: bound, height: bound)
        let perSection = ViewLimits().maximumItems / 1000
        var sections = [SectionSpec]()
        for section in 0..<1000 {
            let items = (0..<perSection).map { item -> ItemSpec in
                let id = "\(section).\(item)"
                switch item % 4 {
                case 0: return ItemSpec(id: id, size: side, selectedSize: side)
                case 1: return ItemSpec(id: id, estimatedSize: side)
                default: return ItemSpec(id: id)
                }
            }
            sections.append(SectionSpec(id: "s\(section)", items: items, headerSize: side, footerSize: side))
            if section % 100 == 0 { sections.append(SectionSpec(id: "e\(section)", items: [], headerSize: side, footerSize: side)) }
        }
        return sections
    }()

    /// Serialized: each case holds a model of 2,000,000 items.
    @Test("every input at the bound, at the item limit: content size and every element are finite",
          .serialized, arguments: 0..<boundConfigurations.count)
    func everythingAtTheBound(index: Int) throws {
        let (strategy, parameters) = Self.boundConfigurations[index]
        let view = try View(
            strategy: strategy, parameters: parameters, sections: Self.limitSections,
            viewport: Viewport(
                size: Size(width: Self.bound, height: Self.bound), offset: Point(x: Self.bound, y: Self.bound),
                contentInsets: EdgeInsets(all: Self.bound)),
            windowMargin: Self.bound)
        #expect(view.model.numberOfItems == ViewLimits().maximumItems)
        Self.expectFinite(view, "\(strategy) \(parameters)", everyElement: true)

        let ids = view.model.sections.prefix(3).flatMap(\.itemIDs)
        try view.select(Array(ids.prefix(ViewLimits().maximumBatchSize)), mode: .set, animated: true)
        try view.measure(ids.prefix(1000).map { ($0, Size(width: Self.bound, height: Self.bound)) }, animated: true)
        try view.scroll(to: Point(x: -Self.bound, y: -Self.bound))
        try view.scrollEnd(proposed: Point(x: Self.bound, y: Self.bound), velocity: Point(x: -Self.bound, y: Self.bound))
        try view.resize(to: Size(width: Self.bound / 3, height: Self.bound), animated: true)
        Self.expectFinite(view, "\(strategy) \(parameters) after mutations", everyElement: false)
    }

    // MARK: Helpers

    /// Content size, window, offset and the window's attributes finite, and with
    /// `everyElement`, every element's: one query over a finite rect far larger than any
    /// bounded layout returns as many elements as the model has (so none is missing for having
    /// a non-finite frame), all finite. Looking elements up one by one would be exact too, but
    /// takes minutes at the item limit in a debug build.
    static func expectFinite(_ view: View, _ context: String, everyElement: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) {
        let content = view.layout.contentSize
        #expect(content.width.isFinite && content.height.isFinite, "\(context): content size \(content)", sourceLocation: sourceLocation)
        #expect(view.window.isFinite && view.viewport.offset.isFinite, "\(context): window \(view.window)", sourceLocation: sourceLocation)
        var bad = view.snapshot().filter { !isFinite($0) }
        if everyElement {
            var expected = view.model.numberOfItems
            for section in view.model.sections {
                for kind in [ElementKind.header, .footer] {
                    guard let attributes = view.layout.attributes(forSupplementary: kind, id: section.id) else { continue }
                    expected += 1
                    if !isFinite(attributes) { bad.append(attributes) }
                }
            }
            let all = view.layout.elements(in: Rect(x: -1e300, y: -1e300, width: 2e300, height: 2e300))
            #expect(all.count == expected, "\(context): \(expected - all.count) elements missing", sourceLocation: sourceLocation)
            bad += all.filter { !isFinite($0) }
        }
        #expect(bad.isEmpty, "\(context): \(bad.count) non-finite, first \(bad.prefix(3))", sourceLocation: sourceLocation)
    }

    static func isFinite(_ attributes: LayoutAttributes) -> Bool {
        let t = attributes.transform
        return attributes.frame.isFinite && attributes.alpha.isFinite && attributes.effects.values.allSatisfy(\.isFinite)
            && [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite)
    }
}
