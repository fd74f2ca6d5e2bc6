import LayoutGeometry

/// What the client's scroll view shows: its size, the content offset, and content insets
/// (UIKit's adjusted content inset: at rest at the top, `offset.y == -contentInsets.top`).
public struct Viewport: Hashable, Sendable {
    public var size: Size
    public var offset: Point
    public var contentInsets: EdgeInsets

    public init(size: Size, offset: Point = .zero, contentInsets: EdgeInsets = .zero) {
        self.size = size
        self.offset = offset
        self.contentInsets = contentInsets
    }

    /// The visible rect in content coordinates.
    public var bounds: Rect { Rect(origin: offset, size: size) }

    /// The visible rect grown by `margin` before and after it along the scroll axis: what a
    /// client keeps on hand to scroll without waiting (its prefetch window).
    public func window(margin: Double, axis: Axis) -> Rect {
        axis == .vertical ? bounds.insetBy(dx: 0, dy: -margin) : bounds.insetBy(dx: -margin, dy: 0)
    }

    /// - Throws: `invalidViewport` unless the size is positive and the size, offset and insets
    ///   are within `LayoutBounds.maximumCoordinate` (so finite).
    public func validate() throws(LayoutError) {
        try Self.validate(size: size)
        try Self.validate(offset: offset)
        try Self.validate(contentInsets: contentInsets)
    }

    static func validate(size: Size) throws(LayoutError) {
        guard size.width.isFinite, size.height.isFinite, size.width > 0, size.height > 0 else {
            throw .invalidViewport(reason: "size must be finite and greater than zero, got \(size)")
        }
        guard size.isValidLayoutExtent else {
            throw .invalidViewport(reason: "size must be at most \(LayoutBounds.maximumText), got \(size)")
        }
    }

    static func validate(offset: Point) throws(LayoutError) {
        guard offset.isFinite else {
            throw .invalidViewport(reason: "offset must be finite, got \(offset)")
        }
        guard offset.isWithinLayoutBounds else {
            throw .invalidViewport(reason: "offset must be at most \(LayoutBounds.maximumText) in magnitude, got \(offset)")
        }
    }

    static func validate(contentInsets: EdgeInsets) throws(LayoutError) {
        guard contentInsets.isFinite else {
            throw .invalidViewport(reason: "content insets must be finite")
        }
        guard contentInsets.isWithinLayoutBounds else {
            throw .invalidViewport(reason: "content insets must be at most \(LayoutBounds.maximumText) in magnitude")
        }
    }
}
