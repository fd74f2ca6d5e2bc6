import LayoutEngine
import LayoutGeometry
import Testing

@Suite("strategy registry and parameters")
struct RegistryTests {
    @Test("built-in strategies are registered with described parameters")
    func builtIns() throws {
        let registry = StrategyRegistry.builtIn
        #expect(registry.descriptors.map(\.name).contains("flow"))
        let flow = try #require(registry.descriptor(named: "flow"))
        #expect(flow.parameter(named: "itemSize")?.defaultValue == .size(Size(width: 50, height: 50)))
        #expect(flow.parameter(named: "minimumInteritemSpacing")?.defaultValue == .number(10))
        #expect(flow.parameter(named: "lastLineAlignment")?.kind == .choice(["automatic", "gridAligned", "leading", "centered", "justified"]))
    }

    @Test("every declared default is a valid value of its own kind")
    func defaultsAreValid() throws {
        for descriptor in StrategyRegistry.builtIn.descriptors {
            for parameter in descriptor.parameters {
                #expect(try parameter.validate(parameter.defaultValue) == parameter.defaultValue, "\(descriptor.name).\(parameter.name)")
            }
        }
    }

    @Test("an unknown strategy is refused by name")
    func unknownStrategy() {
        #expect(throws: LayoutError.unknownStrategy("masonry")) {
            try StrategyRegistry.builtIn.makeStrategy(named: "masonry")
        }
    }

    @Test("an unknown parameter is refused, naming strategy and parameter")
    func unknownParameter() {
        #expect(throws: LayoutError.unknownParameter(strategy: "flow", parameter: "itemSzie")) {
            try StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: ["itemSzie": .size(.zero)])
        }
    }

    @Test(
        "invalid parameter values are refused",
        arguments: [
            ("minimumLineSpacing", ParameterValue.number(-1)),
            ("minimumLineSpacing", .number(.nan)),
            ("minimumLineSpacing", .number(.infinity)),
            ("minimumLineSpacing", .string("ten")),
            ("itemSize", .size(Size(width: -1, height: 5))),
            ("itemSize", .size(Size(width: .nan, height: 5))),
            ("itemSize", .null),
            ("sectionInset", .insets(EdgeInsets(top: -1, left: 0, bottom: 0, right: 0))),
            ("scrollDirection", .string("diagonal")),
            ("sectionHeadersPinToVisibleBounds", .number(1)),
            ("estimatedItemSize", .number(3)),
        ])
    func invalidValues(name: String, value: ParameterValue) {
        #expect(throws: LayoutError.self) {
            try StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: [name: value])
        }
        do {
            _ = try StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: [name: value])
        } catch {
            #expect(error.name == "InvalidParameter")
            #expect(error.details["parameter"] == name)
        }
    }

    @Test("integers are accepted for numbers and whole numbers for integers")
    func numericCoercion() throws {
        let number = ParameterDescription("n", .number(minimum: 0, maximum: 10), default: .number(1), "")
        #expect(try number.validate(.integer(3)) == .number(3))
        #expect(throws: LayoutError.self) { try number.validate(.integer(11)) }
        let integer = ParameterDescription("k", .integer(minimum: 1, maximum: nil), default: .integer(2), "")
        #expect(try integer.validate(.number(4)) == .integer(4))
        #expect(throws: LayoutError.self) { try integer.validate(.number(4.5)) }
        #expect(throws: LayoutError.self) { try integer.validate(.integer(0)) }
    }

    @Test("resolving over a base changes only the named parameters")
    func resolveOverBase() throws {
        let descriptor = FlowLayout.descriptor
        let base = try descriptor.resolve(["minimumLineSpacing": .number(4)])
        let changed = try descriptor.resolve(["itemSize": .size(Size(width: 9, height: 9))], over: base)
        #expect(changed.number("minimumLineSpacing") == 4)
        #expect(changed.size("itemSize") == Size(width: 9, height: 9))
        #expect(changed.number("minimumInteritemSpacing") == 10)
    }

    @Test("registering a name twice is refused")
    func duplicateRegistration() {
        var registry = StrategyRegistry.builtIn
        #expect(throws: LayoutError.duplicateStrategy("flow")) { try registry.register(FlowLayout.self) }
    }

    @Test("a strategy written outside the engine registers the same way")
    func externalStrategy() throws {
        var registry = StrategyRegistry()
        try registry.register(SingleColumn.self)
        let strategy = try registry.makeStrategy(named: "single-column", parameters: ["rowHeight": .number(20)])
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "a"), ItemSpec(id: "b")])])
        let layout = try Layout(strategy: strategy, model: model, viewport: Viewport(size: Size(width: 100, height: 100)))
        #expect(layout.attributes(forItem: "b")?.frame == Rect(x: 0, y: 20, width: 100, height: 20))
        #expect(strategy.targetContentOffset(proposed: Point(x: 0, y: 7), velocity: .zero) == Point(x: 0, y: 7))
        let appearing = strategy.initialAttributes(forAppearing: layout.attributes(forItem: "a")!, model: layout.model)
        #expect(appearing.alpha == 0)
        #expect(appearing.frame == Rect(x: 0, y: 0, width: 100, height: 20))
    }
}

/// A minimal strategy written against the public protocol only, as a plugin author would.
private final class SingleColumn: NativeStrategy {
    static let descriptor = StrategyDescriptor(
        name: "single-column", summary: "one row per item",
        parameters: [ParameterDescription("rowHeight", .number(minimum: 0, maximum: nil), default: .number(44), "row height")])

    let parameters: ResolvedParameters
    private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    private var rows: [(id: String, frame: Rect)] = []
    private var width = 0.0

    init(parameters: ResolvedParameters) { self.parameters = parameters }

    var scrollAxis: Axis { .vertical }

    var defaultItemSize: Size { Size(width: width, height: parameters.number("rowHeight")) }

    func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        width = viewport.size.width
        let height = parameters.number("rowHeight")
        rows = model.sections.flatMap(\.itemIDs).enumerated().map { index, id in
            (id, Rect(x: 0, y: Double(index) * height, width: width, height: height))
        }
    }

    func updateViewport(_ viewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        self.viewport = viewport
        return .none
    }

    var contentSize: Size { Size(width: width, height: rows.last?.frame.maxY ?? 0) }

    func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        rows.enumerated().filter { $0.element.frame.intersects(rect) }.map { attributes(index: $0.offset) }
    }

    func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        rows.firstIndex { $0.id == id }.map(attributes(index:))
    }

    func attributes(forSupplementary kind: ElementKind, id: String, model: CollectionModel) -> LayoutAttributes? {
        nil
    }

    private func attributes(index: Int) -> LayoutAttributes {
        LayoutAttributes(kind: .cell, id: rows[index].id, section: 0, item: index, frame: rows[index].frame)
    }
}
