import LayoutGeometry

/// UIKit's invalidation context, for clients that mirror `UICollectionViewLayoutInvalidationContext`.
public struct InvalidationContext: Hashable, Sendable {
    /// The whole layout was recomputed (new data, strategy, parameters or width).
    public var invalidatesEverything = false
    /// The number of sections or of items in a section changed.
    public var invalidatesDataSourceCounts = false
    /// Items the mutation named: inserted, deleted, moved, reloaded, measured or (de)selected.
    public var invalidatedItems: [String] = []
    /// New content size minus old.
    public var contentSizeAdjustment = Size.zero
    /// New content offset minus old (anchoring after a change above the window, clamping).
    public var contentOffsetAdjustment = Point.zero

    public init() {}
}

/// What one applied mutation changed, for a client that keeps only the elements in its window.
///
/// Applying `left`, then `entered` and `changed` to the elements a client held for the
/// previous epoch gives exactly the elements of `window` now (the property the tests check
/// after every random mutation).
public struct Invalidation: Hashable, Sendable {
    /// The view's epoch after the mutation: one more than before.
    public var epoch: Int
    public var contentSize: Size
    public var contentOffset: Point
    public var context: InvalidationContext
    /// The region the client should hold: the viewport grown by the window margin.
    public var window: Rect
    /// Elements now in the window that were not in the previous one, with their attributes.
    public var entered: [LayoutAttributes]
    /// Elements in both windows whose attributes changed.
    public var changed: [LayoutAttributes]
    /// Elements that were in the previous window and are not in this one (or are, but no
    /// longer among the `maximumWindowElements` it holds).
    public var left: [ElementKey]
    /// The window rect holds more than `ViewLimits.maximumWindowElements` elements: the
    /// window is the ones nearest the viewport (see `View.windowContents()`).
    public var windowTruncated: Bool
    /// From/to attributes with timing, when the mutation was animated.
    public var transition: Transition?
    /// What a data mutation did, by id.
    public var changes: DataChanges?
    /// For `scrollEnd`: where scrolling comes to rest (already the new content offset).
    public var targetContentOffset: Point?
    /// The item kept in place on screen by a data change, resize or layout switch: the first
    /// visible item before it (or the one the anchor policy names), if any.
    public var anchor: String?
    /// The anchor policy that placed the content, when it is not the default `firstVisible`:
    /// a policy's name, or "scrollTo" for a `scrollTo` target still in force.
    public var anchorPolicy: String?
    /// For `scrollTo`: cells in the new window whose sizes are still estimates.
    public var needsMeasure: [String]?
    /// A scroll during an interactive transition: the transition re-planned for the new
    /// window (the pairs new or changed, and those gone).
    public var interactiveTransition: TransitionPlan?
    /// Another mutation ended an interactive transition back (`view.transitionInterrupted`).
    public var interruptedTransition: InterruptedTransition?
    /// The interactive move in force after the change, if any: the item, its target and the
    /// auto-scroll velocity (see `View.updateMove`).
    public var move: MoveReport?
    /// The move this change ended, and why (`endMove`, or another change that ended it).
    public var moveEnded: MoveEnd?
    /// For `scrollSection` and `scrollSectionEnd`: the section and how it stands now (for
    /// `scrollSectionEnd`, its offset is where it came to rest).
    public var section: SectionScrollReport? = nil
}

/// An orthogonal section's scrolling after `scrollSection` or `scrollSectionEnd`.
public struct SectionScrollReport: Hashable, Sendable {
    public var id: String
    public var scroll: SectionScroll
}
