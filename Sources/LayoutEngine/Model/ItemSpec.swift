import LayoutGeometry

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
