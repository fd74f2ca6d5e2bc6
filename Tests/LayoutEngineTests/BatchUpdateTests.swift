import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

@Suite("batch updates and data diffs")
struct BatchUpdateTests {
    static func model(_ sections: [(String, [String])]) throws -> CollectionModel {
        try CollectionModel(sections: sections.map { SectionSpec(id: $0.0, items: $0.1.map { ItemSpec(id: $0) }) })
    }

    static func ids(_ model: CollectionModel) -> [[String]] { model.sections.map { Array($0.itemIDs) } }

    /// The first section's size sources, item by item (a section of defaults stores none).
    static func sources(_ model: CollectionModel) -> [SizeSource] {
        model.sections[0].sizeSources ?? Array(repeating: .strategyDefault, count: model.sections[0].count)
    }

    @Test("deletes and moves leave first, then inserts land at final positions in ascending order")
    func uikitOrdering() throws {
        let model = try Self.model([("s", ["a", "b", "c", "d"])])
        let (result, changes) = try model.applying([
            .deleteItems(["b"]), .insertItems([ItemSpec(id: "x")], section: "s", at: 0), .moveItem("d", toSection: "s", at: 1),
        ])
        #expect(Self.ids(result) == [["x", "d", "a", "c"]])
        #expect(changes.deletedItems == ["b"])
        #expect(changes.insertedItems == ["x"])
        #expect(changes.movedItems == ["d"])
        #expect(changes.changesCounts)
    }

    @Test("items move across sections and keep their measured size")
    func crossSectionMove() throws {
        var model = try Self.model([("s", ["a", "b"]), ("t", ["c"])])
        try model.applyMeasurements([("a", Size(width: 70, height: 30))], defaultSize: Size(width: 50, height: 50))
        let (result, _) = try model.applying([.moveItem("a", toSection: "t", at: 1)])
        #expect(Self.ids(result) == [["b"], ["c", "a"]])
        #expect(result.sections[1].sizeSources == [.strategyDefault, .measured])
        #expect(result.sections[1].baseSize(ofItem: 1, default: .zero) == Size(width: 70, height: 30))
    }

