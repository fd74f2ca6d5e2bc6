import LayoutGeometry

/// A section's items, kept in chunks of a few hundred so that inserting or removing one item
/// moves at most a chunk's worth of memory, and positions come from prefix counts over chunks.
///
/// Each chunk has a serial that never changes while the chunk lives; the model's id index
/// points at (section, chunk serial), so an insertion does not renumber anything: an item's
/// position is the count of items in earlier chunks plus its offset in its own chunk.
/// Chunks store sizes only once one of their items has a size of its own.
struct ItemList: Sendable {
    struct Chunk: Sendable {
        var serial: Int
        private(set) var ids: [String]
        /// `ids[i].hashValue`, so finding an id in a chunk scans integers, not strings.
        private(set) var hashes: [Int]
        /// Per-item sizes, or `nil` while every item of the chunk uses the strategy default.
        var sizes: [Size]?
        /// Parallel to `sizes`.
        var sources: [SizeSource]?

        var count: Int { ids.count }

        init(serial: Int, ids: [String]) {
            self.serial = serial
            self.ids = ids
            hashes = ids.map(\.hashValue)
        }

        /// The offset of `id` in this chunk.
        ///
        /// - Complexity: O(chunk size) integer comparisons, one string comparison per match.
        func offset(of id: String) -> Int? {
            let hash = id.hashValue
            for offset in hashes.indices where hashes[offset] == hash && ids[offset] == id { return offset }
            return nil
        }

        mutating func insertIDs(_ newIDs: [String], at offset: Int) {
            ids.insert(contentsOf: newIDs, at: offset)
            hashes.insert(contentsOf: newIDs.map(\.hashValue), at: offset)
        }

        mutating func removeID(at offset: Int) {
            ids.remove(at: offset)
            hashes.remove(at: offset)
        }

        /// Moves the ids from `offset` on into a new chunk with `serial` (sizes stay behind;
        /// the caller moves them).
        mutating func splitIDs(at offset: Int, serial: Int) -> Chunk {
            var second = Chunk(serial: serial, ids: [])
            second.ids = Array(ids[offset...])
            second.hashes = Array(hashes[offset...])
            ids.removeSubrange(offset...)
            hashes.removeSubrange(offset...)
            return second
        }
    }

    /// Chunks are filled to this size when built and split in half past twice this size.
    static let defaultChunkCapacity = 512

    let chunkCapacity: Int

    private(set) var chunks: [Chunk] = []
    private var counts = FenwickTree<Int>([])
    /// Chunk ordinal by serial, -1 for chunks that no longer exist.
    private var ordinals: [Int] = []
    private(set) var count = 0
    private var chunksWithSizes = 0

    // MARK: Lifecycle

    init(_ records: [ItemRecord], chunkCapacity: Int = defaultChunkCapacity) {
        self.chunkCapacity = max(1, chunkCapacity)
        var start = 0
        while start < records.count {
            let end = min(start + self.chunkCapacity, records.count)
            chunks.append(Self.chunk(serial: chunks.count, records[start..<end]))
            start = end
        }
        count = records.count
        rebuildIndex()
    }

    private static func chunk(serial: Int, _ records: ArraySlice<ItemRecord>) -> Chunk {
        var chunk = Chunk(serial: serial, ids: records.map(\.id))
        if records.contains(where: { $0.source != .strategyDefault }) {
            chunk.sizes = records.map(\.size)
            chunk.sources = records.map(\.source)
        }
        return chunk
    }

    // MARK: Reading

    /// Whether any item has a size of its own (a section can only be uniform without).
    var hasOwnSizes: Bool { chunksWithSizes > 0 }

    /// The chunk holding `index`, and the offset in it.
    ///
    /// - Complexity: O(log chunks).
    func locate(_ index: Int) -> (chunk: Int, offset: Int) {
        let chunk = counts.firstCount(reaching: index + 1) - 1
        return (chunk, index - counts.prefixSum(chunk))
    }

    func id(at index: Int) -> String {
        let (chunk, offset) = locate(index)
        return chunks[chunk].ids[offset]
    }

