/// Prefix sums with O(log n) point updates (a binary indexed tree), over non-negative values.
///
/// Used wherever a position is "the sum of everything before it" and one element can change:
/// collapsible's stack slots (sum of "advances" flags), section offsets (sum of extents).
///
/// Values must stay non-negative: `firstCount(reaching:)` descends the tree assuming prefix
/// sums never decrease.
public struct FenwickTree<Value: AdditiveArithmetic & Comparable & Sendable>: Sendable {
    private var tree: [Value]

    // MARK: Lifecycle

    /// Builds the tree over `values` in O(n).
    public init(_ values: [Value]) {
        tree = values
        for index in tree.indices {
            let parent = index | (index + 1)
            if parent < tree.count { tree[parent] += tree[index] }
        }
    }

    // MARK: Queries

    public var count: Int { tree.count }

    /// The sum of the first `count` values.
    ///
    /// - Complexity: O(log n).
    public func prefixSum(_ count: Int) -> Value {
        var sum = Value.zero
        var index = min(count, tree.count) - 1
        while index >= 0 {
            sum += tree[index]
            index = (index & (index + 1)) - 1
        }
        return sum
    }

    /// The sum of all values.
    public var total: Value { prefixSum(tree.count) }

    /// The value at `index`.
    ///
    /// - Complexity: O(log n).
    public func value(at index: Int) -> Value { prefixSum(index + 1) - prefixSum(index) }

    /// The smallest `c` whose prefix sum of `c` values reaches `target` (`>= target`, or
    /// `> target` when `strictly`), or `count + 1` when even the total does not.
    ///
    /// - Complexity: O(log n).
    public func firstCount(reaching target: Value, strictly: Bool = false) -> Int {
        func below(_ sum: Value) -> Bool { strictly ? sum <= target : sum < target }
        if !below(.zero) { return 0 }
        // Largest c with prefixSum(c) still below the target, found bit by bit.
        var position = 0  // number of values consumed
        var sum = Value.zero
        var step = 1
        while step * 2 <= tree.count { step *= 2 }
        while step > 0 {
            let next = position + step
            if next <= tree.count, below(sum + tree[next - 1]) {
                position = next
                sum += tree[next - 1]
            }
            step /= 2
        }
        return position + 1
    }

    // MARK: Updates

    /// Adds `delta` to the value at `index`.
    ///
    /// - Complexity: O(log n).
    public mutating func add(_ delta: Value, at index: Int) {
        var index = index
        while index < tree.count {
            tree[index] += delta
            index = index | (index + 1)
        }
    }
}
