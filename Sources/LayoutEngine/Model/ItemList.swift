import LayoutGeometry

/// A section's items, kept in chunks of a few hundred so that inserting or removing one item
/// moves at most a chunk's worth of memory, and positions come from prefix counts over chunks.
///
/// Each chunk has a serial that never changes while the chunk lives; the model's id index
/// points at (section, chunk serial), so an insertion does not renumber anything: an item's
/// position is the count of items in earlier chunks plus its offset in its own chunk.
/// Chunks store sizes only once one of their items has a size of its own, and their ids in an
/// `IDArena`.
struct ItemList: Sendable {
    struct Chunk: Sendable {
        var serial: Int
        /// The ids, in order, as UTF-8 back to back.
        private(set) var ids: IDArena
        /// The low byte of each id's `ItemIndex.hash`, so finding an id in a chunk scans bytes
        /// and compares ids only where the byte matches (1 in 256 of the others).
        private(set) var tags: [UInt8]
        /// Per-item sizes, or `nil` while every item of the chunk uses the strategy default.
        var sizes: SizeColumn?
        /// Parallel to `sizes`.
        var sources: [SizeSource]?

        var count: Int { ids.count }

        /// A chunk of `records`, its arrays sized exactly.
        init(serial: Int, _ records: some Collection<ItemRecord>) {
            self.serial = serial
            ids = IDArena(records.lazy.map(\.id))
            tags = []
            tags.reserveCapacity(records.count)
            for offset in ids.indices { tags.append(Self.tag(ids.withUTF8(at: offset, ItemIndex.hash))) }
            if records.contains(where: { $0.source != .strategyDefault }) {
                sizes = SizeColumn(records.lazy.map(\.size))
                sources = records.map(\.source)
            }
        }

        static func tag(_ hash: UInt32) -> UInt8 { UInt8(truncatingIfNeeded: hash) }

        /// The offset of the id `utf8` (whose `ItemIndex.hash` is `hash`) in this chunk,
        /// looking from `start` on.
        ///
        /// - Complexity: O(chunk size) byte comparisons, one id comparison per tag match.
        func offset(of utf8: UnsafeBufferPointer<UInt8>, hash: UInt32, from start: Int = 0) -> Int? {
            let tag = Self.tag(hash)
            return tags.withUnsafeBufferPointer { tags in
                var offset = start
                while offset < tags.count {
                    if tags[offset] == tag && ids.id(at: offset, equals: utf8) { return offset }
                    offset += 1
                }
                return nil
            }
        }

        mutating func insert(_ records: some Collection<ItemRecord>, at offset: Int) {
            ids.insert(contentsOf: records.lazy.map(\.id), at: offset)
            tags.insert(contentsOf: records.lazy.map { Self.tag(ItemIndex.hash($0.id)) }, at: offset)
            if sizes != nil {
                sizes!.insert(contentsOf: records.lazy.map(\.size), at: offset)
                sources!.insert(contentsOf: records.lazy.map(\.source), at: offset)
            }
        }

        mutating func remove(at offset: Int) {
            ids.remove(at: offset)
            tags.remove(at: offset)
            sizes?.remove(at: offset)
            sources?.remove(at: offset)
        }

        func record(at offset: Int) -> ItemRecord {
            ItemRecord(
                id: ids[offset], size: sizes?[offset] ?? .zero, source: sources?[offset] ?? .strategyDefault,
                selectedSize: nil)
        }
    }

    /// An item whose chunk changed in an insertion: a new one (`from == nil`) or one that moved
    /// to a new chunk when its chunk was cut up; what the model's id index needs to follow.
    struct Relocation {
        var id: String
        var from: Int?
        var to: Int
    }

    /// Chunks are filled to this size when built, and cut back to it past twice this size.
    static let defaultChunkCapacity = 512

    let chunkCapacity: Int

    private(set) var chunks: [Chunk] = []
    private var counts = FenwickTree<Int>([])
    /// Chunk ordinal by serial, -1 for chunks that no longer exist.
    private var ordinals: [Int] = []
    private(set) var count = 0
    private var chunksWithSizes = 0

    // MARK: Lifecycle

