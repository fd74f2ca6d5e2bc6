import LayoutEngine
import Testing
import TestSupport

@Suite("block index")
struct BlockIndexTests {
    @Test("candidates cover every element overlapping the range, in increasing order", arguments: 0..<200)
    func coversOverlaps(seed: Int) {
        var random = SeededGenerator(seed: UInt64(seed))
        let count = Int.random(in: 0...700, using: &random)
        // Mostly increasing, with jumps back and long elements: what plugin layouts look like.
        var extents = [(min: Double, max: Double)]()
        var position = 0.0
        for _ in 0..<count {
            position += Double.random(in: -40...60, using: &random)
            extents.append((position, position + Double.random(in: 0...(Bool.random(using: &random) ? 30 : 400), using: &random)))
        }
        let index = BlockIndex(count: count) { extents[$0] }
        #expect(index.count == count)
        for _ in 0..<20 {
            let low = Double.random(in: -200...(position + 200), using: &random)
            let high = low + Double.random(in: 0...300, using: &random)
            var candidates = [Int]()
            index.forEachCandidate(from: low, to: high) { candidates.append($0) }
            #expect(candidates == candidates.sorted() && Set(candidates).count == candidates.count)
            let overlapping = extents.indices.filter { extents[$0].min <= high && extents[$0].max >= low }
            #expect(Set(overlapping).isSubset(of: Set(candidates)), "seed \(seed): missed \(Set(overlapping).subtracting(candidates))")
        }
    }

    @Test("a query far from every element visits none of them")
    func skipsDistantRuns() {
        let index = BlockIndex(count: 10_000) { (Double($0) * 10, Double($0) * 10 + 10) }
        var visited = 0
        index.forEachCandidate(from: 50_000, to: 50_100) { _ in visited += 1 }
        #expect(visited <= 2 * BlockIndex.blockSize)
        visited = 0
        index.forEachCandidate(from: 1e9, to: 2e9) { _ in visited += 1 }
        #expect(visited == 0)
    }
}
