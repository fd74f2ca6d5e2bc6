@testable import LayoutEngine
import LayoutGeometry
import Testing

@Suite("the compact model's id index")
struct CompactModelTests {
    static func ids(_ count: Int, _ kind: String) -> [String] {
        (0..<count).map { index in
            switch kind {
            case "uuid": "3f2b8c1e-9d4a-4f6b-8e2a-\(String(index, radix: 16).padding(12))"
            case "unicode": "項目-\(index)-é🧩"
            case "long": String(repeating: "l", count: 300) + "\(index)"
            default: "item-\(index)"
            }
        }
    }

    /// Duplicates in one chunk, in neighbouring chunks and far apart.
    @Test("a duplicate id is refused wherever it is", arguments: ["short", "uuid", "unicode", "long"], [(3, 7), (10, 600), (1, 1_900)])
    func duplicates(kind: String, positions: (Int, Int)) {
        var ids = Self.ids(2_000, kind)
        ids[positions.1] = ids[positions.0]
        #expect(throws: LayoutError.duplicateItemID(ids[positions.0])) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: ids.map { ItemSpec(id: $0) })])
        }
        // Across sections too.
        #expect(throws: LayoutError.duplicateItemID(ids[positions.0])) {
            try CollectionModel(sections: [
                SectionSpec(id: "a", items: ids[..<positions.1].map { ItemSpec(id: $0) }),
                SectionSpec(id: "b", items: ids[positions.1...].map { ItemSpec(id: $0) }),
            ])
        }
    }

    @Test("every id is found at its path, absent ones are not", arguments: ["short", "uuid", "unicode", "long"])
    func lookups(kind: String) throws {
        let ids = Self.ids(3_000, kind)
        let model = try CollectionModel(sections: [
            SectionSpec(id: "a", items: ids[..<1_234].map { ItemSpec(id: $0) }),
            SectionSpec(id: "b", items: ids[1_234...].map { ItemSpec(id: $0, size: Size(width: 1, height: 2)) }),
        ])
        #expect(model.numberOfItems == ids.count)
        for (index, id) in ids.enumerated() {
            let expected = index < 1_234 ? ItemIndexPath(section: 0, item: index) : ItemIndexPath(section: 1, item: index - 1_234)
            #expect(model.indexPath(ofItem: id) == expected)
            #expect(model.itemID(at: expected) == id)
        }
        for absent in ["", "item-", ids[0] + "x", String(ids[1].dropLast()), "e\u{301}"] {
            #expect(model.indexPath(ofItem: absent) == nil)
            #expect(!model.contains(item: absent))
        }
    }

    /// Ids are one id however their text is spelled (canonical equivalence, as everywhere in the
    /// engine): two spellings of "é" are a duplicate, and either finds the item.
    @Test("ids that differ only in Unicode normalization are one id")
    func normalization() throws {
        #expect(throws: LayoutError.duplicateItemID("e\u{301}")) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "\u{e9}"), ItemSpec(id: "e\u{301}")])])
        }
        #expect(throws: LayoutError.duplicateItemID("\u{212A}")) {
            try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "K"), ItemSpec(id: "\u{212A}")])])
        }
        var model = try CollectionModel(sections: [SectionSpec(id: "s", items: [ItemSpec(id: "a"), ItemSpec(id: "\u{e9}")])])
        #expect(model.indexPath(ofItem: "e\u{301}") == ItemIndexPath(section: 0, item: 1))
        #expect(throws: LayoutError.duplicateItemID("e\u{301}")) { try model.apply([.insertItems([ItemSpec(id: "e\u{301}")], section: "s", at: 0)]) }
        #expect(model.numberOfItems == 2)
    }

    @Test("batches of many items are cut into full chunks, and a refused batch changes nothing")
    func batchLoads() throws {
        var model = try CollectionModel(sections: [SectionSpec(id: "s", items: [])])
        let ids = Self.ids(20_000, "uuid")
        for start in stride(from: 0, to: ids.count, by: 5_000) {
            try model.apply([.insertItems(ids[start..<start + 5_000].map { ItemSpec(id: $0) }, section: "s", at: start)])
        }
        let chunks = model.sections[0].items.chunks
        #expect(chunks.allSatisfy { $0.count <= ItemList.defaultChunkCapacity })
        // No spare capacity beyond what malloc rounds up to.
        #expect(chunks.allSatisfy { $0.ids.bytes.capacity <= $0.ids.bytes.count + 24 && $0.tags.capacity <= $0.count + 24 })
        #expect(Array(model.sections[0].itemIDs) == ids)
        let before = Array(model.sections[0].itemIDs)
        #expect(throws: LayoutError.duplicateItemID(ids[7])) {
            try model.apply([.insertItems([ItemSpec(id: "new"), ItemSpec(id: ids[7])], section: "s", at: 0)])
        }
        #expect(Array(model.sections[0].itemIDs) == before)
        #expect(!model.contains(item: "new"))
        for (index, id) in ids.enumerated() where index % 97 == 0 { #expect(model.indexPath(ofItem: id)?.item == index) }
    }
}

private extension String {
    func padding(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
