import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

/// Extreme but valid input must never trap, hang or produce non-finite frames, and queries
/// must still agree with brute force.
@Suite("degenerate input")
struct DegenerateInputTests {
    static let extremes: [Double] = [0, 1e-300, 0.5, 1e12]

    static let cases: [(strategy: String, parameters: [String: ParameterValue])] = {
        var cases = [(String, [String: ParameterValue])]()
        for value in extremes {
            let size = ParameterValue.size(Size(width: value, height: value))
            cases.append(("flow", ["itemSize": size, "minimumInteritemSpacing": .number(value), "minimumLineSpacing": .number(value)]))
            cases.append(("flow", ["itemSize": size, "spacingMode": .string("fixed"), "minimumInteritemSpacing": .number(0)]))
            cases.append(("collapsible", ["itemSize": size, "itemSpacing": .number(value), "rowSpacing": .number(value), "collapsed": .bool(true)]))
            cases.append(("collapsible", ["itemSize": size, "itemSpacing": .number(0), "rowSpacing": .number(0), "sectionSpacing": .number(value)]))
            cases.append(("ultravisual", ["standardHeight": .number(value), "featuredHeight": .number(value + 1)]))
            cases.append(("display", ["mode": .string("grid"), "columns": .integer(1000), "interitemSpacing": .number(value)]))
            cases.append(("display", ["mode": .string("inline"), "inlineWidthFraction": .number(0), "inlineHeight": .number(value), "interitemSpacing": .number(0)]))
            cases.append(("display", ["mode": .string("list"), "rowHeight": .number(value), "lineSpacing": .number(0)]))
        }
        return cases
    }()

    @Test("extreme parameters and viewports terminate with finite frames", arguments: 0..<cases.count)
    func extremes(index: Int) throws {
        let (name, parameters) = Self.cases[index]
        for viewportSize in [Size(width: 1e-9, height: 1e-9), Size(width: 1, height: 1), Size(width: 375, height: 667), Size(width: 1e9, height: 1e9)] {
            for count in [0, 1, 50] {
                let model = try CollectionModel(sections: [
                    SectionSpec(id: "a", items: (0..<count).map { ItemSpec(id: "a\($0)") }),
                    SectionSpec(id: "b", items: []),
                    SectionSpec(id: "c", items: (0..<count).map { ItemSpec(id: "c\($0)") }),
                ])
                let layout = try Layout(
                    strategy: StrategyRegistry.builtIn.makeStrategy(named: name, parameters: parameters), model: model,
                    viewport: Viewport(size: viewportSize))
                try layout.select(model.sections.flatMap(\.itemIDs).enumerated().filter { $0.offset % 3 != 0 }.map(\.element), mode: .set)
                #expect(layout.contentSize.width.isFinite && layout.contentSize.height.isFinite, "\(name) \(parameters)")
                let all = allElements(of: layout)
                #expect(all.count >= 2 * count, "\(name): every item has attributes")
                for attributes in all.values {
                    #expect(attributes.frame.isFinite, "\(name) \(parameters): \(attributes)")
                }
                for rect in [everywhere(layout.contentSize), layout.viewport.bounds, Rect(x: -1e15, y: -1e15, width: 3e15, height: 3e15)] {
                    #expect(Set(layout.elements(in: rect).map(\.key)) == Set(bruteForce(all, in: rect).keys), "\(name) \(parameters) \(rect)")
                }
                var far = layout.viewport
                far.offset = Point(x: 1e300, y: 1e300)
                #expect(throws: LayoutError.self) { try layout.setViewport(far) }
                far.offset = Point(x: LayoutBounds.maximumCoordinate, y: LayoutBounds.maximumCoordinate)
                try layout.setViewport(far)
                _ = layout.elements(in: far.bounds)
                _ = layout.targetContentOffset(proposed: Point(x: 0, y: 1e300), velocity: .zero)
            }
        }
    }

    @Test("featuredHeight must exceed standardHeight")
    func ultravisualHeights() {
        #expect(throws: LayoutError.invalidParameter(parameter: "featuredHeight", reason: "must be greater than standardHeight")) {
            try StrategyRegistry.builtIn.makeStrategy(named: "ultravisual", parameters: ["featuredHeight": .number(100)])
        }
    }

    @Test("a refused reconfiguration leaves the layout unchanged")
    func refusedReconfiguration() throws {
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: "ultravisual"),
            model: CollectionModel(sections: [SectionSpec(id: "s", items: (0..<5).map { ItemSpec(id: "\($0)") })]),
            viewport: Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: 90)))
        let before = allElements(of: layout)
        #expect(throws: LayoutError.self) { try layout.reconfigure(["standardHeight": .number(500)]) }
        #expect(throws: LayoutError.unknownParameter(strategy: "ultravisual", parameter: "mode")) {
            try layout.reconfigure(["mode": .string("grid")])
        }
        #expect(allElements(of: layout) == before)
        #expect(layout.strategy.parameters.number("standardHeight") == 100)
    }
}
