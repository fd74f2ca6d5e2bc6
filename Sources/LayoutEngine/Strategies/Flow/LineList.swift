import LayoutGeometry

/// One line of a flow section with varying sizes.
struct FlowLine: Hashable, Sendable {
    /// Items on the line.
    var count: Int
    /// Cross extent the items and their minimum spacing use.
    var used: Double
    /// The tallest item, along the scroll axis.
    var thickness: Double
    var placement: LinePlacement
}

/// The lines of a flow section, in chunks with prefix sums over chunks (items, lines, extent).
/// A line is found by item, by index or by position in O(log n + chunk), and replacing a few
/// lines rewrites one or two chunks instead of shifting every line after them. Line starts are
/// never stored: a line starts at the sum of the extents (`thickness + spacing`) before it,
/// relative to the section's first line.
struct LineList: Sendable {
    static let chunkCapacity = 256

    /// A line and where it is: its index, first item and start along the scroll axis.
    struct Position: Hashable {
        var line: Int
        var chunk: Int
        var offset: Int
        var firstItem: Int
        var mainStart: Double
    }

    let spacing: Double
    private(set) var chunks: [[FlowLine]] = []
    private var lineCounts = FenwickTree<Int>([])
    private var itemCounts = FenwickTree<Int>([])
    private var extents = FenwickTree<Double>([])

    // MARK: Lifecycle

    init(_ lines: [FlowLine], spacing: Double) {
        self.spacing = spacing
        chunks = Self.chunked(lines[...])
        rebuildSums()
    }

    // MARK: Queries

    var lineCount: Int { lineCounts.total }

    var itemCount: Int { itemCounts.total }

    /// From the first line's start to the last line's end.
    var mainExtent: Double { lineCount == 0 ? 0 : extents.total - spacing }

    var last: FlowLine? { chunks.last?.last }

    /// - Complexity: O(log chunks + chunk size).
    func position(ofLine line: Int) -> Position? {
        guard line >= 0, line < lineCount else { return nil }
        let chunk = lineCounts.firstCount(reaching: line + 1) - 1
        return scan(chunk: chunk) { position, _ in position.line == line }
    }

    /// The line holding `item`.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func position(containingItem item: Int) -> Position? {
        guard item >= 0, item < itemCount else { return nil }
        let chunk = itemCounts.firstCount(reaching: item + 1) - 1
        return scan(chunk: chunk) { position, line in position.firstItem + line.count > item }
    }

    /// The first line that ends after `main`, or `nil` if none does.
    ///
    /// - Complexity: O(log chunks + chunk size).
    func position(endingAfter main: Double) -> Position? {
        guard lineCount > 0 else { return nil }
        let chunk = max(0, min(chunks.count, extents.firstCount(reaching: main, strictly: true)) - 1)
        return scan(chunk: chunk) { position, line in position.mainStart + line.thickness > main }
    }

    func line(at position: Position) -> FlowLine { chunks[position.chunk][position.offset] }

    /// Calls `body` with each line from `start` on, until it returns false.
    func forEach(from start: Position, _ body: (Position, FlowLine) -> Bool) {
        var position = start
        while position.chunk < chunks.count {
            let lines = chunks[position.chunk]
            while position.offset < lines.count {
                let line = lines[position.offset]
                guard body(position, line) else { return }
                position.line += 1
                position.firstItem += line.count
                position.mainStart += line.thickness + spacing
                position.offset += 1
            }
            position.chunk += 1
            position.offset = 0
        }
    }

    /// Every line in order (for full checks and rebuilding).
    var all: [FlowLine] { chunks.flatMap { $0 } }

    // MARK: Changes

    /// Replaces the lines `range` with `lines`.
    ///
    /// - Complexity: O(chunk size + k) for k new lines, plus O(chunks) when the number of
    ///   chunks changes (every `chunkCapacity` lines gained or lost).
    mutating func replace(_ range: Range<Int>, with lines: [FlowLine]) {
        guard !chunks.isEmpty else {
            chunks = Self.chunked(lines[...])
            rebuildSums()
            return
        }
        let firstChunk = position(ofLine: range.lowerBound)?.chunk ?? chunks.count - 1
        let lastChunk = range.upperBound > range.lowerBound
            ? position(ofLine: range.upperBound - 1)!.chunk : firstChunk
        let before = lineCounts.prefixSum(firstChunk)
        var merged = chunks[firstChunk...lastChunk].flatMap { $0 }
        merged.replaceSubrange((range.lowerBound - before)..<(range.upperBound - before), with: lines)
        let replacement = Self.chunked(merged[...])
        if replacement.count == lastChunk - firstChunk + 1 {
            for (offset, chunk) in replacement.enumerated() { update(chunk: firstChunk + offset, to: chunk) }
        } else {
            chunks.replaceSubrange(firstChunk...lastChunk, with: replacement)
            rebuildSums()
        }
    }

    /// Replaces the placement of the last line.
    mutating func setLastPlacement(_ placement: LinePlacement) {
        guard var lines = chunks.last, !lines.isEmpty else { return }
        lines[lines.count - 1].placement = placement
        chunks[chunks.count - 1] = lines
    }

    // MARK: Private

    private mutating func update(chunk ordinal: Int, to lines: [FlowLine]) {
        let old = chunks[ordinal]
        chunks[ordinal] = lines
        lineCounts.add(lines.count - old.count, at: ordinal)
        itemCounts.add(Self.items(lines) - Self.items(old), at: ordinal)
        extents.add(extent(lines) - extent(old), at: ordinal)
    }

    /// Walks the lines from the start of `chunk` (on into later chunks) until `found` says yes.
    private func scan(chunk: Int, _ found: (Position, FlowLine) -> Bool) -> Position? {
        guard chunk >= 0, chunk < chunks.count else { return nil }
        var result: Position?
        let start = Position(
            line: lineCounts.prefixSum(chunk), chunk: chunk, offset: 0, firstItem: itemCounts.prefixSum(chunk),
            mainStart: extents.prefixSum(chunk))
        forEach(from: start) { position, line in
            guard found(position, line) else { return true }
            result = position
            return false
        }
        return result
    }

    /// Splits lines into as few chunks of at most `chunkCapacity` as possible, evenly.
    private static func chunked(_ lines: ArraySlice<FlowLine>) -> [[FlowLine]] {
        guard !lines.isEmpty else { return [] }
        let count = (lines.count + chunkCapacity - 1) / chunkCapacity
        let size = (lines.count + count - 1) / count
        return stride(from: lines.startIndex, to: lines.endIndex, by: size).map {
            Array(lines[$0..<min($0 + size, lines.endIndex)])
        }
    }

    private static func items(_ lines: [FlowLine]) -> Int { lines.reduce(0) { $0 + $1.count } }

    private func extent(_ lines: [FlowLine]) -> Double { lines.reduce(0) { $0 + $1.thickness + spacing } }

    private mutating func rebuildSums() {
        chunks.removeAll { $0.isEmpty }
        lineCounts = FenwickTree(chunks.map(\.count))
        itemCounts = FenwickTree(chunks.map(Self.items))
        extents = FenwickTree(chunks.map(extent))
    }
}
