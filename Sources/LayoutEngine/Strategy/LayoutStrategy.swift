import LayoutGeometry

/// A layout algorithm: built from typed parameters, it prepares frames for a model and a
/// viewport and answers queries about them.
///
/// A strategy instance belongs to one view and is used from one thread at a time. It keeps
/// whatever cache it needs between `prepare` and the queries; the cache is private to it.
/// Implementations must stay pure: no I/O, no clocks, no randomness, so the same inputs give
/// the same frames everywhere.
public protocol LayoutStrategy: AnyObject, SendableMetatype {
    /// Name, summary and parameters; the registry publishes it.
    static var descriptor: StrategyDescriptor { get }

    /// Builds the strategy from validated parameters (see `StrategyDescriptor.resolve`).
    init(parameters: ResolvedParameters)

    /// The parameters the strategy was built with.
    var parameters: ResolvedParameters { get }

    /// The size items without their own size take: what a measurement of such an item is
    /// compared against.
    var defaultItemSize: Size { get }

    /// Lays out `model` for `viewport` from scratch. The viewport has been validated.
    func prepare(model: CollectionModel, viewport: Viewport)

    /// Takes a new viewport (scroll, resize), recomputing whatever it affects.
    ///
    /// - Returns: which frames may have changed, so a caller knows whether to re-query.
    func updateViewport(_ viewport: Viewport) -> ViewportInvalidation

    /// The size of all content, in points (content insets not included, as in UIKit).
    var contentSize: Size { get }

    /// Every element whose frame intersects `rect` (open intersection, see `Rect.intersects`),
    /// in no guaranteed order.
    func elements(in rect: Rect) -> [LayoutAttributes]

    /// The attributes of one cell, or `nil` if the id is not in the prepared model.
    func attributes(forItem id: String) -> LayoutAttributes?

    /// The attributes of a section's header or footer, or `nil` if it has none.
    func attributes(forSupplementary kind: ElementKind, inSection id: String) -> LayoutAttributes?

    /// Where scrolling should come to rest when the user lifts a finger at `proposed` with
    /// `velocity` (points per second). Snapping strategies round; others return `proposed`.
    func targetContentOffset(proposed: Point, velocity: Point) -> Point

    /// Where an inserted element animates in from, given where it ends up.
    func initialAttributes(forAppearing attributes: LayoutAttributes) -> LayoutAttributes

    /// Where a deleted element animates out to, given where it was.
    func finalAttributes(forDisappearing attributes: LayoutAttributes) -> LayoutAttributes
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

extension LayoutStrategy {
    public func targetContentOffset(proposed: Point, velocity: Point) -> Point { proposed }

    /// Fade in at the final frame: UIKit's default for inserted items.
    public func initialAttributes(forAppearing attributes: LayoutAttributes) -> LayoutAttributes {
        var initial = attributes
        initial.alpha = 0
        return initial
    }

    /// Fade out at the last frame: UIKit's default for deleted items.
    public func finalAttributes(forDisappearing attributes: LayoutAttributes) -> LayoutAttributes {
        var final = attributes
        final.alpha = 0
        return final
    }
}
