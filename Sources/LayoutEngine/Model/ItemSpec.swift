import LayoutGeometry

/// An item as a client describes it.
///
/// Sizing, from most to least specific:
/// - `size`: an absolute size;
/// - `estimatedSize`: a guess the client will replace with a measured size (self-sizing);
/// - neither: the strategy's default (`itemSize`, or `estimatedItemSize` when the strategy
///   self-sizes). Sections whose items all use the default store no per-item sizes at all.
///
/// `selectedSize` is the open size of an expanding item: while the item is selected, it
/// replaces whichever of the above applies.
public struct ItemSpec: Hashable, Sendable {
    public var id: String
    public var size: Size?
    public var estimatedSize: Size?
    public var selectedSize: Size?

    public init(id: String, size: Size? = nil, estimatedSize: Size? = nil, selectedSize: Size? = nil) {
        self.id = id
        self.size = size
        self.estimatedSize = estimatedSize
        self.selectedSize = selectedSize
    }
}

/// A section as a client describes it. `headerSize` / `footerSize` override the strategy's
/// reference sizes for this section only (a main-axis extent of 0 means no element).
public struct SectionSpec: Hashable, Sendable {
    public var id: String
    public var items: [ItemSpec]
    public var headerSize: Size?
    public var footerSize: Size?

    public init(id: String, items: [ItemSpec], headerSize: Size? = nil, footerSize: Size? = nil) {
        self.id = id
        self.items = items
        self.headerSize = headerSize
        self.footerSize = footerSize
    }
}

/// Where an item's stored size came from.
public enum SizeSource: UInt8, Hashable, Sendable {
    /// No size of its own: the strategy's default applies (the stored value is meaningless).
    case strategyDefault
    case absolute
    /// A client's guess, still waiting for a measurement.
    case estimated
    case measured
}
