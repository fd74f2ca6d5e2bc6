import LayoutEngine
import LayoutGeometry
import Testing

@Suite("collection model")
struct ModelTests {
    static func sample() throws -> CollectionModel {
        try CollectionModel(sections: [
            SectionSpec(id: "a", items: [ItemSpec(id: "a1"), ItemSpec(id: "a2", size: Size(width: 10, height: 20))]),
            SectionSpec(id: "b", items: [ItemSpec(id: "b1", estimatedSize: Size(width: 30, height: 40))]),
        ])
    }

    @Test("index paths are derived from order and looked up by id")
    func indexPaths() throws {
        let model = try Self.sample()
        #expect(model.indexPath(ofItem: "a2") == ItemIndexPath(section: 0, item: 1))
        #expect(model.indexPath(ofItem: "b1") == ItemIndexPath(section: 1, item: 0))
        #expect(model.indexPath(ofItem: "zz") == nil)
        #expect(model.itemID(at: ItemIndexPath(section: 1, item: 0)) == "b1")
        #expect(model.sectionIndex(of: "b") == 1)
        #expect(model.numberOfItems == 3)
        #expect(model.numberOfSections == 2)
    }

    @Test("a section whose items use the default size stores no sizes")
    func uniformSectionsStoreNothing() throws {
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<1000).map { ItemSpec(id: "\($0)") })])
        #expect(model.sections[0].sizes == nil)
        #expect(model.sections[0].sizeSources == nil)
    }

    @Test("specs round-trip through the model")
    func specsRoundTrip() throws {
        let model = try Self.sample()
        let again = try CollectionModel(sections: model.specs)
        #expect(again.specs == model.specs)
        #expect(model.specs[1].items[0].estimatedSize == Size(width: 30, height: 40))
    }

    @Test(
        "invalid sizes are refused with the id and the field",
        arguments: [
            (ItemSpec(id: "x", size: Size(width: -1, height: 10)), "size"),
            (ItemSpec(id: "x", size: Size(width: .nan, height: 10)), "size"),
            (ItemSpec(id: "x", estimatedSize: Size(width: 10, height: .infinity)), "estimatedSize"),
            (ItemSpec(id: "x", selectedSize: Size(width: 10, height: -0.5)), "selectedSize"),
        ])
    func invalidSizes(item: ItemSpec, field: String) {
        #expect(throws: LayoutError.invalidSize(id: "x", field: field)) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "ok"), item])])
        }
    }

    @Test("invalid header and footer sizes are refused")
    func invalidSupplementarySizes() {
        #expect(throws: LayoutError.invalidSize(id: "s", field: "headerSize")) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: [], headerSize: Size(width: 0, height: -4))])
        }
        #expect(throws: LayoutError.invalidSize(id: "s", field: "footerSize")) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: [], footerSize: Size(width: .nan, height: 4))])
        }
    }

    @Test("duplicate and empty ids are refused with stable names")
    func duplicateIDs() {
        #expect(throws: LayoutError.duplicateItemID("x")) {
            try CollectionModel(sections: [
                SectionSpec(id: "a", items: [ItemSpec(id: "x")]), SectionSpec(id: "b", items: [ItemSpec(id: "x")]),
            ])
        }
        #expect(throws: LayoutError.duplicateSectionID("a")) {
            try CollectionModel(sections: [SectionSpec(id: "a", items: []), SectionSpec(id: "a", items: [])])
        }
        #expect(throws: LayoutError.invalidID("")) {
            try CollectionModel(sections: [SectionSpec(id: "a", items: [ItemSpec(id: "")])])
        }
        #expect(LayoutError.duplicateItemID("x").name == "DuplicateItemID")
        #expect(LayoutError.duplicateItemID("x").details == ["id": "x"])
    }

    @Test("section and item ids are separate namespaces")
    func separateNamespaces() throws {
        let model = try CollectionModel(sections: [SectionSpec(id: "x", items: [ItemSpec(id: "x")])])
        #expect(model.sectionIndex(of: "x") == 0)
        #expect(model.indexPath(ofItem: "x") == ItemIndexPath(section: 0, item: 0))
    }

    // MARK: Selection

    @Test("selection modes: set, add, remove, toggle")
    func selectionModes() throws {
        var model = try Self.sample()
        #expect(try model.select(["a1", "b1"], mode: .set) == ["a1", "b1"])
        #expect(model.selection == ["a1", "b1"])
        #expect(try model.select(["a1", "a2"], mode: .add) == ["a2"])
        #expect(try model.select(["b1", "b1"], mode: .remove) == ["b1"])
        #expect(model.selection == ["a1", "a2"])
        #expect(try model.select(["a1", "b1"], mode: .toggle) == ["a1", "b1"])
        #expect(model.selection == ["a2", "b1"])
        #expect(try model.select(["a1", "a1"], mode: .toggle) == [])
        #expect(model.selection == ["a2", "b1"])
        let changed = try model.select(["a1"], mode: .set)
        #expect(Set(changed) == ["a1", "a2", "b1"])
        #expect(model.selection == ["a1"])
    }

    @Test("selecting an unknown id changes nothing", arguments: SelectionMode.allCases)
    func unknownSelection(mode: SelectionMode) throws {
        var model = try Self.sample()
        try model.select(["a1"], mode: .set)
        #expect(throws: LayoutError.itemNotFound("nope")) { try model.select(["a2", "nope"], mode: mode) }
        #expect(model.selection == ["a1"])
    }

    // MARK: Measurement

    @Test("a measurement within the tolerance is a no-op")
    func measurementTolerance() throws {
        var model = try Self.sample()
        let defaultSize = Size(width: 50, height: 50)
        #expect(try model.applyMeasurements([("b1", Size(width: 30.49, height: 39.6))], defaultSize: defaultSize) == [])
        #expect(model.sections[1].sizeSources == [.estimated])
        #expect(
            try model.applyMeasurements([("b1", Size(width: 30, height: 40.5))], defaultSize: defaultSize)
                == [ItemIndexPath(section: 1, item: 0)])
        #expect(model.sections[1].sizeSources == [.measured])
        #expect(model.sections[1].sizes == [Size(width: 30, height: 40.5)])
    }

    @Test("measuring a default-sized item compares with the default and materialises sizes")
    func measuringDefaultItems() throws {
        var model = try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "p"), ItemSpec(id: "q")])])
        let defaultSize = Size(width: 50, height: 50)
        #expect(try model.applyMeasurements([("q", Size(width: 50.2, height: 50))], defaultSize: defaultSize) == [])
        #expect(model.sections[0].sizes == nil)
        _ = try model.applyMeasurements([("q", Size(width: 80, height: 50))], defaultSize: defaultSize)
        #expect(model.sections[0].sizeSources == [.strategyDefault, .measured])
        #expect(model.sections[0].baseSize(ofItem: 0, default: defaultSize) == defaultSize)
        #expect(model.sections[0].baseSize(ofItem: 1, default: defaultSize) == Size(width: 80, height: 50))
    }

    @Test("a batch of measurements with one bad entry changes nothing")
    func measurementAtomicity() throws {
        var model = try Self.sample()
        let before = model.specs
        #expect(throws: LayoutError.itemNotFound("ghost")) {
            try model.applyMeasurements([("a1", Size(width: 99, height: 99)), ("ghost", .zero)], defaultSize: .zero)
        }
        #expect(throws: LayoutError.invalidSize(id: "a2", field: "measuredSize")) {
            try model.applyMeasurements([("a1", Size(width: 99, height: 99)), ("a2", Size(width: -1, height: 1))], defaultSize: .zero)
        }
        #expect(model.specs == before)
    }
}

@Suite("viewport")
struct ViewportTests {
    @Test(
        "invalid viewports are refused",
        arguments: [
            Viewport(size: Size(width: 0, height: 600)),
            Viewport(size: Size(width: 375, height: 0)),
            Viewport(size: Size(width: -375, height: 600)),
            Viewport(size: Size(width: .nan, height: 600)),
            Viewport(size: Size(width: .infinity, height: 600)),
            Viewport(size: Size(width: 375, height: 600), offset: Point(x: 0, y: .nan)),
            Viewport(size: Size(width: 375, height: 600), contentInsets: EdgeInsets(top: .infinity, left: 0, bottom: 0, right: 0)),
        ])
    func invalid(viewport: Viewport) {
        #expect(throws: LayoutError.self) { try viewport.validate() }
        do {
            try viewport.validate()
        } catch {
            #expect(error.name == "InvalidViewport")
        }
    }

    @Test("a normal viewport is accepted and its bounds are offset + size")
    func valid() throws {
        let viewport = Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: -64))
        try viewport.validate()
        #expect(viewport.bounds == Rect(x: 0, y: -64, width: 375, height: 667))
    }
}
