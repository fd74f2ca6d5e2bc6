import LayoutGeometry

/// The result of switching a layout to another strategy or configuration.
public struct LayoutSwitch: Hashable, Sendable {
    /// The content offset after the switch: the first visible item stays where it was on screen,
    /// clamped to the new layout's valid range on both axes.
    public var contentOffset: Point
    /// The item that was kept in place, if any cell was visible.
    public var anchor: String?
    /// From/to attributes of every element in the old or new window whose attributes changed.
    public var transition: Transition
}

extension Layout {
    /// Switches to `newStrategy` (a reconfigured instance or another strategy), keeping the
    /// anchor still (by default the first visible item) and planning the animation.
    ///
    /// - Parameters:
    ///   - windowMargin: how far beyond the viewport, on every side, elements count as on
    ///     screen (the client's prefetch margin).
    ///   - maximumWindowElements: the most elements each window holds (see
    ///     `windowContents(in:viewport:maximum:)`), so the transition has at most twice as many
    ///     segments.
    ///   - anchor: what stays still (`AnchorPolicy`); its edge keeps its distance from the
    ///     viewport's leading edge along the new scroll axis.
    /// - Complexity: a full prepare of `newStrategy`, plus O(log n + k log k) queries for the windows.
    @discardableResult
    public func switchStrategy(
        to newStrategy: any LayoutStrategy, windowMargin: Double = 0, maximumWindowElements: Int = .max,
        anchor: AnchorPolicy = .firstVisible
    ) -> LayoutSwitch {
        let old = strategy
        let oldViewport = viewport
        let capture = prepareSwitch(to: newStrategy, anchor: anchor)
        let newViewport = newStrategy.viewport

        func window(of strategy: any LayoutStrategy, in viewport: Viewport) -> [LayoutAttributes] {
            Self.windowContents(
                strategy.elements(in: viewport.window(margin: windowMargin, axis: strategy.scrollAxis), model: model),
                viewport: viewport.bounds, axis: strategy.scrollAxis, maximum: maximumWindowElements
            ).elements
        }
        let moves = Self.moves(
            from: (old, model, window(of: old, in: oldViewport)), to: (newStrategy, model, window(of: newStrategy, in: newViewport)))
        let transition = newStrategy.planTransition(from: old, moves: moves, model: model)
        adopt(newStrategy)
        return LayoutSwitch(contentOffset: newViewport.offset, anchor: capture.anchorID, transition: transition)
    }

    /// Prepares `newStrategy` for this layout's model and places its viewport where a switch
    /// from this layout comes to rest (`place(_:restoring:)`), without adopting it: what
    /// `switchStrategy` and an interactive transition (`View.beginTransition`) share.
    ///
    /// - Returns: the anchor captured from this layout.
    /// - Complexity: a full prepare of `newStrategy`.
    func prepareSwitch(to newStrategy: any LayoutStrategy, anchor: AnchorPolicy) -> AnchorCapture {
        let capture = captureAnchor(anchor)
        newStrategy.prepare(model: model, viewport: viewport)
        place(newStrategy, restoring: capture)
        return capture
    }

    /// Moves `target` (prepared for this model, not adopted) to the offset a switch from this
    /// layout rests at: `capture`'s anchor where it was on screen, clamped on both axes. The one
    /// rule for where a switch lands, whether the switch happens now or at the end of an
    /// interactive transition the view scrolled during.
    func place(_ target: any LayoutStrategy, restoring capture: AnchorCapture) {
        // From this layout's viewport, as a fresh prepare starts: where the anchor is in the
        // target may depend on the offset (ultravisual), so an earlier placement must not count.
        if target.viewport != viewport { _ = target.updateViewport(viewport, model: model) }
        var placed = viewport
        placed.offset = Self.offset(restoring: capture, in: target, model: model)
        // The old layout's offset may lie outside the new content across its scroll axis too
        // (an inline row scrolled to x 1500, shown as a list): a switch rests on both axes.
        placed.offset = Self.clampedAcross(placed.offset, in: target)
        if placed.offset != target.viewport.offset {
            _ = target.updateViewport(placed, model: model)
        }
    }

    /// Changes some of the strategy's parameters (the others keep their values) and switches to
    /// the reconfigured strategy, animated and anchored like `switchStrategy(to:windowMargin:maximumWindowElements:)`.
    ///
    /// - Throws: `unknownParameter` or `invalidParameter`; the layout is then unchanged.
    @discardableResult
    public func reconfigure(
        _ changes: [String: ParameterValue], windowMargin: Double = 0, maximumWindowElements: Int = .max,
        anchor: AnchorPolicy = .firstVisible
    ) throws(LayoutError) -> LayoutSwitch {
        let parameters = try strategy.descriptor.resolve(changes, over: strategy.parameters)
        return switchStrategy(
            to: try strategy.reconfigured(with: parameters), windowMargin: windowMargin, maximumWindowElements: maximumWindowElements,
            anchor: anchor)
    }

