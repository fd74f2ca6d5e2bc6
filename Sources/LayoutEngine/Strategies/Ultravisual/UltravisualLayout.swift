import LayoutGeometry

/// The featured-cell layout of the Ultravisual tutorial (docs/layout-semantics.md, section 3): a
/// single full-width column where the featured item is tall and the next one grows into it as
/// the content scrolls, with snapping and the tutorial's cover, title and detail effects.
///
/// Items of all sections form one sequence (global index i). With `drag = featured − standard`:
/// featured index `F = clamp(trunc(offset.y / drag), 0, n−1)` (the tutorial has no upper
/// clamp, so past the end every cell jumped to standard height), progress
/// `p = offset.y / drag − F`, and frames
/// - i < F: `y = i·standard`, height standard (scrolled past, under the featured cell);
/// - i = F: `y = offset.y − standard·p`, height featured;
/// - i = F+1: height `standard + max(drag·p, 0)`, growing upward from `y_F + featured + standard`;
/// - i > F+1: `y = y_F + featured + (i−F−1)·standard`, height standard.
///
/// Nothing is stored per item: a scroll tick is O(1) plus the elements queried.
public final class UltravisualLayout: NativeStrategy {
    public static let descriptor = StrategyDescriptor(
        name: "ultravisual",
        summary: "featured cell that grows with the scroll offset, with snapping and parallax effects",
        parameters: [
            ParameterDescription(
                "standardHeight", .number(minimum: 0, maximum: nil), default: .number(100), "height of ordinary cells"),
            ParameterDescription(
                "featuredHeight", .number(minimum: 0, maximum: nil), default: .number(280),
                "height of the featured cell; must exceed standardHeight"),
            ParameterDescription(
                "maximumCoverAlpha", .number(minimum: 0, maximum: 1), default: .number(0.75),
                "coverAlpha of a standard cell"),
            ParameterDescription(
                "minimumCoverAlpha", .number(minimum: 0, maximum: 1), default: .number(0.3),
                "coverAlpha of the featured cell"),
            ParameterDescription(
                "minimumTitleScale", .number(minimum: 0, maximum: 1), default: .number(0.5),
                "titleScale never goes below this"),
            ParameterDescription(
                "snapping", .bool, default: .bool(true), "scrolling comes to rest with an item featured"),
        ])

    public let parameters: ResolvedParameters
    let standardHeight: Double
    let featuredHeight: Double
    let maximumCoverAlpha: Double
    let minimumCoverAlpha: Double
    let minimumTitleScale: Double
    let snaps: Bool

    /// See `LayoutStrategy.changeStart`: set by the updates that change nothing; a data change
    /// lays out again (every later item's featured geometry and zIndex move), so it is unknown.
    public private(set) var changeStart: Double?
    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    private(set) var items = GlobalItemIndex()

    // MARK: Lifecycle

    public init(parameters: ResolvedParameters) {
        self.parameters = parameters
        standardHeight = parameters.number("standardHeight")
        featuredHeight = parameters.number("featuredHeight")
        maximumCoverAlpha = parameters.number("maximumCoverAlpha")
        minimumCoverAlpha = parameters.number("minimumCoverAlpha")
        minimumTitleScale = parameters.number("minimumTitleScale")
        snaps = parameters.bool("snapping")
    }

    /// The drag distance `featured − standard` divides every offset: it must be positive.
    public static func validate(_ parameters: ResolvedParameters) throws(LayoutError) {
        guard parameters.number("featuredHeight") > parameters.number("standardHeight") else {
            throw .invalidParameter(parameter: "featuredHeight", reason: "must be greater than standardHeight")
        }
    }

    /// Every cache is a value: the copy shares its storage until one side changes it.
    public func copy(model: CollectionModel) -> any LayoutStrategy {
        let copy = UltravisualLayout(parameters: parameters)
        copy.viewport = viewport
        copy.items = items
        copy.changeStart = changeStart
        return copy
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { .vertical }

    public var defaultItemSize: Size { Size(width: viewport.size.width, height: standardHeight) }

    /// - Complexity: O(sections).
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        items = GlobalItemIndex(model)
        changeStart = nil
    }

    /// Selection does not change this layout.
    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        changeStart = .infinity
    }

    /// Sizes come from the parameters: measurements do not change this layout.
    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        changeStart = .infinity
    }

    /// Every offset change moves the featured and next cells; a resize changes widths and the
    /// content height. Nothing is recomputed ahead of queries either way.
    ///
    /// - Complexity: O(1).
    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let old = viewport
        viewport = newViewport
        if old.size != newViewport.size { return .layout }
        return old.offset.y != newViewport.offset.y ? .offsetDependent : .none
    }

    public var contentSize: Size {
        let count = itemCount
        guard count > 0 else { return Size(width: viewport.size.width, height: 0) }
        return Size(width: viewport.size.width, height: Double(count) * dragDistance + (viewport.size.height - dragDistance))
    }

    /// `round(proposed.y / drag)·drag`, clamped to the offsets where an item is featured,
    /// `[0, (n−1)·drag]` (the tutorial forgot the clamp). Velocity is not used, as in the
    /// tutorial: the proposed offset already carries the fling.
    public func targetContentOffset(proposed: Point, velocity: Point) -> Point {
        guard snaps, proposed.y.isFinite else { return proposed }
        let index = (proposed.y / dragDistance).rounded()
        let highest = Double(max(0, itemCount - 1))
        return Point(x: proposed.x, y: min(max(index, 0), highest) * dragDistance)
    }

    // MARK: Geometry

    var dragDistance: Double { featuredHeight - standardHeight }

    var itemCount: Int { items.itemCount }

    /// Featured index and progress for the current offset.
    var featured: (index: Int, progress: Double) {
        let position = viewport.offset.y / dragDistance
        guard position.isFinite, itemCount > 0 else { return (0, 0) }
        let index = Int(min(max(position.rounded(.towardZero), 0), Double(itemCount - 1)))
        return (index, position - Double(index))
    }

    /// The frame of the item with global index `index`.
    func frame(ofGlobal index: Int) -> Rect {
        let (featuredIndex, progress) = featured
        let width = viewport.size.width
        let featuredY = viewport.offset.y - standardHeight * progress
        switch index {
        case ..<featuredIndex:
            return Rect(x: 0, y: Double(index) * standardHeight, width: width, height: standardHeight)
        case featuredIndex:
            return Rect(x: 0, y: featuredY, width: width, height: featuredHeight)
        case featuredIndex + 1:
            let height = standardHeight + max(dragDistance * progress, 0)
            return Rect(x: 0, y: featuredY + featuredHeight + standardHeight - height, width: width, height: height)
        default:
            let y = featuredY + featuredHeight + Double(index - featuredIndex - 1) * standardHeight
            return Rect(x: 0, y: y, width: width, height: standardHeight)
        }
    }

    /// The tutorial's effects for a cell of height `height`: `delta = 1 − (featured − h)/drag`,
    /// coverAlpha from maximum (standard) to minimum (featured), titleScale `max(delta, min)`,
    /// detailAlpha `delta`.
    func effects(forHeight height: Double) -> [String: Double] {
        let delta = 1 - (featuredHeight - height) / dragDistance
        return [
            "coverAlpha": maximumCoverAlpha - delta * (maximumCoverAlpha - minimumCoverAlpha),
            "titleScale": max(delta, minimumTitleScale),
            "detailAlpha": delta,
        ]
    }
}
