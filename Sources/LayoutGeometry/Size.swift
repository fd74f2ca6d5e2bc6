/// A width and height in points.
public struct Size: Hashable, Sendable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public static let zero = Size(width: 0, height: 0)

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// Finite and not negative in both dimensions: the only sizes the engine accepts from clients.
    public var isValidExtent: Bool {
        width.isFinite && height.isFinite && width >= 0 && height >= 0
    }

    /// True when both dimensions differ by less than `tolerance`.
    public func isClose(to other: Size, tolerance: Double) -> Bool {
        abs(width - other.width) < tolerance && abs(height - other.height) < tolerance
    }

    public var description: String { "\(formatPoints(width))×\(formatPoints(height))" }
}
