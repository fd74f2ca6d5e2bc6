import LayoutGeometry

extension View {
    // MARK: Data

    /// Replaces all sections and items; the change is diffed by id (inserted, deleted, moved,
    /// reloaded). The selection of surviving items is kept.
    ///
    /// - Complexity: O(n log n): a full prepare and the diff.
    @discardableResult
    public func replaceData(_ sections: [SectionSpec], animated: Bool = false, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            var newModel = try CollectionModel(sections: sections)
            guard newModel.numberOfItems <= limits.maximumItems else {
                throw .limitExceeded(limit: "items", maximum: limits.maximumItems)
            }
            try newModel.select(layout.model.selection.filter { newModel.indexPath(ofItem: $0) != nil }, mode: .set)
            let changes = layout.model.changes(to: newModel)
            var outcome = Outcome(changes: changes)
            outcome.context.invalidatesEverything = true
            outcome.context.invalidatesDataSourceCounts = changes.changesCounts
            outcome.context.invalidatedItems = changes.touchedItems
            (outcome.transition, outcome.anchor) = replaceModel(with: newModel, viewport: nil, animated: animated)
            return outcome
        }
    }

    /// Applies an atomic batch of inserts, deletes, moves and reloads (see `BatchUpdate`).
    @discardableResult
    public func performBatch(_ updates: [BatchUpdate], animated: Bool = false, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            let size = updates.reduce(0) { $0 + $1.size }
            guard size <= limits.maximumBatchSize else {
                throw .limitExceeded(limit: "batch size", maximum: limits.maximumBatchSize)
            }
            var outcome = Outcome()
            if animated {
                let (newModel, changes) = try layout.model.applying(updates, maximumItems: limits.maximumItems)
                outcome.changes = changes
                (outcome.transition, outcome.anchor) = replaceModel(with: newModel, viewport: nil, animated: true)
            } else {
                let anchor = layout.firstVisibleItem
                let oldViewport = viewport
                outcome.changes = try layout.apply(updates, maximumItems: limits.maximumItems)
                layout.keepAnchor(anchor, oldViewport: oldViewport)
                outcome.anchor = anchor?.id
            }
            outcome.context.invalidatesDataSourceCounts = outcome.changes?.changesCounts ?? false
            outcome.context.invalidatedItems = outcome.changes?.touchedItems ?? []
            return outcome
        }
    }

    /// Self-sizing: measured sizes for ids; changes under 0.5 pt are no-ops.
    @discardableResult
    public func measure(
        _ measurements: [(id: String, size: Size)], animated: Bool = false, ifEpoch: Int? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            try checkBatch(measurements.count)
            let defaultSize = layout.strategy.defaultItemSize
            return try changeModel(
                animated: animated,
                onCopy: { (model: inout CollectionModel) throws(LayoutError) -> [String] in
                    try model.applyMeasurements(measurements, defaultSize: defaultSize).map { model.itemID(at: $0) }
                },
                inPlace: { () throws(LayoutError) -> [String] in
                    try layout.applyMeasurements(measurements).map { layout.model.itemID(at: $0) }
                })
        }
    }

    /// Changes the selection (expanding items open and close; collapsible stacks form).
    @discardableResult
    public func select(
        _ ids: [String], mode: SelectionMode, animated: Bool = false, ifEpoch: Int? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            try checkBatch(ids.count)
            return try changeModel(
                animated: animated,
                onCopy: { (model: inout CollectionModel) throws(LayoutError) -> [String] in try model.select(ids, mode: mode) },
                inPlace: { () throws(LayoutError) -> [String] in try layout.select(ids, mode: mode) })
        }
    }

    // MARK: Viewport

    /// Scrolls to `offset` (no clamping: clients rubber-band past the ends).
    @discardableResult
    public func scroll(to offset: Point, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            var moved = viewport
            moved.offset = offset
            try layout.setViewport(moved)
            return Outcome()
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
            let target = Layout.clamped(layout.targetContentOffset(proposed: proposed, velocity: velocity), in: layout.strategy)
            var moved = viewport
            moved.offset = target
            try layout.setViewport(moved)
            var outcome = Outcome()
            outcome.target = target
            return outcome
        }
    }

    /// A new viewport size (rotation, window resize); the first visible item stays in place.
    @discardableResult
    public func resize(to size: Size, animated: Bool = false, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            var resized = viewport
            resized.size = size
            try resized.validate()
            var outcome = Outcome()
            if animated {
                (outcome.transition, outcome.anchor) = replaceModel(with: layout.model, viewport: resized, animated: true)
                outcome.context.invalidatesEverything = true
            } else {
                let anchor = layout.firstVisibleItem
                let oldViewport = viewport
                if try layout.setViewport(resized) == .layout { outcome.context.invalidatesEverything = true }
                layout.keepAnchor(anchor, oldViewport: oldViewport)
                outcome.anchor = anchor?.id
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
        _ changes: [String: ParameterValue], animated: Bool = false, ifEpoch: Int? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            let switched = try layout.reconfigure(changes, windowMargin: windowMargin)
            var outcome = Outcome()
            outcome.context.invalidatesEverything = true
            outcome.anchor = switched.anchor
            if animated { outcome.transition = switched.transition }
            return outcome
        }
    }

    /// Switches to another strategy, first visible item anchored.
    @discardableResult
    public func switchStrategy(
        to name: String, parameters: [String: ParameterValue] = [:], animated: Bool = false, ifEpoch: Int? = nil
    ) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            let strategy = try registry.makeStrategy(named: name, parameters: parameters)
            let switched = layout.switchStrategy(to: strategy, windowMargin: windowMargin)
            strategyName = name
            var outcome = Outcome()
            outcome.context.invalidatesEverything = true
            outcome.anchor = switched.anchor
            if animated { outcome.transition = switched.transition }
            return outcome
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
    }

    /// Checks the epoch, runs `body` (which validates everything before it changes anything),
    /// and diffs the window before and after.
    ///
    /// - Complexity: O(log n + k) for the two window queries, plus `body`.
    private func mutate(ifEpoch: Int?, _ body: () throws(LayoutError) -> Outcome) throws(LayoutError) -> Invalidation {
        if let ifEpoch, ifEpoch != epoch { throw .staleEpoch(expected: ifEpoch, actual: epoch) }
        var before = [ElementKey: LayoutAttributes]()
        for attributes in layout.elements(in: window) { before[attributes.key] = attributes }
        let oldContentSize = layout.contentSize
        let oldOffset = viewport.offset

        var outcome = try body()
        epoch += 1

        let newWindow = window
        var entered = [LayoutAttributes]()
        var changed = [LayoutAttributes]()
        for attributes in layout.elements(in: newWindow) {
            if let old = before.removeValue(forKey: attributes.key) {
                if old != attributes { changed.append(attributes) }
            } else {
                entered.append(attributes)
            }
        }
        let contentSize = layout.contentSize
        outcome.context.contentSizeAdjustment = Size(
            width: contentSize.width - oldContentSize.width, height: contentSize.height - oldContentSize.height)
        outcome.context.contentOffsetAdjustment = Point(x: viewport.offset.x - oldOffset.x, y: viewport.offset.y - oldOffset.y)
        return Invalidation(
            epoch: epoch, contentSize: contentSize, contentOffset: viewport.offset, context: outcome.context,
            window: newWindow, entered: entered.sorted { $0.key < $1.key }, changed: changed.sorted { $0.key < $1.key },
            left: before.keys.sorted(), transition: outcome.transition, changes: outcome.changes,
            targetContentOffset: outcome.target, anchor: outcome.anchor)
    }

    /// A change to the current model that names the items it touched. Animated, it runs on a
    /// copy laid out afresh (for from-attributes); otherwise in place through the strategy's
    /// incremental update. The first visible item stays anchored either way.
    private func changeModel(
        animated: Bool, onCopy: (inout CollectionModel) throws(LayoutError) -> [String],
        inPlace: () throws(LayoutError) -> [String]
    ) throws(LayoutError) -> Outcome {
        var outcome = Outcome()
        if animated {
            var newModel = layout.model
            outcome.context.invalidatedItems = try onCopy(&newModel)
            if !outcome.context.invalidatedItems.isEmpty {
                (outcome.transition, outcome.anchor) = replaceModel(with: newModel, viewport: nil, animated: true)
            }
        } else {
            let anchor = layout.firstVisibleItem
            let oldViewport = viewport
            outcome.context.invalidatedItems = try inPlace()
            if !outcome.context.invalidatedItems.isEmpty {
                layout.keepAnchor(anchor, oldViewport: oldViewport)
                outcome.anchor = anchor?.id
            }
        }
        return outcome
    }

    private func checkBatch(_ count: Int) throws(LayoutError) {
        guard count <= limits.maximumBatchSize else {
            throw .limitExceeded(limit: "batch size", maximum: limits.maximumBatchSize)
        }
    }

    /// Puts `newModel` (and `newViewport`) in place, keeping the first visible item anchored.
    /// Animated, a fresh strategy instance lays out the new state while the current one, with
    /// the current model, supplies every element's from-attributes, including elements that
    /// slide into the window from outside it.
    ///
    /// - Returns: the transition when animated, and the anchor kept in place.
    private func replaceModel(
        with newModel: CollectionModel, viewport newViewport: Viewport?, animated: Bool
    ) -> (Transition?, String?) {
        let anchor = layout.firstVisibleItem
        let oldViewport = viewport
        let old = layout.strategy
        let oldModel = layout.model
        let oldWindow = window
        if animated {
            let fresh = type(of: old).init(parameters: old.parameters)
            fresh.prepare(model: newModel, viewport: newViewport ?? oldViewport)
            layout.adopt(fresh, model: newModel)
        } else if let newViewport {
            layout.replaceModel(newModel)
            _ = try? layout.setViewport(newViewport)
        } else {
            layout.replaceModel(newModel)
        }
        layout.keepAnchor(anchor, oldViewport: oldViewport)
        guard animated else { return (nil, anchor?.id) }
        let moves = Layout.moves(
            from: (old, oldModel, oldWindow), to: (layout.strategy, layout.model, window))
        return (layout.strategy.planTransition(from: old, moves: moves, model: layout.model), anchor?.id)
    }
}
