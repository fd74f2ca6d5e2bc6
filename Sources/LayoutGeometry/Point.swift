/// A position in points, origin top-left, y growing downwards.
public struct Point: Hashable, Sendable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public static let zero = Point(x: 0, y: 0)

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public var isFinite: Bool { x.isFinite && y.isFinite }

    public var description: String { "(\(formatPoints(x)), \(formatPoints(y)))" }
}

/// Prints whole numbers without a trailing `.0` so frames read like the semantics document.
@usableFromInline
func formatPoints(_ value: Double) -> String {
    if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
        return String(Int64(value))
    }
    return String(value)
}
