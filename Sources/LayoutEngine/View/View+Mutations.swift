import LayoutGeometry

extension View {
    // MARK: Data

    /// Replaces all sections and items; the change is diffed by id (inserted, deleted, moved,
    /// reloaded). The selection of surviving items is kept.
    ///
    /// - Complexity: O(n log n): a full prepare and the diff.
    @discardableResult
    public func replaceData(
        _ sections: [SectionSpec], animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.dataChanged)) { () throws(LayoutError) -> Outcome in
            var newModel = try CollectionModel(sections: sections)
            guard newModel.numberOfItems <= limits.maximumItems else {
                throw .limitExceeded(limit: "items", maximum: limits.maximumItems)
            }
            newModel.keepMeasuredSizes(from: layout.model)
            try newModel.select(layout.model.selection.filter { newModel.contains(item: $0) }, mode: .set)
            let changes = layout.model.changes(to: newModel)
            var outcome = Outcome(changes: changes)
            outcome.context.invalidatesEverything = true
            outcome.context.invalidatesDataSourceCounts = changes.changesCounts
            outcome.context.invalidatedItems = changes.touchedItems
            (outcome.transition, outcome.anchored, outcome.window, _) = try anchored(animated: animated, anchor: anchor) { () throws(LayoutError) -> Bool in
                layout.replaceModel(newModel)
                return true
            }
            return outcome
        }
    }

    /// Applies an atomic batch of inserts, deletes, moves and reloads (see `BatchUpdate`).
    @discardableResult
    public func performBatch(
        _ updates: [BatchUpdate], animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.dataChanged)) { () throws(LayoutError) -> Outcome in
            let size = updates.reduce(0) { $0 + $1.size }
            guard size <= limits.maximumBatchSize else {
                throw .limitExceeded(limit: "batch size", maximum: limits.maximumBatchSize)
            }
            var outcome = Outcome()
            (outcome.transition, outcome.anchored, outcome.window, outcome.changeStart) = try anchored(animated: animated, anchor: anchor) { () throws(LayoutError) -> Bool in
                let changes = try layout.apply(updates, maximumItems: limits.maximumItems)
                outcome.changes = changes
                return !changes.isEmpty
            }
            outcome.context.invalidatesDataSourceCounts = outcome.changes?.changesCounts ?? false
            outcome.context.invalidatedItems = outcome.changes?.touchedItems ?? []
            return outcome
        }
    }

    /// Self-sizing: measured sizes for ids; changes under 0.5 pt are no-ops.
    @discardableResult
    ///
    /// `supplementary`: measured sizes of other elements by key (compositional's estimated
    /// boundary items and badges self-size the same way); checked before anything applies.
    public func measure(
        _ measurements: [(id: String, size: Size)], supplementary: [(key: ElementKey, size: Size)] = [], animated: Bool = false,
        ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor) { () throws(LayoutError) -> Outcome in
            try checkBatch(measurements.count + supplementary.count)
            try layout.checkSupplementaryMeasurements(supplementary)
            var outcome = Outcome()
            (outcome.transition, outcome.anchored, outcome.window, outcome.changeStart) = try anchored(animated: animated, anchor: anchor) { () throws(LayoutError) -> Bool in
                outcome.context.invalidatedItems = try layout.applyMeasurements(measurements).map { layout.model.itemID(at: $0) }
                let resized = !supplementary.isEmpty && layout.measureSupplementary(supplementary)
                return !outcome.context.invalidatedItems.isEmpty || resized
            }
            return outcome
        }
    }

    /// Changes the selection (expanding items open and close; collapsible stacks form).
    @discardableResult
    public func select(
        _ ids: [String], mode: SelectionMode, animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor) { () throws(LayoutError) -> Outcome in
            try checkBatch(ids.count)
            var outcome = Outcome()
            (outcome.transition, outcome.anchored, outcome.window, outcome.changeStart) = try anchored(animated: animated, anchor: anchor) { () throws(LayoutError) -> Bool in
                outcome.context.invalidatedItems = try layout.select(ids, mode: mode)
                return !outcome.context.invalidatedItems.isEmpty
            }
            return outcome
        }
    }

    // MARK: Viewport

    /// Scrolls to `offset` (no clamping: clients rubber-band past the ends).
    @discardableResult
    public func scroll(to offset: Point, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            var moved = viewport
            moved.offset = offset
            var outcome = Outcome()
            if try layout.setViewport(moved) == .none { outcome.changeStart = .infinity }
            // The client scrolls by itself: a scrollTo target no longer holds.
            scrollTarget = nil
            outcome.keepsGesture = true
            return outcome
        }
    }

    /// The user lifted a finger at `proposed` with `velocity`: the strategy picks where
    /// scrolling comes to rest (snapping), clamped to the valid range, and the view moves there.
    @discardableResult
    public func scrollEnd(proposed: Point, velocity: Point = .zero, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            guard proposed.isFinite, velocity.isFinite else {
                throw .invalidViewport(reason: "proposed offset and velocity must be finite")
            }
            guard proposed.isWithinLayoutBounds, velocity.isWithinLayoutBounds else {
                throw .invalidViewport(
                    reason: "proposed offset and velocity must be at most \(LayoutBounds.maximumText) in magnitude")
            }
            let target = Layout.clamped(layout.targetContentOffset(proposed: proposed, velocity: velocity), in: layout.strategy)
            scrollTarget = nil
            var outcome = Outcome()
            if try layout.scroll(toTarget: target) == .none { outcome.changeStart = .infinity }
            outcome.target = target
            outcome.keepsGesture = true
            return outcome
        }
    }

    /// Scrolls orthogonal section `id` to `offset` across the main direction (no clamping:
    /// clients rubber-band). Only that section's cells and badges move.
    ///
    /// - Throws: `sectionNotFound`, `sectionNotOrthogonal`, `invalidViewport` for an offset that
    ///   is not finite or beyond the layout bound.
    /// - Complexity: O(log n + k): the window delta from the section's start.
    @discardableResult
    public func scrollSection(_ id: String, to offset: Double, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            guard offset.isFinite, LayoutBounds.contains(offset) else {
                throw .invalidViewport(reason: "a section offset must be finite and at most \(LayoutBounds.maximumText) in magnitude")
            }
            let (index, _) = try layout.sectionScroll(ofSection: id)
            return moveSection(id, index: index, to: offset)
        }
    }

    /// The user lifted a finger from orthogonal section `id` at `proposed` (default: where it
    /// is) with `velocity` across the main direction: the section's behaviour picks where it
    /// comes to rest (UIKit's paging and group snapping), within its range, and it moves there.
    ///
    /// - Throws: as `scrollSection`.
    @discardableResult
    public func scrollSectionEnd(_ id: String, proposed: Double? = nil, velocity: Double = 0, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            let (index, scroll) = try layout.sectionScroll(ofSection: id)
            let from = proposed ?? scroll.offset
            guard from.isFinite, velocity.isFinite, LayoutBounds.contains(from), LayoutBounds.contains(velocity) else {
                throw .invalidViewport(
                    reason: "proposed offset and velocity must be finite and at most \(LayoutBounds.maximumText) in magnitude")
            }
            let target = layout.strategy.targetSectionOffset(section: index, proposed: from, velocity: velocity, model: model)
            return moveSection(id, index: index, to: target)
        }
    }

    /// Both section scrolls end here: the section moves, the view diffs from where the strategy
    /// says the change starts (the section's band), and a gesture in progress carries on.
    private func moveSection(_ id: String, index: Int, to offset: Double) -> Outcome {
        let end = layout.scrollSection(index, to: offset)
        var outcome = Outcome()
        outcome.changeStart = layout.strategy.changeStart
        outcome.changeEnd = end
        outcome.sectionScrolled = id
        outcome.keepsGesture = true
        return outcome
    }

    /// Scrolls so the element `key` (a cell by item id, a header or footer by section id) is
    /// placed as `align` says (`Layout.scrollPlacement`), exactly, wherever it is: the frame is
    /// the layout's own, estimates included. The element then stays the anchor of every later
    /// mutation (unless one names its own) until the client scrolls by itself (`scroll`,
    /// `scrollEnd`), another `scrollTo` or `setAnchor`: when the cells around it are measured or
    /// change, the offset follows in the same invalidation, so the element does not move on
    /// screen, and reaches its alignment once the content allows. `needsMeasure` lists the
    /// cells in the new window whose sizes are still estimates.
    ///
    /// - Complexity: O(log n) for the element's frame and the scroll, plus the window delta.
    @discardableResult
    public func scrollTo(_ key: ElementKey, align: ScrollAlignment, offset: Double = 0, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            guard offset.isFinite, LayoutBounds.contains(offset) else {
                throw .invalidViewport(reason: "the scrollTo offset must be finite and at most \(LayoutBounds.maximumText) in magnitude")
            }
            let placement = layout.scrollPlacement(for: try element(key).frame, align: align, offset: offset)
            var outcome = Outcome()
            switch try layout.scroll(toTarget: placement.offset) {
            case .none: outcome.changeStart = .infinity
            case .offsetDependent: try layout.settle(key, edge: placement.edge, distance: placement.distance)
            case .layout: break
            }
            scrollTarget = .element(key, edge: placement.edge, offset: placement.distance)
            outcome.target = layout.viewport.offset
            outcome.anchor = key.id
            outcome.anchorPolicy = "scrollTo"
            outcome.reportsEstimates = true
            return outcome
        }
    }

    /// Sets what later mutations keep still on screen (`AnchorPolicy`); a `scrollTo` target
    /// in force ends.
    @discardableResult
    public func setAnchor(_ policy: AnchorPolicy, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            try validate(policy)
            anchorPolicy = policy
            scrollTarget = nil
            // Nothing moves.
            var outcome = Outcome()
            outcome.changeStart = .infinity
            return outcome
        }
    }

    /// A new viewport size (rotation, window resize); the first visible item stays in place.
    ///
    /// - Parameters: safeAreaInsets, layoutMargins, readableWidth: new margins (nil: unchanged),
    ///   what a rotation changes along with the size.
    @discardableResult
    public func resize(
        to size: Size, safeAreaInsets: EdgeInsets? = nil, layoutMargins: EdgeInsets? = nil, readableWidth: Double? = nil,
        animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.layoutChanged)) { () throws(LayoutError) -> Outcome in
            try Viewport.validate(size: size)
            var resized = viewport
            resized.size = size
            if let safeAreaInsets { resized.safeAreaInsets = safeAreaInsets }
            if let layoutMargins { resized.layoutMargins = layoutMargins }
            if let readableWidth { resized.readableWidth = readableWidth }
            try Viewport.validate(margins: resized.safeAreaInsets, layoutMargins: resized.layoutMargins, readableWidth: resized.readableWidth)
            var outcome = Outcome()
            let changed = resized != viewport
            (outcome.transition, outcome.anchored, outcome.window, _) = try anchored(animated: animated, anchor: anchor) { () throws(LayoutError) -> Bool in
                if try layout.setViewport(resized) == .layout { outcome.context.invalidatesEverything = true }
                return changed
            }
            return outcome
        }
    }

    /// Grows or shrinks the window the client keeps elements for.
    @discardableResult
    public func setWindowMargin(_ margin: Double, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            try Self.validate(windowMargin: margin)
            windowMargin = margin
            return Outcome()
        }
    }

    // MARK: Strategy

    /// Changes some strategy parameters (for example `collapsed`, or a display `mode`), first
    /// visible item anchored.
    @discardableResult
    public func configure(
        _ changes: [String: ParameterValue], animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.layoutChanged)) { () throws(LayoutError) -> Outcome in
            let policy = anchorInForce(anchor)
            let switched = try layout.reconfigure(
                changes, windowMargin: windowMargin, maximumWindowElements: limits.maximumWindowElements, anchor: policy.policy)
            return Self.outcome(switched: switched, policy: policy.name, animated: animated)
        }
    }

    /// Switches to another strategy, first visible item anchored.
    ///
    /// - Parameter registry: where to find `name` (the view keeps none of its own).
    @discardableResult
    public func switchStrategy(
        to name: String, parameters: [String: ParameterValue] = [:], animated: Bool = false, ifEpoch: Int? = nil,
        registry: StrategyRegistry = .builtIn, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.layoutChanged)) { () throws(LayoutError) -> Outcome in
            let strategy = MirroredStrategy.wrapping(try registry.makeStrategy(named: name, parameters: parameters), in: layoutDirection)
            let policy = anchorInForce(anchor)
            let switched = layout.switchStrategy(
                to: strategy, windowMargin: windowMargin, maximumWindowElements: limits.maximumWindowElements, anchor: policy.policy)
            strategyName = name
            return Self.outcome(switched: switched, policy: policy.name, animated: animated)
        }
    }

    /// Lays the view out left to right or right to left (the same strategy, mirrored), the
    /// anchor kept as in a strategy switch.
    ///
    /// - Complexity: a full layout.
    @discardableResult
    public func setLayoutDirection(
        _ direction: LayoutDirection, animated: Bool = false, ifEpoch: Int? = nil, anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, anchor: anchor, move: .ends(.layoutChanged)) { () throws(LayoutError) -> Outcome in
            guard direction != layoutDirection else { return Outcome() }
            let current = layout.strategy
            let base = (current as? MirroredStrategy)?.inner ?? current
            let fresh = MirroredStrategy.wrapping(try base.reconfigured(with: base.parameters), in: direction)
            let policy = anchorInForce(anchor)
            let switched = layout.switchStrategy(
                to: fresh, windowMargin: windowMargin, maximumWindowElements: limits.maximumWindowElements, anchor: policy.policy)
            layoutDirection = direction
            return Self.outcome(switched: switched, policy: policy.name, animated: animated)
        }
    }

    // MARK: Internals

    /// What a mutation reports beyond the window delta.
    struct Outcome {
        var context = InvalidationContext()
        var transition: Transition?
        var changes: DataChanges?
        var target: Point?
        var anchor: String?
        /// The policy that placed the content, when not the default (`Invalidation.anchorPolicy`).
        var anchorPolicy: String?
        var needsMeasure: [String]?
        /// The move the change ended (`View+Move.swift`).
        var moveEnded: MoveEnd?
        /// For a section scroll: the section whose scrolling the result reports.
        var sectionScrolled: String?
        /// Fill `needsMeasure` from the new window (`scrollTo`), once the delta has it.
        var reportsEstimates = false
        /// Set by `anchored`: its id and policy name.
        var anchored: Anchored {
            get { Anchored(id: anchor, policy: anchorPolicy) }
            set { (anchor, anchorPolicy) = (newValue.id, newValue.policy) }
        }
        /// The window after the change, when `anchored` already computed it for a transition.
        var window: WindowContents?
        /// Where along the scroll axis the elements that changed start (see
        /// `LayoutStrategy.changeStart`; `infinity` for a scroll that moved no frame), if known:
        /// the delta then diffs the window from there on and the band it moved onto.
        var changeStart: Double?
        /// Where the changed elements' starts end, when the change is a band (a section
        /// scroll); nil: they reach to the end of the content.
        var changeEnd: Double?
        /// A scroll: a gesture in progress is re-planned for the new window rather than ended
        /// (`interruptGesture(keeping:window:)`).
        var keepsGesture = false
    }

    /// What a layout switch (`configure`, `switchStrategy`, `setLayoutDirection`) reports:
    /// everything recomputed, the anchor it kept, and its transition when animated.
    private static func outcome(switched: LayoutSwitch, policy: String?, animated: Bool) -> Outcome {
        var outcome = Outcome()
        outcome.context.invalidatesEverything = true
        outcome.anchor = switched.anchor
        outcome.anchorPolicy = policy
        if animated { outcome.transition = switched.transition }
        return outcome
    }

    /// Checks the epoch, runs `body` (which validates everything before it changes anything),
    /// and diffs the window before and after: both cut to `limits.maximumWindowElements`, so the
    /// delta carries at most twice that many elements and keeps a mirror of the cut window exact.
    ///
    /// The window before is the one the last mutation recorded (no query while the layout is
    /// unchanged since). When the body knows where the changed elements start (a scroll that
    /// moved no frame, or a strategy's `changeStart`), the delta comes from the part of the
    /// window from there on and the band the window moved onto (`partialDelta`); everything
    /// else is one query of the new window and a merge of the two key-sorted windows. A debug
    /// build checks every shortcut against the full diff of two fresh queries.
    ///
    /// - Complexity: O(log n + k log k) for the new window's query and the merge, plus `body`;
    ///   O(log n + k + d log d) with a known change start, d elements in the queried part.
    ///
    /// - Parameter anchor: the request's own anchor policy, checked before anything changes.
    ///
    /// - Parameter move: what the change does to an interactive move in progress (`MovePolicy`).
    func mutate(
        ifEpoch: Int?, anchor: AnchorPolicy? = nil, move: MovePolicy = .keeps, _ body: () throws(LayoutError) -> Outcome
    ) throws(LayoutError) -> Invalidation {
        if let ifEpoch, ifEpoch != epoch { throw .staleEpoch(expected: ifEpoch, actual: epoch) }
        if let anchor { try validate(anchor) }
        let before = currentWindowContents()
        assert(before == windowContents(), "the recorded window is not the window")
        let oldWindow = window
        let oldContentSize = layout.contentSize
        let oldOffset = viewport.offset

        // A change that ends the move applies to the data as it was before the move: the item
        // goes back first, and comes back if the change is refused (nothing changed).
        var ended: (move: ActiveMove, reason: MoveEndReason, drawn: MovingItem?)?
        if case .ends(let reason) = move, let active = moveState.activeMove {
            ended = (active, reason, layout.movingItem)
            putBack(active)
        }
        var outcome: Outcome
        do {
            outcome = try body()
        } catch {
            if let ended { resume(ended.move, drawn: ended.drawn) }
            throw error
        }
        if let ended {
            let reason = model.contains(item: ended.move.id) ? ended.reason : .itemDeleted
            outcome.moveEnded = MoveEnd(id: ended.move.id, reason: reason)
            // Putting the item back changed frames the body's change start does not cover.
            outcome.changeStart = nil
        } else if case .keeps = move, moveState.activeMove != nil {
            // The finger stays where it is on screen: the target follows what changed under it.
            followFinger()
            // A scroll target is where the view rests: moving the unit may have shifted it (a
            // right-to-left horizontal offset counts from the content's end, which moved).
            if outcome.target != nil { outcome.target = viewport.offset }
            outcome.changeStart = nil
            outcome.window = nil
            if let transition = outcome.transition { outcome.transition = endingWhereElementsAre(transition) }
        }
        epoch += 1

        let newWindow = window
        let delta: WindowDelta
        let contents: WindowContents
        if outcome.window == nil, let changeStart = outcome.changeStart,
            let partial = partialDelta(
                from: before, oldWindow: oldWindow, newWindow: newWindow, changeStart: changeStart, changeEnd: outcome.changeEnd ?? .infinity)
        {
            (delta, contents) = partial
            assert(
                contents == windowContents() && delta == Self.delta(from: before.elements, to: contents.elements),
                "the partial delta is not the full diff")
        } else {
            contents = outcome.window ?? windowContents()
            delta = Self.delta(from: before.elements, to: contents.elements)
        }
        if outcome.reportsEstimates {
            // The window's own cells, not a second query, unless it was cut.
            outcome.needsMeasure = contents.isTruncated ? layout.estimatedItems(in: newWindow) : layout.estimatedItems(among: contents.elements)
        }
        lastWindow = WindowRecord(revision: layout.revision, window: newWindow, contents: contents)
        let gestureChange = interruptGesture(keeping: outcome.keepsGesture, window: contents)
        let contentSize = layout.contentSize
        // Bounded inputs (LayoutBounds) keep every layout finite; a debug build checks it.
        assert(contentSize.width.isFinite && contentSize.height.isFinite, "non-finite content size \(contentSize)")
        outcome.context.contentSizeAdjustment = Size(
            width: contentSize.width - oldContentSize.width, height: contentSize.height - oldContentSize.height)
        outcome.context.contentOffsetAdjustment = Point(x: viewport.offset.x - oldOffset.x, y: viewport.offset.y - oldOffset.y)
        return Invalidation(
            epoch: epoch, contentSize: contentSize, contentOffset: viewport.offset, context: outcome.context,
            window: newWindow, entered: delta.entered, changed: delta.changed, left: delta.left,
            windowTruncated: contents.isTruncated, transition: outcome.transition, changes: outcome.changes,
            targetContentOffset: outcome.target, anchor: outcome.anchor, anchorPolicy: outcome.anchorPolicy,
            needsMeasure: outcome.needsMeasure, interactiveTransition: gestureChange.replanned,
            interruptedTransition: gestureChange.interrupted, move: moveReport, moveEnded: outcome.moveEnded,
            section: outcome.sectionScrolled.flatMap { id in
                (try? layout.sectionScroll(ofSection: id)).map { SectionScrollReport(id: id, scroll: $0.scroll) }
            })
    }

    private func checkBatch(_ count: Int) throws(LayoutError) {
        guard count <= limits.maximumBatchSize else {
            throw .limitExceeded(limit: "batch size", maximum: limits.maximumBatchSize)
        }
    }

    /// Runs `change` in place (the strategy's incremental update); when it reports that it
    /// changed something, keeps the first visible item where it was on screen.
    ///
    /// Animated, the attributes around the window are captured first (the window grown by one
    /// viewport along the scroll axis on each side), so an element that slides into the window
    /// from just outside it moves from where it was; one from farther away fades in. The capture
    /// is O(log n + k), so an animated change costs what the change itself costs. The segments
    /// cover the elements of the old and the new window (each cut to the maximum), so at most
    /// twice `limits.maximumWindowElements`.
    ///
    /// - Returns: the transition (when animated), the anchor kept in place, the window's
    ///   contents after the change when the transition needed them (`mutate` reuses them), and
    ///   where the changed elements start (`LayoutStrategy.changeStart`; `infinity` when
    ///   nothing changed, `nil` when unknown or when keeping the anchor changed frames).
    private func anchored(
        animated: Bool, anchor override: AnchorPolicy?, _ change: () throws(LayoutError) -> Bool
    ) throws(LayoutError) -> (Transition?, Anchored, WindowContents?, Double?) {
        let policy = anchorInForce(override)
        // The default anchor is read off the recorded window: no query.
        let capture = policy.policy == .firstVisible
            ? layout.captureAnchor(.firstVisible, firstVisible: firstVisibleItem(in: currentWindowContents()))
            : layout.captureAnchor(policy.policy)
        let oldViewport = viewport
        let oldWindow = window
        var captured = [ElementKey: LayoutAttributes]()
        var oldKeys = Set<ElementKey>()
        if animated {
            let axis = layout.strategy.scrollAxis
            let reach = windowMargin + axis.main(of: oldViewport.size)
            var inWindow = [LayoutAttributes]()
            for attributes in layout.elements(in: oldViewport.window(margin: reach, axis: axis)) {
                captured[attributes.key] = attributes
                if attributes.frame.intersects(oldWindow) { inWindow.append(attributes) }
            }
            let old = Layout.windowContents(inWindow, viewport: oldViewport.bounds, axis: axis, maximum: limits.maximumWindowElements)
            oldKeys = Set(old.elements.map(\.key))
        }
        guard try change() else { return (animated ? Transition(duration: 0, segments: []) : nil, Anchored(), nil, .infinity) }
        // Read before the anchor moves the offset; a move that changes frames voids it.
        var changeStart = layout.strategy.changeStart
        if layout.keep(capture) != .none { changeStart = nil }
        // A scrollTo target whose element the change removed no longer holds.
        if case .element(let key, _, _)? = scrollTarget, layout.attributes(for: key) == nil { scrollTarget = nil }
        let anchored = Anchored(id: capture.anchorID, policy: policy.name)
        guard animated else { return (nil, anchored, nil, changeStart) }

        let strategy = layout.strategy
        let newWindow = windowContents()
        var keys = oldKeys
        keys.formUnion(newWindow.elements.map(\.key))
        let moves = Layout.moves(
            of: keys, before: { captured[$0] }, after: { layout.attributes(for: $0) }, in: strategy, model: layout.model)
        return (strategy.planTransition(from: strategy, moves: moves, model: layout.model), anchored, newWindow, nil)
    }

    /// The anchor of a change (`Invalidation.anchor` and `anchorPolicy`).
    struct Anchored {
        var id: String?
        var policy: String?
    }

    /// The policy a change keeps still: the request's own, else a `scrollTo` target in force,
    /// else the view's; with the name a reply gives it (nil for the default).
    func anchorInForce(_ override: AnchorPolicy?) -> (policy: AnchorPolicy, name: String?) {
        if let override { return (override, override == .firstVisible ? nil : override.name) }
        if let scrollTarget { return (scrollTarget, "scrollTo") }
        return (anchorPolicy, anchorPolicy == .firstVisible ? nil : anchorPolicy.name)
    }

    /// `Layout.firstVisibleItem` read from the window's contents, which hold every element on
    /// screen unless the window was cut: no query.
    private func firstVisibleItem(in contents: WindowContents) -> LayoutAttributes? {
        guard !contents.isTruncated else { return layout.firstVisibleItem }
        let bounds = viewport.bounds
        let elements = contents.elements
        // Indices, not copies: only the one found is copied out.
        var first: Int?
        for index in elements.indices where elements[index].kind == .cell && elements[index].frame.intersects(bounds) {
            if let current = first, !(elements[index].indexPath! < elements[current].indexPath!) { continue }
            first = index
        }
        let found = first.map { elements[$0] }
        assert(found == layout.firstVisibleItem, "the window's first visible item is not the layout's")
        return found
    }
}
