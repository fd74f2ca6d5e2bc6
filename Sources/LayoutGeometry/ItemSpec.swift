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
///
/// It lives beside the geometry because the engine and the wire protocol share it: the
/// protocol's decoders build the engine's items (`WireItem` is this type), so a 1M-item load
/// holds one array of them, not a decoded copy and a converted one (issue 41).
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
