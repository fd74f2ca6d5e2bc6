import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing
import Waterfall

/// Properties of the waterfall on seeded random models, checked against a reference written
/// here from the semantics (not through `WaterfallColumns`). A failure names the seed.
@Suite("waterfall properties")
struct WaterfallTests {
    static let seeds = (0..<UInt64(300)).map { 0xFA11_0000 + $0 }

    @Test("every item sits in exactly one column, at that column's origin and width", arguments: seeds)
    func itemsSitInColumns(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scenario = try Scenario.random(&random)
        let origins = scenario.columnOrigins
        for path in scenario.itemPaths {
            let frame = try scenario.frame(of: path)
            // Zero-width columns without spacing share one origin: then x must be that one.
            let matches = Set(origins.filter { Self.close(frame.minX, $0) })
            #expect(matches.count == 1, "seed \(seed): \(path) at x \(frame.minX) is not on one of \(origins)")
            #expect(Self.close(frame.width, scenario.columnWidth), "seed \(seed): \(path) is \(frame.width) wide")
        }
    }

    @Test("within a column, items follow in item order, itemSpacing apart, never overlapping", arguments: seeds)
    func columnsStackInOrder(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scenario = try Scenario.random(&random)
        // Columns that share an origin cannot be told apart by x; the next test covers them.
        guard Set(scenario.columnOrigins).count == scenario.configuration.columnCount else { return }
        for (sectionIndex, section) in scenario.layout.model.sections.enumerated() {
            var lastInColumn = [Int: (item: Int, frame: Rect)]()
            for item in 0..<section.count {
                let path = ItemIndexPath(section: sectionIndex, item: item)
                let frame = try scenario.frame(of: path)
                let column = scenario.column(ofX: frame.minX)
                if let previous = lastInColumn[column] {
                    let gap = frame.minY - previous.frame.maxY
                    #expect(
                        Self.close(gap, scenario.configuration.itemSpacing),
                        "seed \(seed): \(path) is \(gap) below item \(previous.item) in column \(column)")
                    #expect(!frame.intersects(previous.frame), "seed \(seed): \(path) overlaps item \(previous.item)")
                }
                lastInColumn[column] = (item, frame)
            }
        }
    }

    @Test("each item went to the shortest column of its time, the leftmost on a tie", arguments: seeds)
    func shortestColumnWins(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scenario = try Scenario.random(&random)
        let reference = scenario.reference()
        for path in scenario.itemPaths {
            let frame = try scenario.frame(of: path)
            let expected = reference.cells[path]!
            #expect(
                scenario.column(ofX: frame.minX) == expected.column,
                "seed \(seed): \(path) went to column \(scenario.column(ofX: frame.minX)), the shortest was \(expected.column)")
            #expect(frame == expected.frame, "seed \(seed): \(path) is \(frame), expected \(expected.frame)")
        }
        let all = allElements(of: scenario.layout)
        for (key, frame) in reference.supplementaries {
            #expect(all[key]?.frame == frame, "seed \(seed): \(key) is \(all[key]?.frame as Any), expected \(frame)")
        }
        #expect(
            all.values.filter { $0.kind != .cell }.count == reference.supplementaries.count,
            "seed \(seed): headers or footers that should not exist")
        #expect(scenario.layout.contentSize == reference.contentSize, "seed \(seed)")
    }

    @Test("elements(in:) equals a brute-force filter over every element", arguments: seeds)
    func queriesMatchBruteForce(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let scenario = try Scenario.random(&random)
        let layout = scenario.layout
        let all = allElements(of: layout)
        var rects = [everywhere(layout.contentSize), layout.viewport.bounds]
        for _ in 0..<20 { rects.append(StrategyPropertyTests.randomRect(&random, in: layout.contentSize)) }
        // Thin rects along item edges catch off-by-one-run mistakes in the index.
        if let cell = all.values.randomElement(using: &random) {
            rects.append(Rect(x: -10, y: cell.frame.minY, width: layout.contentSize.width + 20, height: 0.5))
            rects.append(Rect(x: -10, y: cell.frame.maxY - 0.5, width: layout.contentSize.width + 20, height: 0.5))
        }
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

    @Test("scrolling and height changes keep the layout; a new width lays out again")
    func viewportChanges() throws {
        let layout = try Layout(
            strategy: WaterfallLayout(parameters: WaterfallParameters.descriptor.resolve([:])),
            model: CollectionModel(sections: [SectionSpec(id: "s", items: (0..<9).map { ItemSpec(id: "\($0)") })]),
            viewport: Viewport(size: Size(width: 210, height: 300)))
        let before = allElements(of: layout)
        #expect(try layout.setViewport(Viewport(size: Size(width: 210, height: 300), offset: Point(x: 0, y: 120))) == ViewportInvalidation.none)
        #expect(try layout.setViewport(Viewport(size: Size(width: 210, height: 500), offset: Point(x: 0, y: 120))) == ViewportInvalidation.none)
        #expect(allElements(of: layout) == before)
        let narrower = Viewport(
            size: Size(width: 210, height: 500), contentInsets: EdgeInsets(top: 0, left: 0, bottom: 0, right: 10))
        #expect(try layout.setViewport(narrower) == ViewportInvalidation.layout)
        #expect(layout.attributes(forItem: "1")?.frame == Rect(x: 105, y: 0, width: 95, height: 95))
    }

    // MARK: Helpers

    static func close(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }
}

