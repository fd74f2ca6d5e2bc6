import LayoutGeometry

/// A layout algorithm: built from typed parameters, it prepares frames for a model and a
/// viewport and answers queries about them.
///
/// A strategy is a cache over a model it does not own: every call that needs the model is
/// passed it, and the caller must pass the model the strategy was last prepared with (or told
/// about through `selectionDidChange`, `sizesDidChange` or `dataDidChange`). `Layout` keeps that
/// pairing for you; use it rather than driving a strategy by hand. Not owning the model is what
/// lets the owner mutate it in place, so a selection toggle, a measurement or an insertion
/// costs what the strategy's incremental update costs, never a copy of the model.
///
/// A strategy instance belongs to one layout and is used from one thread at a time.
/// Implementations must stay pure: no I/O, no clocks, no randomness, so the same inputs give
/// the same frames everywhere.
public protocol LayoutStrategy: AnyObject {
    /// Name, summary and parameters of the strategy this is an instance of.
    var descriptor: StrategyDescriptor { get }

    /// The parameters the strategy was built with.
    var parameters: ResolvedParameters { get }

    /// A new instance of the same strategy built from `parameters` (resolved against
    /// `descriptor`): what `Layout.reconfigure` switches to.
    ///
    /// - Throws: `invalidParameter` when the values do not go together.
    func reconfigured(with parameters: ResolvedParameters) throws(LayoutError) -> any LayoutStrategy

    /// An independent instance in the same state, prepared for `model` (the model this one
    /// was last prepared with or told about): what a dry run mutates instead of this one.
    /// Nothing the copy does afterwards may change this instance.
    ///
    /// The default builds a fresh instance from `parameters` and prepares it from scratch
    /// (O(n)), which gives the same frames because a strategy depends on its input only and
    /// its incremental updates must equal a full layout. The built-in strategies override it
    /// with a copy of their value-typed caches (copy-on-write: O(1) until the copy changes).
    ///
    /// - Throws: what `reconfigured(with:)` throws (a plugin refusing a second instance).
    func copy(model: CollectionModel) throws(LayoutError) -> any LayoutStrategy

    /// The direction the content scrolls in.
    var scrollAxis: Axis { get }

    /// The size items without their own size take: what a measurement of such an item is
    /// compared against.
    var defaultItemSize: Size { get }

    /// Whether `defaultItemSize` is an estimate that clients replace by measuring (flow's
    /// `estimatedItemSize`), so items without a size of their own still need measuring.
    var estimatesDefaultSize: Bool { get }

    /// The viewport of the last `prepare` or `updateViewport`.
    var viewport: Viewport { get }

    /// Lays out `model` for `viewport` from scratch. The viewport has been validated.
    func prepare(model: CollectionModel, viewport: Viewport)

    /// The selection of `ids` changed in `model`; everything else is as last prepared.
    func selectionDidChange(_ ids: [String], model: CollectionModel)

