/// Finds which of n elements may intersect a range along one axis, for layouts whose frames
/// come in no sorted order (plugins, waterfalls): elements are grouped in runs of
/// `blockSize` consecutive indices, and each run keeps the lowest start and highest end of its
/// elements. A query visits every run (n / 64 comparisons) and the elements of the runs that
/// overlap; layouts that place consecutive items near each other keep runs tight.
///
/// Building is O(n) with no sort, so a full layout pays nothing for it beyond one pass.
public struct BlockIndex: Sendable {
    public static let blockSize = 64

    @usableFromInline var lows: [Double] = []
    @usableFromInline var highs: [Double] = []
    @usableFromInline var elementCount = 0

    public var count: Int { elementCount }

    public init() {}

    /// Indexes `count` elements whose extents along the axis `range(index)` returns.
    /// Inlinable so that `range` is inlined into the caller's loop: it runs once per element
    /// of every full layout.
    @inlinable
    public init(count: Int, range: (Int) -> (min: Double, max: Double)) {
        elementCount = count
        let blocks = (count + Self.blockSize - 1) / Self.blockSize
        lows = [Double](repeating: .infinity, count: blocks)
        highs = [Double](repeating: -.infinity, count: blocks)
        for index in 0..<count {
            let extent = range(index)
            let block = index / Self.blockSize
            if extent.min < lows[block] { lows[block] = extent.min }
            if extent.max > highs[block] { highs[block] = extent.max }
        }
    }

    /// Calls `body` with every index whose run overlaps `low...high` (closed, so callers apply
    /// their own open or closed test), in increasing order.
    public func forEachCandidate(from low: Double, to high: Double, _ body: (Int) -> Void) {
        for block in lows.indices where lows[block] <= high && highs[block] >= low {
            let start = block * Self.blockSize
            for index in start..<min(start + Self.blockSize, elementCount) { body(index) }
        }
    }
}
