import LayoutGeometry

/// What `layoutctl render` draws: the elements of a region of a view, in content coordinates,
/// with the viewport and the content size.
public struct LayoutPicture: Sendable {
    public struct Element: Sendable, Hashable {
        public var id: String
        /// "cell", "header" or "footer".
        public var kind: String
        public var frame: Rect
        public var zIndex: Int
        public var alpha: Double
        public var hidden: Bool
        public var selected: Bool
        /// The element's affine transform in content points, applied about the frame's center
        /// (as UIKit applies a cell's `transform`: about its center, the default anchor point).
        public var transform: Transform2D
        /// The strategy's named effects (`coverAlpha`, `titleScale`…).
        public var effects: [String: Double]
        /// The item an interactive move drags (drawn under the finger).
        public var moving: Bool

        public init(
            id: String, kind: String, frame: Rect, zIndex: Int = 0, alpha: Double = 1, hidden: Bool = false, selected: Bool = false,
            transform: Transform2D = .identity, effects: [String: Double] = [:], moving: Bool = false
        ) {
            self.id = id
            self.kind = kind
            self.frame = frame
            self.zIndex = zIndex
            self.alpha = alpha
            self.hidden = hidden
            self.selected = selected
            self.transform = transform
            self.effects = effects
            self.moving = moving
        }
    }

    /// Shown above the drawing (view name, strategy, epoch).
    public var title: String
    public var contentSize: Size
    /// The visible rect (content offset and viewport size), outlined.
    public var viewport: Rect
    /// The part of the content drawn.
    public var region: Rect
    public var elements: [Element]
    /// Where the finger of an interactive move is, in content coordinates, if one is drawn.
    public var finger: Point?

    public init(title: String, contentSize: Size, viewport: Rect, region: Rect, elements: [Element], finger: Point? = nil) {
        self.title = title
        self.contentSize = contentSize
        self.viewport = viewport
        self.region = region
        self.elements = elements
        self.finger = finger
    }
}