    @Test("new data keeps a measured size while it describes the item as it was when measured")
    func measuredSizesAcrossNewData() throws {
        let defaultSize = Size(width: 50, height: 50)
        let absolute = Size(width: 60, height: 40)
        let measured = Size(width: 70, height: 90)
        let described = [
            ItemSpec(id: "default"), ItemSpec(id: "estimated", estimatedSize: Size(width: 50, height: 30)),
            ItemSpec(id: "absolute", size: absolute), ItemSpec(id: "changed", size: absolute), ItemSpec(id: "reloaded"),
        ]
        var old = try CollectionModel(sections: [SectionSpec(id: "s", items: described)])
        try old.applyMeasurements(described.map { ($0.id, measured) }, defaultSize: defaultSize)
        // A second measurement keeps the description from before the first.
        try old.applyMeasurements([("absolute", Size(width: 71, height: 91))], defaultSize: defaultSize)
        try old.apply([.reloadItems([ItemSpec(id: "reloaded")])])

        var new = try CollectionModel(sections: [SectionSpec(id: "s", items: [
            ItemSpec(id: "reloaded"), ItemSpec(id: "absolute", size: absolute), ItemSpec(id: "estimated", estimatedSize: Size(width: 50, height: 30)),
            ItemSpec(id: "changed", size: Size(width: 61, height: 40)), ItemSpec(id: "default"), ItemSpec(id: "fresh"),
        ])])
        new.keepMeasuredSizes(from: old)
        #expect(Self.sources(new) == [.strategyDefault, .measured, .measured, .absolute, .measured, .strategyDefault])
        #expect(new.sections[0].baseSize(ofItem: 1, default: defaultSize) == Size(width: 71, height: 91))
        #expect(new.sections[0].baseSize(ofItem: 4, default: defaultSize) == measured)
        let changes = old.changes(to: new)
        // "reloaded" lost its measurement to reloadItems already: old and new both describe it by nothing.
        #expect(changes.reloadedItems == ["changed"])
        // What was kept stays comparable: the same data again keeps it a second time.
        var again = try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "absolute", size: absolute)])])
        again.keepMeasuredSizes(from: new)
        #expect(Self.sources(again) == [.measured])
        // An item deleted and inserted again starts afresh.
        try new.apply([.deleteItems(["default"])])
        try new.apply([.insertItems([ItemSpec(id: "default")], section: "s", at: 0)])
        var later = try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "default")])])
        later.keepMeasuredSizes(from: new)
        #expect(Self.sources(later) == [.strategyDefault])
    }

    @Test("sections insert, move, delete and reload at final positions")
    func sections() throws {
        let model = try Self.model([("a", ["a1"]), ("b", ["b1", "b2"]), ("c", ["c1"])])
        let (result, changes) = try model.applying([
            .deleteSections(["a"]), .moveSection("c", to: 0),
            .insertSections([SectionSpec(id: "n", items: [ItemSpec(id: "n1")])], at: 2),
            .reloadSections([SectionSpec(id: "b", items: [ItemSpec(id: "b2"), ItemSpec(id: "b3")])]),
        ])
        #expect(result.sections.map(\.id) == ["c", "b", "n"])
        #expect(Self.ids(result) == [["c1"], ["b2", "b3"], ["n1"]])
        #expect(Set(changes.deletedItems) == ["a1", "b1"])
        #expect(Set(changes.insertedItems) == ["n1", "b3"])
        #expect(changes.movedSections == ["c"])
        #expect(changes.reloadedSections == ["b"])
    }

    @Test("a reload changes sizes, not identity or position")
    func reloadItems() throws {
        let model = try Self.model([("s", ["a", "b"])])
        let (result, changes) = try model.applying([.reloadItems([ItemSpec(id: "b", size: Size(width: 9, height: 9))])])
        #expect(Self.ids(result) == [["a", "b"]])
        #expect(result.sections[0].baseSize(ofItem: 1, default: .zero) == Size(width: 9, height: 9))
        #expect(changes.reloadedItems == ["b"])
        #expect(!changes.changesCounts)
    }

    @Test("the selection of surviving items is kept, deleted ones drop out")
    func selectionSurvives() throws {
        var model = try Self.model([("s", ["a", "b", "c"])])
        try model.select(["a", "b"], mode: .set)
        let (result, _) = try model.applying([.deleteItems(["a"]), .moveItem("b", toSection: "s", at: 1)])
        #expect(result.selection == ["b"])
    }

    @Test(
        "invalid batches are refused with a stable name",
        arguments: [
            ([BatchUpdate.deleteItems(["nope"])], "ItemNotFound"),
            ([.deleteItems(["a"]), .moveItem("a", toSection: "s", at: 0)], "InvalidBatch"),
            ([.insertItems([ItemSpec(id: "b")], section: "s", at: 0)], "DuplicateItemID"),
            ([.insertItems([ItemSpec(id: "x"), ItemSpec(id: "x")], section: "s", at: 0)], "InvalidBatch"),
            ([.insertItems([ItemSpec(id: "x")], section: "s", at: 4)], "IndexOutOfRange"),
            ([.insertItems([ItemSpec(id: "x")], section: "s", at: -1)], "IndexOutOfRange"),
            ([.insertItems([ItemSpec(id: "x")], section: "nope", at: 0)], "SectionNotFound"),
            ([.deleteSections(["s"]), .insertItems([ItemSpec(id: "x")], section: "s", at: 0)], "InvalidBatch"),
            ([.deleteSections(["s"]), .deleteItems(["a"])], "InvalidBatch"),
            ([.moveSection("s", to: 2)], "IndexOutOfRange"),
            ([.insertSections([SectionSpec(id: "t", items: [])], at: 0)], "DuplicateSectionID"),
            ([.insertItems([ItemSpec(id: "x", size: Size(width: -1, height: 1))], section: "s", at: 0)], "InvalidSize"),
            ([.reloadItems([ItemSpec(id: "a", estimatedSize: Size(width: .nan, height: 1))])], "InvalidSize"),
            ([.insertSections([SectionSpec(id: "u", items: [ItemSpec(id: "a")])], at: 0)], "DuplicateItemID"),
        ])
    func refused(updates: [BatchUpdate], name: String) throws {
        let model = try Self.model([("s", ["a", "b", "c"]), ("t", [])])
        do {
            _ = try model.applying(updates)
            Issue.record("accepted \(updates)")
        } catch {
            #expect(error.name == name, "\(updates): \(error.message)")
        }
    }

    @Test("a diff by id finds inserts, deletes, reloads and the fewest moves")
    func diff() throws {
        let old = try Self.model([("s", ["a", "b", "c", "d", "e"])])
        var new = try CollectionModel(sections: [
            SectionSpec(id: "s", items: ["b", "c", "a", "x", "e"].map { ItemSpec(id: $0) })
        ])
        new = try CollectionModel(sections: [
            SectionSpec(id: "s", items: new.specs[0].items.map { $0.id == "e" ? ItemSpec(id: "e", size: Size(width: 1, height: 1)) : $0 })
        ])
        let changes = old.changes(to: new)
        #expect(changes.insertedItems == ["x"])
        #expect(changes.deletedItems == ["d"])
        #expect(changes.movedItems == ["a"])
        #expect(changes.reloadedItems == ["e"])
    }
}

