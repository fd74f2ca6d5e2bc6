/// `count` lines of equal `extent`, one every `pitch` points from 0 along the scroll axis: the
/// rows of every uniform grid. Which lines a range touches is arithmetic, settled against the
/// exact comparisons so floating-point rounding can neither drop nor add a line.
struct EvenlySpacedLines {
    var count: Int
    var extent: Double
    var pitch: Double

    func start(_ line: Int) -> Double { Double(line) * pitch }

    func end(_ line: Int) -> Double { start(line) + extent }

    /// Lines overlapping the open interval `(low, high)`, relative to the first line's start.
    ///
    /// - Complexity: O(1).
    func lines(overlapping low: Double, _ high: Double) -> Range<Int> {
        guard count > 0 else { return 0..<0 }
        guard pitch > 0 else {
            // Every line sits at 0 with no extent.
            return 0 > low && 0 < high ? 0..<count : 0..<0
        }
        func clamped(_ value: Double) -> Int {
            guard value.isFinite else { return value > 0 ? count : 0 }
            return Int(min(max(value, 0), Double(count)))
        }
        var first = clamped(((low - extent) / pitch).rounded(.down))
        while first < count && end(first) <= low { first += 1 }
        while first > 0 && end(first - 1) > low { first -= 1 }
        var last = clamped((high / pitch).rounded(.up))
        while last > first && start(last - 1) >= high { last -= 1 }
        while last < count && start(last) < high { last += 1 }
        return first..<max(first, last)
    }
}
