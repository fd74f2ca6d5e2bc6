@testable import LayoutEngine
import LayoutGeometry
import TestSupport
import Testing

@Suite("chunked item lists")
struct ItemListTests {
    /// Tiny chunks so splits and emptied chunks happen constantly.
    @Test("random inserts, removals and size changes agree with a plain array", arguments: 0..<UInt64(60))
    func matchesArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var next = 0
        func record() -> ItemRecord {
            next += 1
            var record = ItemRecord(spec: ItemSpec(id: "i\(next)"))
            if Int.random(in: 0..<3, using: &random) == 0 {
                record.size = Size(width: Double(next), height: 1)
                record.source = .absolute
            }
            return record
        }
        var reference = (0..<Int.random(in: 0...20, using: &random)).map { _ in record() }
        var list = ItemList(reference, chunkCapacity: Int.random(in: 1...4, using: &random))
        var serials = [String: Int]()
        for chunk in list.chunks { for id in chunk.ids { serials[id] = chunk.serial } }
        for _ in 0..<200 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                let records = (0..<Int.random(in: 1...5, using: &random)).map { _ in record() }
                let index = Int.random(in: 0...reference.count, using: &random)
                reference.insert(contentsOf: records, at: index)
                for relocation in list.insert(records, at: index) {
                    #expect((relocation.from == nil) == (serials[relocation.id] == nil), "seed \(seed)")
                    #expect(relocation.from == nil || relocation.from == serials[relocation.id], "seed \(seed)")
                    serials[relocation.id] = relocation.to
                }
            case 2 where !reference.isEmpty:
                let index = Int.random(in: 0..<reference.count, using: &random)
                let removed = list.remove(at: index)
                #expect(removed.id == reference.remove(at: index).id)
                serials[removed.id] = nil
            default:
                guard !reference.isEmpty else { continue }
                let index = Int.random(in: 0..<reference.count, using: &random)
                let size = Size(width: Double(index), height: 7)
                list.setSize(size, source: .measured, at: index)
                reference[index].size = size
                reference[index].source = .measured
            }
            #expect(list.count == reference.count)
            if reference.contains(where: { $0.source != .strategyDefault }) { #expect(list.hasOwnSizes) }
            for (index, expected) in reference.enumerated() {
                #expect(list.id(at: index) == expected.id)
                let own = expected.source == .strategyDefault ? Size(width: -1, height: -1) : expected.size
                #expect(list.size(at: index, default: Size(width: -1, height: -1)) == own)
                var id = expected.id
                let position = id.withUTF8 { list.position(of: $0, hash: ItemIndex.hash($0), inChunk: serials[expected.id]!) }
                #expect(position == index, "seed \(seed)")
            }
            var walked = [String]()
            list.forEach(default: .zero) { _, id, _ in
                walked.append(id)
                return true
            }
            #expect(walked == reference.map(\.id))
            #expect(Array(ItemIDs(items: list)) == reference.map(\.id))
            // The bulk copy full layouts of plugins use gives what the per-item walk gives.
            let fallback = Size(width: -1, height: -1)
            let copied = [Size](unsafeUninitializedCapacity: list.count) { buffer, initialized in
                list.copySizes(into: buffer.baseAddress!, default: fallback)
                initialized = list.count
            }
            #expect(copied == reference.map { $0.source == .strategyDefault ? fallback : $0.size }, "seed \(seed)")
        }
    }

    @Test("a model keeps every index path right through many single-item batches")
    func modelPositions() throws {
        var random = SeededGenerator(seed: 42)
        var model = try CollectionModel(sections: [
            SectionSpec(id: "a", items: (0..<1500).map { ItemSpec(id: "a\($0)") }),
            SectionSpec(id: "b", items: (0..<700).map { ItemSpec(id: "b\($0)") }),
        ])
        var reference = [model.sections[0].itemIDs.map { $0 }, model.sections[1].itemIDs.map { $0 }]
        for step in 0..<600 {
            let section = Int.random(in: 0...1, using: &random)
            let sectionID = section == 0 ? "a" : "b"
            if Bool.random(using: &random) || reference[section].isEmpty {
                let index = Int.random(in: 0...reference[section].count, using: &random)
                try model.apply([.insertItems([ItemSpec(id: "n\(step)")], section: sectionID, at: index)])
                reference[section].insert("n\(step)", at: index)
            } else {
                let index = Int.random(in: 0..<reference[section].count, using: &random)
                try model.apply([.deleteItems([reference[section].remove(at: index)])])
            }
        }
        for (section, ids) in reference.enumerated() {
            #expect(Array(model.sections[section].itemIDs) == ids)
            for (item, id) in ids.enumerated() {
                #expect(model.indexPath(ofItem: id) == ItemIndexPath(section: section, item: item))
            }
        }
        #expect(model.numberOfItems == reference[0].count + reference[1].count)
    }
}
