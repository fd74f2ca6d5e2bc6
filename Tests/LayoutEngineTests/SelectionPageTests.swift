import LayoutEngine
import LayoutGeometry
import Testing
import TestSupport

/// `CollectionModel.selectedItems(after:limit:)` (what `view.selection` pages through) against
/// the selection read off every item in order, for few selected items (their positions sorted)
/// and many (a walk), page by page.
@Suite("the selection a page at a time")
struct SelectionPageTests {
    @Test("pages, joined, are the selected items in data order", arguments: [0.01, 0.2, 0.9])
    func pagesJoinToTheSelection(fraction: Double) throws {
        var random = SeededGenerator(seed: 0x5E1EC7 + UInt64(fraction * 100))
        for _ in 0..<40 {
            let sections = (0..<Int.random(in: 1...5, using: &random)).map { section in
                SectionSpec(id: "s\(section)", items: (0..<Int.random(in: 0...300, using: &random)).map { ItemSpec(id: "s\(section)-\($0)") })
            }
            var model = try CollectionModel(sections: sections)
            let ids = sections.flatMap { $0.items.map(\.id) }
            let chosen = ids.filter { _ in Double.random(in: 0..<1, using: &random) < fraction }
            _ = try model.select(chosen.shuffled(using: &random), mode: .set)
            let expected = ids.filter(model.isSelected)
            let limit = Int.random(in: 1...40, using: &random)
            var read = [String]()
            var after: String?
            var pages = 0
            while true {
                let page = try model.selectedItems(after: after, limit: limit)
                #expect(page.ids.count <= limit)
                read += page.ids
                pages += 1
                guard page.more, let last = page.ids.last else { break }
                #expect(page.ids.count == limit, "a page before the last is full")
                after = last
            }
            #expect(read == expected, "limit \(limit): \(read.count) read, \(expected.count) selected")
            #expect(pages == max(1, (expected.count + limit - 1) / limit))
        }
    }

    @Test("after names a position: an item no longer selected still continues the reading; an unknown one is refused")
    func afterIsAPosition() throws {
        var model = try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<10).map { ItemSpec(id: "i\($0)") })])
        _ = try model.select(["i2", "i5", "i8"], mode: .set)
        #expect(try model.selectedItems(after: "i4", limit: 5).ids == ["i5", "i8"])
        #expect(try model.selectedItems(after: "i5", limit: 1) == (["i8"], false))
        #expect(try model.selectedItems(after: nil, limit: 1) == (["i2"], true))
        #expect(throws: LayoutError.itemNotFound("zz")) { try model.selectedItems(after: "zz", limit: 1) }
        #expect(try model.selectedItems(after: "i9", limit: 3) == ([], false))
    }
}