/// A random waterfall: parameters, viewport and model, laid out by `WaterfallLayout`.
private struct Scenario {
    var layout: Layout
    var configuration: WaterfallParameters
    var width: Double

    static func random(_ random: inout SeededGenerator) throws -> Scenario {
        func dimension(_ range: ClosedRange<Int>) -> Double {
            // Mostly whole points, sometimes fractions, so scaling is exercised both ways.
            let whole = Double(Int.random(in: range, using: &random))
            return Bool.random(using: &random) ? whole : whole + Double(Int.random(in: 0..<8, using: &random)) / 8
        }
        func size(allowZeroWidth: Bool) -> Size {
            let width = allowZeroWidth && Int.random(in: 0..<10, using: &random) == 0 ? 0 : dimension(1...400)
            return Size(width: width, height: Int.random(in: 0..<20, using: &random) == 0 ? 0 : dimension(1...400))
        }
        func supplementary() -> Size? {
            switch Int.random(in: 0..<4, using: &random) {
            case 0: nil
            case 1: Size(width: dimension(0...300), height: 0)
            default: Size(width: dimension(0...300), height: dimension(1...80))
            }
        }
        var specs = [SectionSpec]()
        var selected = [String]()
        for section in 0..<Int.random(in: 1...4, using: &random) {
            let count = [0, 1, 2, 7, Int.random(in: 0...200, using: &random)].randomElement(using: &random)!
            var items = [ItemSpec]()
            for index in 0..<count {
                var item = ItemSpec(id: "s\(section)i\(index)")
                if Int.random(in: 0..<4, using: &random) > 0 { item.size = size(allowZeroWidth: true) }
                if Int.random(in: 0..<8, using: &random) == 0 {
                    item.selectedSize = size(allowZeroWidth: true)
                    if Bool.random(using: &random) { selected.append(item.id) }
                }
                items.append(item)
            }
            specs.append(SectionSpec(id: "s\(section)", items: items, headerSize: supplementary(), footerSize: supplementary()))
        }
        let given: [String: ParameterValue] = [
            "columnCount": .integer(Int.random(in: 0..<10, using: &random) == 0 ? 64 : Int.random(in: 1...8, using: &random)),
            "columnSpacing": .number(dimension(0...20)),
            "itemSpacing": .number(dimension(0...20)),
            "sectionInset": .insets(EdgeInsets(top: dimension(0...30), left: dimension(0...30), bottom: dimension(0...30), right: dimension(0...30))),
            "itemSize": .size(size(allowZeroWidth: true)),
        ]
        let resolved = try WaterfallParameters.descriptor.resolve(given)
        let insets = EdgeInsets(top: dimension(0...50), left: dimension(0...30), bottom: dimension(0...50), right: dimension(0...30))
        let viewport = Viewport(
            size: Size(width: dimension(40...900), height: dimension(100...900)),
            offset: Point(x: 0, y: dimension(0...2000)), contentInsets: insets)
        let layout = try Layout(
            strategy: WaterfallLayout(parameters: resolved), model: CollectionModel(sections: specs), viewport: viewport)
        try layout.select(selected, mode: .set)
        return Scenario(
            layout: layout, configuration: WaterfallParameters(resolved),
            width: max(0, viewport.size.width - insets.left - insets.right))
    }