    /// `offset` with its scroll-axis component inside `[−inset, max(−inset, content + inset − viewport)]`,
    /// the range a scroll view can rest in.
    /// The range is the reading one (`ReadingSpace`): content shorter than the viewport rests
    /// against its leading edge, the right one for a right-to-left view.
    static func clamped(_ offset: Point, in strategy: any LayoutStrategy) -> Point {
        let space = ReadingSpace(strategy)
        return space.screen(offset: clampedReading(space.reading(offset: offset), in: space.strategy))
    }

    /// `clamped(_:in:)` for an offset and a strategy already in reading coordinates.
    static func clampedReading(_ offset: Point, in strategy: any LayoutStrategy) -> Point {
        let axis = strategy.scrollAxis
        let insets = axis.logical(strategy.viewport.contentInsets)
        let main = resting(
            axis.main(of: offset), content: axis.main(of: strategy.contentSize), viewport: axis.main(of: strategy.viewport.size),
            leading: insets.mainLeading, trailing: insets.mainTrailing)
        return axis == .vertical ? Point(x: offset.x, y: main) : Point(x: main, y: offset.y)
    }

    /// `offset` with its cross-axis component inside
    /// `[−inset, max(−inset, content + inset − viewport)]` across the scroll axis: where a switch
    /// comes to rest, since the old layout's offset says nothing about the new content's width.
    static func clampedAcross(_ offset: Point, in strategy: any LayoutStrategy) -> Point {
        let space = ReadingSpace(strategy)
        let offset = space.reading(offset: offset)
        let strategy = space.strategy
        let axis = strategy.scrollAxis
        let insets = axis.logical(strategy.viewport.contentInsets)
        let cross = resting(
            axis.cross(of: offset), content: axis.cross(of: strategy.contentSize), viewport: axis.cross(of: strategy.viewport.size),
            leading: insets.crossLeading, trailing: insets.crossTrailing)
        return space.screen(offset: axis == .vertical ? Point(x: cross, y: offset.y) : Point(x: offset.x, y: cross))
    }

    /// `value` inside `[−leading, max(−leading, content + trailing − viewport)]`: where a scroll
    /// view can rest along one axis.
    private static func resting(_ value: Double, content: Double, viewport: Double, leading: Double, trailing: Double) -> Double {
        let lowest = -leading
        return min(max(value, lowest), max(lowest, content + trailing - viewport))
    }

    /// One segment per element in either window whose attributes differ between the two
    /// layouts; elements only in one layout appear or disappear through the new layout's
    /// initial/final attributes.
    ///
    /// - Complexity: O(log n) per element of the two windows.
    static func moves(
        from old: (strategy: any LayoutStrategy, model: CollectionModel, window: [LayoutAttributes]),
        to new: (strategy: any LayoutStrategy, model: CollectionModel, window: [LayoutAttributes])
    ) -> [TransitionSegment] {
        var keys = Set(old.window.map(\.key))
        keys.formUnion(new.window.map(\.key))
        return moves(
            of: keys, before: { attributes(for: $0, in: old.strategy, model: old.model) },
            after: { attributes(for: $0, in: new.strategy, model: new.model) }, in: new.strategy, model: new.model)
    }

    /// One segment per key whose attributes differ before and after; a key present on one side
    /// only appears (from `strategy`'s initial attributes) or disappears (to its final ones).
    static func moves(
        of keys: Set<ElementKey>, before: (ElementKey) -> LayoutAttributes?, after: (ElementKey) -> LayoutAttributes?,
        in strategy: any LayoutStrategy, model: CollectionModel
    ) -> [TransitionSegment] {
        pairs(of: keys.sorted(), before: before, after: after, in: strategy, model: model)
            .filter { $0.from != $0.to }
            .map { TransitionSegment(key: $0.key, from: $0.from, to: $0.to) }
    }

    /// One pair per key (in the order given) on at least one side, equal ends included: a key
    /// present on one side only appears (from `strategy`'s initial attributes) or disappears
    /// (to its final ones), `strategy` being the layout after the change.
    static func pairs(
        of keys: [ElementKey], before: (ElementKey) -> LayoutAttributes?, after: (ElementKey) -> LayoutAttributes?,
        in strategy: any LayoutStrategy, model: CollectionModel
    ) -> [TransitionPair] {
        var pairs = [TransitionPair]()
        pairs.reserveCapacity(keys.count)
        for key in keys {
            switch (before(key), after(key)) {
            case (let from?, let to?):
                pairs.append(TransitionPair(key: key, from: from, to: to))
            case (let from?, nil):
                pairs.append(TransitionPair(key: key, from: from, to: strategy.finalAttributes(forDisappearing: from, model: model)))
            case (nil, let to?):
                pairs.append(TransitionPair(key: key, from: strategy.initialAttributes(forAppearing: to, model: model), to: to))
            case (nil, nil):
                break
            }
        }
        return pairs
    }

    static func attributes(for key: ElementKey, in strategy: any LayoutStrategy, model: CollectionModel) -> LayoutAttributes? {
        key.kind == .cell
            ? strategy.attributes(forItem: key.id, model: model)
            : strategy.attributes(forSupplementary: key.kind, id: key.id, model: model)
    }
}
