/// A sequence of small counts (collapsible's advance flags) in chunks, with a Fenwick tree
/// over chunk sums: prefix sums and "first index reaching a sum" in O(log n + chunk), and an
/// insertion or removal rewrites one chunk instead of shifting everything after it.
struct ChunkedFlags: Sendable {
    static let chunkCapacity = 512

    private(set) var chunks: [[UInt8]] = []
    private var sums = FenwickTree<Int>([])
    private var counts = FenwickTree<Int>([])

    init(_ values: [UInt8]) {
        chunks = stride(from: 0, to: values.count, by: Self.chunkCapacity).map {
            Array(values[$0..<min($0 + Self.chunkCapacity, values.count)])
        }
        rebuild()
    }

    var count: Int { counts.total }

    var total: Int { sums.total }

    /// The sum of the first `count` values.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func prefixSum(_ count: Int) -> Int {
        guard count > 0 else { return 0 }
        guard count < self.count else { return total }
        let (chunk, offset) = locate(count)
        var sum = sums.prefixSum(chunk)
        for value in chunks[chunk][..<offset] { sum += Int(value) }
        return sum
    }

    /// The smallest `c` whose prefix sum of `c` values reaches `target`, or `count + 1`.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func firstCount(reaching target: Int) -> Int {
        guard target > 0 else { return 0 }
        let chunk = sums.firstCount(reaching: target) - 1
        guard chunk < chunks.count else { return count + 1 }
        var sum = sums.prefixSum(chunk)
        var index = counts.prefixSum(chunk)
        for value in chunks[chunk] {
            sum += Int(value)
            index += 1
            if sum >= target { return index }
        }
        return count + 1
    }

    subscript(index: Int) -> UInt8 {
        let (chunk, offset) = locate(index)
        return chunks[chunk][offset]
    }

    // MARK: Changes

    mutating func set(_ value: UInt8, at index: Int) {
        let (chunk, offset) = locate(index)
        let old = chunks[chunk][offset]
        guard old != value else { return }
        chunks[chunk][offset] = value
        sums.add(Int(value) - Int(old), at: chunk)
    }

    mutating func insert(contentsOf values: [UInt8], at index: Int) {
        guard !values.isEmpty else { return }
        guard !chunks.isEmpty else {
            self = ChunkedFlags(values)
            return
        }
        let (chunk, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(index)
        chunks[chunk].insert(contentsOf: values, at: offset)
        if chunks[chunk].count > 2 * Self.chunkCapacity {
            let half = chunks[chunk].count / 2
            let second = Array(chunks[chunk][half...])
            chunks[chunk].removeSubrange(half...)
            chunks.insert(second, at: chunk + 1)
            rebuild()
        } else {
            sums.add(values.reduce(0) { $0 + Int($1) }, at: chunk)
            counts.add(values.count, at: chunk)
        }
    }

    mutating func remove(at index: Int) {
        let (chunk, offset) = locate(index)
        let old = chunks[chunk].remove(at: offset)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            rebuild()
        } else {
            sums.add(-Int(old), at: chunk)
            counts.add(-1, at: chunk)
        }
    }

    // MARK: Private

    private func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        let chunk = counts.firstCount(reaching: index + 1) - 1
        return (chunk, index - counts.prefixSum(chunk))
    }

    private mutating func rebuild() {
        sums = FenwickTree(chunks.map { $0.reduce(0) { $0 + Int($1) } })
        counts = FenwickTree(chunks.map(\.count))
    }
}
