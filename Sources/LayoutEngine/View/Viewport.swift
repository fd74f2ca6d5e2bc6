import LayoutGeometry

/// What the client's scroll view shows: its size, the content offset, and content insets
/// (UIKit's adjusted content inset: at rest at the top, `offset.y == -contentInsets.top`).
public struct Viewport: Hashable, Sendable {
    public var size: Size
    public var offset: Point
    public var contentInsets: EdgeInsets
    /// The safe area's insets from the viewport's edges (UIKit's `safeAreaInsets`): what
    /// `safeArea`-referenced section insets count from (compositional layout).
    public var safeAreaInsets: EdgeInsets
    /// The scroll view's layout margins, safe area included (UIKit's `directionalLayoutMargins`):
    /// what `layoutMargins`-referenced insets count from.
    public var layoutMargins: EdgeInsets
    /// The readable content width (UIKit's `readableContentGuide` width), or `nil` for no limit:
    /// `readableContent`-referenced insets centre the content at most this wide.
    public var readableWidth: Double?

    public init(
        size: Size, offset: Point = .zero, contentInsets: EdgeInsets = .zero,
        safeAreaInsets: EdgeInsets = .zero, layoutMargins: EdgeInsets = .zero, readableWidth: Double? = nil
    ) {
        self.size = size
        self.offset = offset
        self.contentInsets = contentInsets
        self.safeAreaInsets = safeAreaInsets
        self.layoutMargins = layoutMargins
        self.readableWidth = readableWidth
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
        try Self.validate(margins: safeAreaInsets, layoutMargins: layoutMargins, readableWidth: readableWidth)
    }

    /// - Throws: `invalidViewport` unless the margins are finite, not negative and within the
    ///   layout bound, and a readable width is positive.
    public static func validate(margins safeArea: EdgeInsets, layoutMargins: EdgeInsets, readableWidth: Double?) throws(LayoutError) {
        for (name, insets) in [("safe area insets", safeArea), ("layout margins", layoutMargins)] {
            guard insets.isFinite, insets.isNonNegative, insets.isWithinLayoutBounds else {
                throw .invalidViewport(reason: "\(name) must be finite, not negative and at most \(LayoutBounds.maximumText)")
            }
        }
        if let readableWidth {
            guard readableWidth.isFinite, readableWidth > 0, LayoutBounds.contains(readableWidth) else {
                throw .invalidViewport(reason: "readable width must be greater than zero and at most \(LayoutBounds.maximumText)")
            }
        }
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