    /// - Parameter firstSerial: the first chunk's serial: a list emptied and filled again goes
    ///   on from its last serial, as splits do, so that a serial names one chunk in a list's life.
    init(
        _ records: some RandomAccessCollection<ItemRecord>, chunkCapacity: Int = defaultChunkCapacity, firstSerial: Int = 0
    ) {
        self.chunkCapacity = max(1, chunkCapacity)
        chunks.reserveCapacity((records.count + self.chunkCapacity - 1) / self.chunkCapacity)
        var start = records.startIndex
        while start < records.endIndex {
            let end = records.index(start, offsetBy: self.chunkCapacity, limitedBy: records.endIndex) ?? records.endIndex
            // A chunk's records as an array of their own: made once (`records` may be a lazy
            // view of specs) and gone once the chunk is built.
            chunks.append(Chunk(serial: firstSerial + chunks.count, Array(records[start..<end])))
            start = end
        }
        count = records.count
        rebuildIndex()
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

    /// Where the sizes of the items in `indices` (ascending) come from, in that order: one
    /// chunk lookup for the first and a walk along the chunks after it, so a window's run of
    /// items costs one O(log chunks) search, not one per item.
    func sources(at indices: [Int]) -> [SizeSource] {
        guard let first = indices.first else { return [] }
        var (chunk, offset) = locate(first)
        var current = first
        var result = [SizeSource]()
        result.reserveCapacity(indices.count)
        for index in indices {
            offset += index - current
            current = index
            while offset >= chunks[chunk].count {
                offset -= chunks[chunk].count
                chunk += 1
            }
            result.append(chunks[chunk].sources?[offset] ?? .strategyDefault)
        }
        return result
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

    /// The position of the id `utf8` (whose `ItemIndex.hash` is `hash`), if it lives in the
    /// chunk with `serial`.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func position(of utf8: UnsafeBufferPointer<UInt8>, hash: UInt32, inChunk serial: Int) -> Int? {
        guard let ordinal = ordinal(ofChunk: serial), let offset = chunks[ordinal].offset(of: utf8, hash: hash) else {
            return nil
        }
        return counts.prefixSum(ordinal) + offset
    }

    /// Whether the id `utf8` occurs twice in the chunk with `serial`: a duplicate that the
    /// id index, which stores no ids, cannot tell from two ids with one hash.
    func occursTwice(_ utf8: UnsafeBufferPointer<UInt8>, hash: UInt32, inChunk serial: Int) -> Bool {
        guard let ordinal = ordinal(ofChunk: serial),
            let first = chunks[ordinal].offset(of: utf8, hash: hash)
        else { return false }
        return chunks[ordinal].offset(of: utf8, hash: hash, from: first + 1) != nil
    }

    private func ordinal(ofChunk serial: Int) -> Int? {
        guard serial < ordinals.count, ordinals[serial] >= 0 else { return nil }
        return ordinals[serial]
    }

    // MARK: Writing

    /// Inserts `records` before position `index`.
    ///
    /// A chunk that would pass twice `chunkCapacity` is cut into chunks of `chunkCapacity`
    /// built with no spare capacity, so a load in large batches leaves what a load in one go
    /// does.
    ///
    /// - Returns: every item whose chunk changed (the inserted ones, and those that moved to a
    ///   new chunk), for the model's id index.
    /// - Complexity: O(chunk size + k + log chunks); cutting a chunk also renumbers, O(chunks).
    mutating func insert(_ records: [ItemRecord], at index: Int) -> [Relocation] {
        guard !records.isEmpty else { return [] }
        guard !chunks.isEmpty else {
            self = ItemList(records, chunkCapacity: chunkCapacity, firstSerial: ordinals.count)
            return chunks.flatMap { chunk in chunk.ids.map { Relocation(id: $0, from: nil, to: chunk.serial) } }
        }
        let (ordinal, offset) = index == count ? (chunks.count - 1, chunks[chunks.count - 1].count) : locate(index)
        count += records.count
        guard chunks[ordinal].count + records.count > 2 * chunkCapacity else {
            if records.contains(where: { $0.source != .strategyDefault }) { materializeSizes(ordinal) }
            chunks[ordinal].insert(records, at: offset)
            counts.add(records.count, at: ordinal)
            return records.map { Relocation(id: $0.id, from: nil, to: chunks[ordinal].serial) }
        }
        return cut(ordinal, inserting: records, at: offset)
    }

    /// Removes and returns the item at `index` (its selected size is the model's business).
    ///
    /// - Complexity: O(chunk size + log chunks); removing a chunk's last item renumbers, O(chunks).
    mutating func remove(at index: Int) -> ItemRecord {
        let (ordinal, offset) = locate(index)
        let record = chunks[ordinal].record(at: offset)
        chunks[ordinal].remove(at: offset)
        count -= 1
        if chunks[ordinal].count == 0 {
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
        walk(from: start, default: defaultSize) { first, chunk, run, sizes in
            for position in run {
                guard body(first + position - run.lowerBound, chunk.ids[position], sizes[position - run.lowerBound]) else {
                    return false
                }
            }
            return true
        }
    }

    /// Like `forEach`, without the ids: the full-layout loop reads only sizes.
    func forEachSize(from start: Int = 0, default defaultSize: Size, _ body: (Int, Size) -> Bool) {
        walk(from: start, default: defaultSize) { first, _, run, sizes in
            for position in run {
                guard body(first + position - run.lowerBound, sizes[position - run.lowerBound]) else { return false }
            }
            return true
        }
    }

    /// Writes every item's closed size, in order, to `target` (room for `count` sizes, which
    /// may be uninitialized: sizes are trivial values). A full layout's bulk read: a tight loop
    /// per chunk instead of a call per item.
    func copySizes(into target: UnsafeMutablePointer<Size>, default defaultSize: Size) {
        var index = 0
        for chunk in chunks {
            Self.copySizes(of: chunk, 0..<chunk.count, into: target + index, default: defaultSize)
            index += chunk.count
        }
    }

    /// Items a walk reads the sizes of at a time: enough that the loops per item run over
    /// plain sizes, few enough that a walk over one line (a window query walks line by line)
    /// copies little it does not read.
    private static let walkRun = 32

    /// Visits items in order from `start` in runs of up to `walkRun` within a chunk, each with
    /// the index of its first item, the chunk, the run's offsets in it and the run's closed
    /// sizes, until `visit` returns false.
    @inline(__always)
    private func walk(
        from start: Int, default defaultSize: Size, _ visit: (Int, Chunk, Range<Int>, UnsafeMutablePointer<Size>) -> Bool
    ) {
        guard start < count else { return }
        var (ordinal, offset) = locate(start)
        var index = start
        let sizes = UnsafeMutablePointer<Size>.allocate(capacity: Self.walkRun)
        defer { sizes.deallocate() }
        while ordinal < chunks.count {
            let chunk = chunks[ordinal]
            while offset < chunk.count {
                let run = offset..<min(offset + Self.walkRun, chunk.count)
                Self.copySizes(of: chunk, run, into: sizes, default: defaultSize)
                guard visit(index, chunk, run, sizes) else { return }
                index += run.count
                offset = run.upperBound
            }
            ordinal += 1
            offset = 0
        }
    }

    /// Writes the closed sizes of `chunk`'s items in `run` to `target`.
    private static func copySizes(of chunk: Chunk, _ run: Range<Int>, into target: UnsafeMutablePointer<Size>, default defaultSize: Size) {
        guard let sizes = chunk.sizes, let sources = chunk.sources else {
            target.initialize(repeating: defaultSize, count: run.count)
            return
        }
        sizes.copy(run, into: target)
        for position in run where sources[position] == .strategyDefault { target[position - run.lowerBound] = defaultSize }
    }

    // MARK: Private

    private mutating func materializeSizes(_ ordinal: Int) {
        guard chunks[ordinal].sizes == nil else { return }
        chunks[ordinal].sizes = SizeColumn(repeatElement(.zero, count: chunks[ordinal].count))
        chunks[ordinal].sources = Array(repeating: .strategyDefault, count: chunks[ordinal].count)
        chunksWithSizes += 1
    }

    /// Replaces chunk `ordinal`, with `records` inserted at `offset`, by chunks of
    /// `chunkCapacity`; the first keeps the chunk's serial, the others get new ones.
    private mutating func cut(_ ordinal: Int, inserting records: [ItemRecord], at offset: Int) -> [Relocation] {
        let old = chunks[ordinal]
        var combined = [ItemRecord]()
        combined.reserveCapacity(old.count + records.count)
        for position in 0..<offset { combined.append(old.record(at: position)) }
        combined += records
        for position in offset..<old.count { combined.append(old.record(at: position)) }
        var pieces = [Chunk]()
        var relocations = [Relocation]()
        var start = 0
        while start < combined.count {
            let end = min(start + chunkCapacity, combined.count)
            let serial = pieces.isEmpty ? old.serial : ordinals.count + pieces.count - 1
            pieces.append(Chunk(serial: serial, combined[start..<end]))
            for position in start..<end {
                let isNew = position >= offset && position < offset + records.count
                if isNew || serial != old.serial {
                    relocations.append(Relocation(id: combined[position].id, from: isNew ? nil : old.serial, to: serial))
                }
            }
            start = end
        }
        chunks.replaceSubrange(ordinal...ordinal, with: pieces)
        rebuildIndex()
        return relocations
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