@Suite("view")
struct ViewTests {
    static func view(_ strategy: String = "flow", items: Int = 30, parameters: [String: ParameterValue] = [:], limits: ViewLimits = ViewLimits()) throws -> View {
        try View(
            strategy: strategy, parameters: parameters,
            sections: [SectionSpec(id: "s", items: (0..<items).map { ItemSpec(id: "\($0)") })],
            viewport: Viewport(size: Size(width: 375, height: 667)), limits: limits)
    }

    @Test("every refusal is named and leaves the view exactly as it was")
    func refusalsChangeNothing() throws {
        let view = try Self.view(limits: ViewLimits(maximumItems: 40, maximumBatchSize: 5))
        try view.scroll(to: Point(x: 0, y: 100))
        let attempts: [(String, () throws(LayoutError) -> Invalidation)] = [
            ("StaleEpoch", { () throws(LayoutError) in try view.scroll(to: .zero, ifEpoch: 0) }),
            ("InvalidViewport", { () throws(LayoutError) in try view.scroll(to: Point(x: .nan, y: 0)) }),
            ("InvalidViewport", { () throws(LayoutError) in try view.resize(to: Size(width: 0, height: 10)) }),
            ("InvalidViewport", { () throws(LayoutError) in try view.scrollEnd(proposed: Point(x: 0, y: .infinity)) }),
            ("ItemNotFound", { () throws(LayoutError) in try view.select(["1", "nope"], mode: .add, animated: true) }),
            ("InvalidSize", { () throws(LayoutError) in try view.measure([("1", Size(width: 1, height: -1))]) }),
            ("LimitExceeded", { () throws(LayoutError) in try view.select(["1", "2", "3", "4", "5", "6"], mode: .add) }),
            ("LimitExceeded", { () throws(LayoutError) in
                try view.performBatch([.insertItems((0..<6).map { ItemSpec(id: "n\($0)") }, section: "s", at: 0)])
            }),
            ("LimitExceeded", { () throws(LayoutError) in
                try view.replaceData([SectionSpec(id: "s", items: (0..<41).map { ItemSpec(id: "\($0)") })])
            }),
            ("DuplicateItemID", { () throws(LayoutError) in
                try view.replaceData([SectionSpec(id: "s", items: [ItemSpec(id: "a"), ItemSpec(id: "a")])])
            }),
            ("InvalidBatch", { () throws(LayoutError) in try view.performBatch([.deleteItems(["1", "1"])], animated: true) }),
            ("UnknownParameter", { () throws(LayoutError) in try view.configure(["mode": .string("grid")], animated: true) }),
            ("InvalidParameter", { () throws(LayoutError) in try view.configure(["minimumLineSpacing": .number(-1)]) }),
            ("UnknownStrategy", { () throws(LayoutError) in try view.switchStrategy(to: "masonry", animated: true) }),
            ("InvalidParameter", { () throws(LayoutError) in try view.switchStrategy(to: "ultravisual", parameters: ["featuredHeight": .number(1)]) }),
            ("InvalidParameter", { () throws(LayoutError) in try view.setWindowMargin(.infinity) }),
        ]
        for (name, attempt) in attempts {
            let before = ViewDump(view)
            do {
                _ = try attempt()
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.name == name, "expected \(name), got \(error.name): \(error.message)")
            }
            #expect(ViewDump(view) == before, "\(name) changed the view")
        }
    }

    @Test("the epoch counts applied mutations; ifEpoch guards against concurrent changes")
    func epochs() throws {
        let view = try Self.view()
        #expect(view.epoch == 0)
        let first = try view.scroll(to: Point(x: 0, y: 50), ifEpoch: 0)
        #expect(first.epoch == 1)
        #expect(throws: LayoutError.staleEpoch(expected: 0, actual: 1)) { try view.select(["1"], mode: .add, ifEpoch: 0) }
        #expect(try view.select(["1"], mode: .add, ifEpoch: 1).epoch == 2)
    }

    @Test("a measured item above the window grows without moving what is on screen")
    func measurementAboveWindowKeepsScreen() throws {
        let view = try Self.view(items: 300, parameters: ["itemSize": .size(Size(width: 100, height: 100))])
        try view.scroll(to: Point(x: 0, y: 1100))  // row 10 at the top edge: items 30, 31, 32
        let anchorBefore = try #require(view.layout.attributes(forItem: "30")).frame.minY - view.viewport.offset.y
        let invalidation = try view.measure([("3", Size(width: 100, height: 180))])
        #expect(invalidation.context.contentOffsetAdjustment == Point(x: 0, y: 80))
        #expect(invalidation.context.contentSizeAdjustment == Size(width: 0, height: 80))
        #expect(invalidation.contentOffset == Point(x: 0, y: 1180))
        let anchorAfter = try #require(view.layout.attributes(forItem: "30")).frame.minY - view.viewport.offset.y
        #expect(anchorAfter == anchorBefore)
        #expect(invalidation.entered.isEmpty && invalidation.left.isEmpty)
        // Everything held moved 80 pt down in content coordinates, so it is all `changed`.
        #expect(invalidation.changed.count == view.snapshot().count)
        #expect(invalidation.context.invalidatedItems == ["3"])
    }

    @Test("inserting above the window is invisible on screen; the delta moves every held frame")
    func insertAboveWindow() throws {
        let view = try Self.view(items: 300, parameters: ["itemSize": .size(Size(width: 100, height: 100))])
        try view.scroll(to: Point(x: 0, y: 1100))
        let invalidation = try view.performBatch([.insertItems((0..<3).map { ItemSpec(id: "new\($0)") }, section: "s", at: 0)], animated: true)
        #expect(invalidation.contentOffset == Point(x: 0, y: 1210))
        #expect(invalidation.changes?.insertedItems == ["new0", "new1", "new2"])
        #expect(invalidation.context.invalidatesDataSourceCounts)
        let transition = try #require(invalidation.transition)
        // Everything in the window moved down one row in content coordinates, nothing appeared.
        #expect(transition.segments.allSatisfy { $0.to.frame.minY - $0.from.frame.minY == 110 })
    }

    @Test("scrollEnd snaps through the strategy and clamps to the content")
    func scrollEndSnaps() throws {
        let view = try Self.view("ultravisual", items: 6)
        let invalidation = try view.scrollEnd(proposed: Point(x: 0, y: 100), velocity: Point(x: 0, y: 300))
        #expect(invalidation.targetContentOffset == Point(x: 0, y: 180))
        #expect(view.viewport.offset == Point(x: 0, y: 180))
        let flow = try Self.view(items: 3)
        #expect(try flow.scrollEnd(proposed: Point(x: 0, y: 5000)).targetContentOffset == .zero)
    }
}