    /// Items changed size in `model` (measurements); every edit is `.resized`.
    func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel)

    /// Items or sections were inserted, deleted, moved or reloaded in `model` (a batch).
    func dataDidChange(_ changes: DataChanges, model: CollectionModel)

    /// Where the last `selectionDidChange`, `sizesDidChange` or `dataDidChange` began along the
    /// scroll axis: every element it changed, added or removed starts (its frame's minimum
    /// along the scroll axis) at or after this coordinate, both before and after the update,
    /// and every element starting before it kept all its attributes, bit for bit. `infinity`
    /// when the update changed no element. A view then diffs only the part of its window from
    /// there on.
    ///
    /// `nil` when the strategy does not know: the view diffs the whole window. That is the
    /// default (a plugin's adapter inherits it) and what a full `prepare` leaves.
    var changeStart: Double? { get }

    /// Takes a new viewport (scroll, resize), recomputing whatever it affects.
    ///
    /// - Returns: which frames may have changed, so a caller knows whether to re-query.
    func updateViewport(_ viewport: Viewport, model: CollectionModel) -> ViewportInvalidation

    /// The size of all content, in points (content insets not included, as in UIKit).
    var contentSize: Size { get }

    /// Every element whose frame intersects `rect` (open intersection, see `Rect.intersects`),
    /// in no guaranteed order.
    func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes]

    /// How far beyond its frame any element's drawn area reaches, its transform applied around
    /// the frame's centre (0 when no element has a transform, the default): how much farther
    /// than the point itself hit testing must look.
    var transformOverhang: Double { get }

    /// The range across the scroll axis (x for a vertical layout) that holds every cell, when
    /// cells can lie outside the content there: compositional's orthogonally scrolling sections
    /// lay their cells past the content's width and, scrolled, before its start. `nil` (the
    /// default) when across the scroll axis every cell lies within the content. Keyboard moves
    /// (`Layout.neighbor`) search this far.
    func cellCrossRange(model: CollectionModel) -> (min: Double, max: Double)?

    /// The attributes of one cell, or `nil` if the id is not in the model.
    func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes?

    /// For a strategy whose cells move with the offset (ultravisual): the offset along the
    /// scroll axis at which `edge` of cell `id` lies `distance` points past the viewport's leading
    /// edge, unclamped; `nil` (the default) when the cell's frame does not depend on the offset,
    /// so the frame where it is gives the answer. `view.scrollTo` and element anchors use it; a
    /// strategy that moves cells with the offset and does not answer is solved for numerically.
    func offset(placing id: String, edge: AnchorEdge, at distance: Double, model: CollectionModel) -> Double?

    /// The attributes of the element of `kind` (not a cell) with key id `id`, or `nil` if there
    /// is none: a section's header, footer or other boundary or decoration element by section
    /// id; an element anchored to an item (a badge) by item id.
    func attributes(forSupplementary kind: ElementKind, id: String, model: CollectionModel) -> LayoutAttributes?

    /// Where scrolling should come to rest when the user lifts a finger at `proposed` with
    /// `velocity` (points per second). Snapping strategies round; others return `proposed`.
    func targetContentOffset(proposed: Point, velocity: Point) -> Point

    /// Where an inserted element animates in from, given where it ends up in `model`.
    func initialAttributes(forAppearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes

    /// Where a deleted element animates out to, given where it was.
    func finalAttributes(forDisappearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes

    /// Timing for the animated change from `previous` (the layout before a reconfiguration or
    /// a strategy switch) to this one. `moves` holds one segment per affected element, from its
    /// old to its new attributes; the strategy sets delays and durations, and may split an
    /// element's move into consecutive segments.
    func planTransition(from previous: any LayoutStrategy, moves: [TransitionSegment], model: CollectionModel) -> Transition

    /// Where an interactive move of item `id`, now at `current` in `model`, drops when the
    /// finger proposes `proposed` (both final positions of the moving unit's first item:
    /// section index, and item index in the data without the moving unit, which is the first
    /// item's index once the unit is there): `proposed` itself, another position the strategy
    /// prefers (a collapsible stack is never split), or nil to refuse it (the target stays).
    /// The default takes every proposal, so plugins answer from frames only.
    func moveTarget(proposing proposed: ItemIndexPath, for id: String, at current: ItemIndexPath, model: CollectionModel) -> ItemIndexPath?

    /// The items that move together when a client drags item `id` (at `path`): a range of
    /// item indices in `path.section` that holds `path.item`, moved as one unit and drawn
    /// together under the finger (a collapsible stack moves as one). The default is the item
    /// alone.
    ///
    /// - Complexity: O(r) for a unit of r items is expected.
    func moveUnit(for id: String, at path: ItemIndexPath, model: CollectionModel) -> Range<Int>

    /// The kinds besides cells this strategy's elements may have, and for each whether its key
    /// id is an item id (a badge) rather than a section id. The default: header and footer.
    var supplementaryKinds: [SupplementaryKind] { get }

    /// For a section that scrolls across the main direction on its own (compositional's
    /// orthogonal sections): its offset and range; `nil` for every other section (the default).
    func sectionScroll(ofSection index: Int, model: CollectionModel) -> SectionScroll?

    /// Moves section `index`, one `sectionScroll` answers for, to `offset` across the scroll
    /// axis, and sets `changeStart`. Not clamped: a client may rubber-band.
    ///
    /// - Returns: where along the scroll axis every element that moved starts (from
    ///   `changeStart` up to the bound): the view diffs that band alone, so a carousel's step
    ///   costs the carousel's elements, not the window's. `nil`: from `changeStart` on.
    func scrollSection(_ index: Int, to offset: Double, model: CollectionModel) -> Double?

    /// Where section `index` comes to rest when the finger lifts at `proposed` with `velocity`
    /// (points per second across the scroll axis): its snapping rule, within its range.
    func targetSectionOffset(section index: Int, proposed: Double, velocity: Double, model: CollectionModel) -> Double

    /// Self-sizing for elements other than cells: measured sizes of existing supplementary
    /// elements (`Layout` checked the keys). A strategy that sizes such an element by an
    /// estimate (compositional's estimated boundary items and badges) keeps the measurement,
    /// lays out what it changes and sets `changeStart`; one whose sizes the layout fixes keeps
    /// them (the default).
    ///
    /// A measurement that differs from the element's size by less than `tolerance` on every
    /// estimated axis is ignored (0.5, as for cells; 0 takes every one).
    ///
    /// - Returns: whether any frame may have changed.
    func measureSupplementary(_ measurements: [(key: ElementKey, size: Size)], tolerance: Double, model: CollectionModel) -> Bool

    /// The supplementary measurements the strategy keeps (`measureSupplementary`), in key
    /// order: state like section offsets, so a layout rebuilt from scratch can take them back.
    var measuredSupplementaries: [(key: ElementKey, size: Size)] { get }
}

/// A kind of element besides cells, and what its key id names.
public struct SupplementaryKind: Hashable, Sendable {
    public var kind: ElementKind
    /// An item's element (a badge: keyed by item id), not a section's (keyed by section id).
    public var isAnchoredToItem: Bool

    public init(kind: ElementKind, isAnchoredToItem: Bool) {
        self.kind = kind
        self.isAnchoredToItem = isAnchoredToItem
    }
}

/// How one orthogonally scrolling section stands: what `view.scrollSection` moves.
public struct SectionScroll: Hashable, Sendable {
    /// Points scrolled across the main direction, from the section's leading edge.
    public var offset: Double
    /// The greatest offset at which content is still in view (0 when it all fits).
    public var maximumOffset: Double
    /// The section's `orthogonalScrollingBehavior`.
    public var behavior: String
}


/// What a viewport change did to the prepared layout.
public enum ViewportInvalidation: Hashable, Sendable {
    /// No frame changed (for example a scroll in a plain flow layout).
    case none
    /// Only frames that depend on the offset changed (pinned headers, featured cells); the
    /// layout of everything else stands.
    case offsetDependent
    /// The layout was recomputed (for example the cross-axis size changed).
    case layout
}

/// A strategy written in Swift against this module: its type carries the descriptor and builds
/// instances from parameters, so the registry can register the type itself. Strategies loaded
/// from plugins are instances of one adapter type and describe themselves per instance.
public protocol NativeStrategy: LayoutStrategy, SendableMetatype {
    /// Name, summary and parameters; the registry publishes it.
    static var descriptor: StrategyDescriptor { get }

    /// Builds the strategy from validated parameters (see `StrategyDescriptor.resolve` and
    /// `validate(_:)`).
    init(parameters: ResolvedParameters)

    /// Checks what one parameter's description cannot say alone (for example that one height
    /// exceeds another). Called by the registry and by `Layout.reconfigure` before `init`.
    static func validate(_ parameters: ResolvedParameters) throws(LayoutError)
}

extension NativeStrategy {
    public static func validate(_ parameters: ResolvedParameters) throws(LayoutError) {}

    public var descriptor: StrategyDescriptor { Self.descriptor }

    public func reconfigured(with parameters: ResolvedParameters) throws(LayoutError) -> any LayoutStrategy {
        try Self.validate(parameters)
        return Self(parameters: parameters)
    }
}

extension LayoutStrategy {

    public func moveTarget(
        proposing proposed: ItemIndexPath, for id: String, at current: ItemIndexPath, model: CollectionModel
    ) -> ItemIndexPath? {
        proposed
    }

    public func moveUnit(for id: String, at path: ItemIndexPath, model: CollectionModel) -> Range<Int> {
        path.item..<path.item + 1
    }

    public var supplementaryKinds: [SupplementaryKind] {
        [SupplementaryKind(kind: .header, isAnchoredToItem: false), SupplementaryKind(kind: .footer, isAnchoredToItem: false)]
    }

    /// No section scrolls on its own.
    public func sectionScroll(ofSection index: Int, model: CollectionModel) -> SectionScroll? { nil }

    public func scrollSection(_ index: Int, to offset: Double, model: CollectionModel) -> Double? { nil }

    public func targetSectionOffset(section index: Int, proposed: Double, velocity: Double, model: CollectionModel) -> Double {
        proposed
    }

    /// Sizes come from the layout: a measurement changes nothing.
    public func measureSupplementary(_ measurements: [(key: ElementKey, size: Size)], tolerance: Double, model: CollectionModel) -> Bool {
        false
    }

    public var measuredSupplementaries: [(key: ElementKey, size: Size)] { [] }

    public func copy(model: CollectionModel) throws(LayoutError) -> any LayoutStrategy {
        let fresh = try reconfigured(with: parameters)
        fresh.prepare(model: model, viewport: viewport)
        return fresh
    }

    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        prepare(model: model, viewport: viewport)
    }

    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        prepare(model: model, viewport: viewport)
    }

    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) {
        prepare(model: model, viewport: viewport)
    }

    public func targetContentOffset(proposed: Point, velocity: Point) -> Point { proposed }

    /// The built-in strategies set no transforms.
    public var transformOverhang: Double { 0 }

    /// Cells lie across the scroll axis within the content.
    public func cellCrossRange(model: CollectionModel) -> (min: Double, max: Double)? { nil }

    public func offset(placing id: String, edge: AnchorEdge, at distance: Double, model: CollectionModel) -> Double? { nil }

    public var estimatesDefaultSize: Bool { false }

    /// Unknown: every change is diffed over the whole window.
    public var changeStart: Double? { nil }

    /// Fade in at the final frame: UIKit's default for inserted items.
    public func initialAttributes(forAppearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes {
        var initial = attributes
        initial.alpha = 0
        return initial
    }

    /// Fade out at the last frame: UIKit's default for deleted items.
    public func finalAttributes(forDisappearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes {
        var final = attributes
        final.alpha = 0
        return final
    }

    /// Everything moves together over `Transition.defaultDuration`.
    public func planTransition(from previous: any LayoutStrategy, moves: [TransitionSegment], model: CollectionModel) -> Transition {
        Transition.together(moves, duration: Transition.defaultDuration)
    }
}
