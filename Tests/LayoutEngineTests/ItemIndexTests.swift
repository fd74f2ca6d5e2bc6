@testable import LayoutEngine
import TestSupport
import Testing

@Suite("open-addressing item index")
struct ItemIndexTests {
    typealias Location = ItemIndex.Location

    /// A multiset of (hash, location) pairs, the index's whole contract.
    struct Reference {
        var pairs: [UInt32: [Location]] = [:]
        var count: Int { pairs.values.reduce(0) { $0 + $1.count } }
    }

    /// Checks that every pair is found, and that absent ones are not.
    static func check(_ index: ItemIndex, _ reference: Reference, hashes: ClosedRange<UInt32>, comment: Comment) {
        #expect(index.count == reference.count, comment)
        for hash in hashes {
            let expected = reference.pairs[hash] ?? []
            for location in expected {
                #expect(index.first(hash: hash) { $0 == location } == location, comment)
            }
            // An absent location under a present or absent hash is not found.
            #expect(index.first(hash: hash) { $0.section == 9_999 } == nil, comment)
        }
        #expect(Double(index.count) <= Double(index.capacity) * ItemIndex.maximumLoad, comment)
    }

    /// Hashes from a small range collide all the time (same hash, and same home slot), which is
    /// what probing and the backward shift have to get right.
    static let hashRanges: [ClosedRange<UInt32>] = [0...3, 0...40, UInt32.max - 30...UInt32.max, 0...5_000]

    @Test("random inserts, removals and replacements agree with a multiset", arguments: 0..<UInt64(4))
    func matchesMultiset(seed: UInt64) {
        let hashes = Self.hashRanges[Int(seed)]
        var random = SeededGenerator(seed: seed)
        var index = ItemIndex()
        var reference = Reference()
        for step in 0..<2_000 {
            let hash = UInt32.random(in: hashes, using: &random)
            let location = Location(section: Int32.random(in: 0...3, using: &random), chunk: Int32.random(in: 0...3, using: &random))
            switch Int.random(in: 0..<5, using: &random) {
            case 0, 1, 2:
                index.insert(hash: hash, location)
                reference.pairs[hash, default: []].append(location)
            case 3:
                let present = reference.pairs[hash]?.firstIndex(of: location)
                let removed = index.remove(hash: hash, location)
                #expect(removed == (present != nil), "step \(step)")
                if let present { reference.pairs[hash]!.remove(at: present) }
            default:
                guard let old = reference.pairs[hash]?.first else { continue }
                index.replace(hash: hash, old, with: location)
                reference.pairs[hash]![0] = location
            }
            if step % 100 == 0 { Self.check(index, reference, hashes: hashes, comment: "seed \(seed), step \(step)") }
        }
        Self.check(index, reference, hashes: hashes, comment: "seed \(seed), end")
    }

    @Test("grows as items come, and a reserved index does not grow")
    func growth() {
        var index = ItemIndex()
        var capacities = Set<Int>()
        for hash in 0..<UInt32(10_000) {
            index.insert(hash: hash &* 2_654_435_761, Location(section: 0, chunk: Int32(hash / 512)))
            capacities.insert(index.capacity)
        }
        #expect(capacities.count > 5)
        #expect(Double(index.count) / Double(index.capacity) >= ItemIndex.targetLoad * 0.99)
        var reserved = ItemIndex(capacity: 10_000)
        let capacity = reserved.capacity
        for hash in 0..<UInt32(10_000) { reserved.insert(hash: hash, Location(section: 1, chunk: 0)) }
        #expect(reserved.capacity == capacity)
        // Removing everything leaves an empty table that finds nothing.
        for hash in 0..<UInt32(10_000) {
            let removed = reserved.remove(hash: hash, Location(section: 1, chunk: 0))
            #expect(removed)
        }
        #expect(reserved.count == 0)
        #expect(reserved.first(hash: 17) { _ in true } == nil)
    }

    @Test("lookups in an empty index find nothing")
    func empty() {
        var index = ItemIndex()
        #expect(index.first(hash: 0) { _ in true } == nil)
        let removed = index.remove(hash: 0, Location(section: 0, chunk: 0))
        #expect(!removed)
    }

    @Test("hashes are of the canonical text: one per id however it is spelled, any length")
    func hashes() {
        var bytes = Array("e\u{301}".utf8)
        let decomposed = bytes.withUnsafeMutableBufferPointer { ItemIndex.hash(UnsafeBufferPointer($0)) }
        #expect(ItemIndex.hash("e\u{301}") == decomposed)
        #expect(ItemIndex.hash("\u{e9}") == decomposed, "composed and decomposed é are one id")
        #expect(ItemIndex.hash("\u{212A}") == ItemIndex.hash("K"), "KELVIN SIGN is K")
        let long = String(repeating: "x", count: 100_000)
        #expect(ItemIndex.hash(long) == ItemIndex.hash(String(repeating: "x", count: 100_000)))
        #expect(ItemIndex.hash(long) != ItemIndex.hash(long + "y"))
    }
}