    func source(at index: Int) -> SizeSource {
        let (chunk, offset) = locate(index)
        return chunks[chunk].sources?[offset] ?? .strategyDefault
    }

    /// The item's own size, or `defaultSize` when it has none.
    func size(at index: Int, default defaultSize: Size) -> Size {
        let (chunk, offset) = locate(index)
        return Self.size(in: chunks[chunk], at: offset, default: defaultSize)
    }

    static func size(in chunk: Chunk, at offset: Int, default defaultSize: Size) -> Size {
        guard let sources = chunk.sources, sources[offset] != .strategyDefault else { return defaultSize }
        return chunk.sizes![offset]
    }

    func record(at index: Int, selectedSize: Size?) -> ItemRecord {
        let (chunk, offset) = locate(index)
        let stored = chunks[chunk]
        return ItemRecord(
            id: stored.ids[offset], size: stored.sizes?[offset] ?? .zero,
            source: stored.sources?[offset] ?? .strategyDefault, selectedSize: selectedSize)
    }

    /// The position of `id`, known to live in the chunk with `serial`.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func position(of id: String, inChunk serial: Int) -> Int? {
        guard serial < ordinals.count, ordinals[serial] >= 0 else { return nil }
        let ordinal = ordinals[serial]
        guard let offset = chunks[ordinal].offset(of: id) else { return nil }
        return counts.prefixSum(ordinal) + offset
    }

    // MARK: Writing

    /// Inserts `records` before position `index`.
    ///
    /// - Returns: every id whose chunk changed, with its new chunk serial (the inserted ids,
    ///   and those a split moved), for the model's id index.
    /// - Complexity: O(chunk size + k + log chunks); a split also renumbers the chunks, O(chunks).
    mutating func insert(_ records: [ItemRecord], at index: Int) -> [(id: String, serial: Int)] {
        guard !records.isEmpty else { return [] }
        if chunks.isEmpty {
            chunks = [Self.chunk(serial: ordinals.count, records[...])]
            count = records.count
            rebuildIndex()
            return records.map { ($0.id, chunks[0].serial) }
        }
        let (ordinal, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(index)
        let hadSizes = chunks[ordinal].sizes != nil
        if records.contains(where: { $0.source != .strategyDefault }) { materializeSizes(ordinal) }
        chunks[ordinal].insertIDs(records.map(\.id), at: offset)
        if chunks[ordinal].sizes != nil {
            chunks[ordinal].sizes!.insert(contentsOf: records.map(\.size), at: offset)
            chunks[ordinal].sources!.insert(contentsOf: records.map(\.source), at: offset)
        }
        if !hadSizes && chunks[ordinal].sizes != nil { chunksWithSizes += 1 }
        count += records.count
        var moved = records.map { ($0.id, chunks[ordinal].serial) }
        if chunks[ordinal].count > 2 * chunkCapacity {
            moved += split(ordinal)
        } else {
            counts.add(records.count, at: ordinal)
        }
        return moved
    }

    /// Removes and returns the item at `index` (its selected size is the model's business).
    ///
    /// - Complexity: O(chunk size + log chunks); removing a chunk's last item renumbers, O(chunks).
    mutating func remove(at index: Int) -> ItemRecord {
        let record = record(at: index, selectedSize: nil)
        let (ordinal, offset) = locate(index)
        chunks[ordinal].removeID(at: offset)
        chunks[ordinal].sizes?.remove(at: offset)
        chunks[ordinal].sources?.remove(at: offset)
        count -= 1
        if chunks[ordinal].ids.isEmpty {
            if chunks[ordinal].sizes != nil { chunksWithSizes -= 1 }
            chunks.remove(at: ordinal)
            rebuildIndex()
        } else {
            counts.add(-1, at: ordinal)
        }
        return record
    }

    /// Replaces the size of the item at `index`.
    mutating func setSize(_ size: Size, source: SizeSource, at index: Int) {
        let (ordinal, offset) = locate(index)
        if source != .strategyDefault { materializeSizes(ordinal) }
        guard chunks[ordinal].sizes != nil else { return }
        chunks[ordinal].sizes![offset] = size
        chunks[ordinal].sources![offset] = source
    }

    // MARK: Iteration

    /// Calls `body` with each item's index, id and own size (or `defaultSize`), in order from
    /// `start`, until it returns false: how layouts read a section without a lookup per item.
    func forEach(from start: Int = 0, default defaultSize: Size, _ body: (Int, String, Size) -> Bool) {
        walk(from: start) { index, chunk, offset, ids, sizes, sources in
            let size = sizes.map { sources![offset] == .strategyDefault ? defaultSize : $0[offset] } ?? defaultSize
            return body(index, ids[offset], size)
        }
    }

    /// Like `forEach`, without the ids: the full-layout loop reads only sizes.
    func forEachSize(from start: Int = 0, default defaultSize: Size, _ body: (Int, Size) -> Bool) {
        walk(from: start) { index, chunk, offset, _, sizes, sources in
            body(index, sizes.map { sources![offset] == .strategyDefault ? defaultSize : $0[offset] } ?? defaultSize)
        }
    }

    /// Writes every item's closed size, in order, to `target` (room for `count` sizes, which
    /// may be uninitialized: sizes are trivial values). A full layout's bulk read: a tight loop
    /// per chunk instead of a call per item.
    func copySizes(into target: UnsafeMutablePointer<Size>, default defaultSize: Size) {
        var index = 0
        for chunk in chunks {
            if let sizes = chunk.sizes, let sources = chunk.sources {
                for offset in 0..<chunk.count {
                    target[index + offset] = sources[offset] == .strategyDefault ? defaultSize : sizes[offset]
                }
            } else {
                (target + index).initialize(repeating: defaultSize, count: chunk.count)
            }
            index += chunk.count
        }
    }

    /// Visits items in order from `start`, handing each chunk's arrays over once per chunk.
    @inline(__always)
    private func walk(
        from start: Int,
        _ visit: (Int, Int, Int, [String], [Size]?, [SizeSource]?) -> Bool
    ) {
        guard start < count else { return }
        var (ordinal, offset) = locate(start)
        var index = start
        while ordinal < chunks.count {
            let ids = chunks[ordinal].ids
            let sizes = chunks[ordinal].sizes
            let sources = chunks[ordinal].sources
            while offset < ids.count {
                guard visit(index, ordinal, offset, ids, sizes, sources) else { return }
                index += 1
                offset += 1
            }
            ordinal += 1
            offset = 0
        }
    }

    // MARK: Private

    private mutating func materializeSizes(_ ordinal: Int) {
        guard chunks[ordinal].sizes == nil else { return }
        chunks[ordinal].sizes = Array(repeating: .zero, count: chunks[ordinal].count)
        chunks[ordinal].sources = Array(repeating: .strategyDefault, count: chunks[ordinal].count)
        chunksWithSizes += 1
    }

    /// Splits an over-full chunk in two; the second half gets a new serial.
    private mutating func split(_ ordinal: Int) -> [(id: String, serial: Int)] {
        let half = chunks[ordinal].count / 2
        var second = chunks[ordinal].splitIDs(at: half, serial: ordinals.count)
        if let sizes = chunks[ordinal].sizes, let sources = chunks[ordinal].sources {
            second.sizes = Array(sizes[half...])
            second.sources = Array(sources[half...])
            chunks[ordinal].sizes!.removeSubrange(half...)
            chunks[ordinal].sources!.removeSubrange(half...)
            chunksWithSizes += 1
        }
        chunks.insert(second, at: ordinal + 1)
        rebuildIndex()
        return second.ids.map { ($0, second.serial) }
    }

    /// Recomputes chunk ordinals and prefix counts after chunks were added or removed.
    private mutating func rebuildIndex() {
        let highest = chunks.map(\.serial).max() ?? -1
        ordinals = Array(repeating: -1, count: max(highest + 1, ordinals.count))
        for (ordinal, chunk) in chunks.enumerated() { ordinals[chunk.serial] = ordinal }
        counts = FenwickTree(chunks.map(\.count))
        chunksWithSizes = chunks.count { $0.sizes != nil }
    }
}
