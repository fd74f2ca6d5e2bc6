/// How many items of extent `itemExtent`, `spacing` apart, fit in `available` points: the
/// largest m with `m·w + (m−1)·s <= available`, at least 1 (an item too wide still gets a line
/// of its own). `nil` when items take no room at all (`w + s == 0`): then any number fits.
///
/// The closed form is settled against the greedy test itself, so it agrees with a line built
/// item by item (`used + s + w <= available`) even where floating point rounds the division.
///
/// - Complexity: O(1).
func lineCapacity(itemExtent w: Double, spacing s: Double, available: Double) -> Int? {
    guard w + s > 0 else { return nil }
    let limit = 1 << 40
    func used(_ count: Int) -> Double { Double(count) * w + Double(count - 1) * s }
    let estimate = ((available + s) / (w + s)).rounded(.down)
    var capacity = estimate.isFinite ? Int(max(1, min(estimate, Double(limit)))) : limit
    while capacity > 1 && used(capacity) > available { capacity -= 1 }
    while capacity < limit && used(capacity + 1) <= available { capacity += 1 }
    return capacity
}