    // MARK: Geometry, from the semantics

    var columnWidth: Double {
        let c = configuration
        let spacing = Double(c.columnCount - 1) * c.columnSpacing
        return max(0, (width - c.sectionInset.left - c.sectionInset.right - spacing) / Double(c.columnCount))
    }

    var columnOrigins: [Double] {
        (0..<configuration.columnCount).map {
            configuration.sectionInset.left + Double($0) * (columnWidth + configuration.columnSpacing)
        }
    }

    /// The column whose origin `x` is nearest: with zero-width columns and no spacing, origins
    /// coincide, and the first of them is the one the item must be in.
    func column(ofX x: Double) -> Int {
        let origins = columnOrigins
        return origins.indices.min { abs(origins[$0] - x) < abs(origins[$1] - x) }!
    }

    var itemPaths: [ItemIndexPath] {
        layout.model.sections.enumerated().flatMap { index, section in
            (0..<section.count).map { ItemIndexPath(section: index, item: $0) }
        }
    }

    func frame(of path: ItemIndexPath) throws -> Rect {
        let id = layout.model.itemID(at: path)
        let attributes = try #require(layout.attributes(forItem: id))
        #expect(attributes.section == path.section && attributes.item == path.item && attributes.id == id)
        return attributes.frame
    }

    /// The item's size as the semantics define it, read from the specs: the open size when it
    /// is selected and has one, else its own, else itemSize.
    func semanticSize(of spec: ItemSpec) -> Size {
        if let open = spec.selectedSize, layout.model.isSelected(spec.id) { return open }
        return spec.size ?? configuration.itemSize
    }

    /// Every frame as the semantics compute it, by a plain walk over the specs. The arithmetic
    /// follows the semantics' formulas term by term, so frames compare exactly and a near-tie
    /// cannot go either way.
    func reference() -> (
        cells: [ItemIndexPath: (column: Int, frame: Rect)], supplementaries: [ElementKey: Rect], contentSize: Size
    ) {
        let c = configuration
        let w = columnWidth
        let origins = columnOrigins
        var cells = [ItemIndexPath: (column: Int, frame: Rect)]()
        var supplementaries = [ElementKey: Rect]()
        var top = 0.0
        for (sectionIndex, spec) in layout.model.specs.enumerated() {
            if let header = spec.headerSize, header.height > 0 {
                supplementaries[ElementKey(kind: .header, id: spec.id)] = Rect(x: 0, y: top, width: width, height: header.height)
                top += header.height
            }
            top += c.sectionInset.top
            var bottoms = Array(repeating: top, count: c.columnCount)
            for (item, itemSpec) in spec.items.enumerated() {
                let size = semanticSize(of: itemSpec)
                let height = size.width > 0 ? size.height * w / size.width : size.height
                var shortest = 0
                for column in bottoms.indices where bottoms[column] < bottoms[shortest] { shortest = column }
                cells[ItemIndexPath(section: sectionIndex, item: item)] = (
                    shortest, Rect(x: origins[shortest], y: bottoms[shortest], width: w, height: height)
                )
                bottoms[shortest] += height + c.itemSpacing
            }
            if !spec.items.isEmpty { top = bottoms.max()! - c.itemSpacing }
            top += c.sectionInset.bottom
            if let footer = spec.footerSize, footer.height > 0 {
                supplementaries[ElementKey(kind: .footer, id: spec.id)] = Rect(x: 0, y: top, width: width, height: footer.height)
                top += footer.height
            }
        }
        return (cells, supplementaries, Size(width: width, height: top))
    }
}
