import LayoutGeometry

/// A layout switch a client scrubs (UIKit's `UICollectionViewTransitionLayout`): the target
/// layout prepared beside the view's own, the two ends of every element in either window, and
/// how far along the client's gesture (a pinch, a slider) is.
///
/// The view itself does not change while a transition is in progress: its layout, data,
/// viewport and epoch are the layout before, and `view.query`, snapshots and deltas describe
/// that layout. Only `endTransition(commit: true)` switches, as one mutation.
public struct InteractiveTransition {
    /// The target layout: prepared for the view's model, its viewport where a switch from the
    /// view as it is now comes to rest (`Layout.place(_:restoring:)`, re-run after a scroll).
    var target: any LayoutStrategy
    /// The strategy the view has after a commit (the view's own for a parameter change).
    public let targetStrategyName: String
    /// The anchor policy the request named, if any: re-read through `View.anchorInForce` at
    /// every re-plan, so a commit keeps what a plain switch made then would keep.
    let anchorOverride: AnchorPolicy?
    /// 0 (the view's layout) ... 1 (the target), as the last `updateTransition` set it.
    public internal(set) var progress = 0.0
    /// One pair per element of the view's window or the target's window, sorted by key.
    public internal(set) var pairs: [TransitionPair] = []
    /// Seconds the whole switch would take animated (the target strategy's plan of these
    /// pairs): an end animates the part of it that remains (`View.endTransition`).
    public internal(set) var duration = 0.0
    /// The element the switch keeps in place (`Invalidation.anchor`) and the policy's name
    /// when not the default (`Invalidation.anchorPolicy`).
    public internal(set) var anchor: String?
    public internal(set) var anchorPolicy: String?
}

/// What `beginTransition` returns, and what a scroll during a transition adds to its
/// invalidation (`Invalidation.interactiveTransition`): the transition's state, with every pair
/// (`left` nil) or only the pairs that are new or changed since the previous plan, and the
/// keys of those gone (`left`).
public struct TransitionPlan: Hashable, Sendable {
    public var strategy: String
    public var progress: Double
    public var duration: Double
    public var fromContentOffset: Point
    public var toContentOffset: Point
    public var fromContentSize: Size
    public var toContentSize: Size
    public var pairs: [TransitionPair]
    /// Pairs gone since the previous plan, for a re-plan; nil in a whole plan.
    public var left: [ElementKey]?
    public var anchor: String?
    public var anchorPolicy: String?

    /// The pairs' attributes at `progress`.
    public var elements: [LayoutAttributes] { pairs.map { $0.attributes(at: progress) } }
}

/// What `updateTransition` returns: every element of the transition at one progress, and the
/// content offset and size a scroll view shows then.
public struct TransitionFrame: Hashable, Sendable {
    public var progress: Double
    public var contentOffset: Point
    public var contentSize: Size
    /// Sorted by key: one per pair.
    public var elements: [LayoutAttributes]
}

/// A transition another mutation ended (rule: any mutation but a scroll ends a transition
/// back): what the `view.transitionInterrupted` event names.
public struct InterruptedTransition: Hashable, Sendable {
    public var strategy: String
    public var progress: Double
}

extension View {
    /// A gesture a client drives over several requests. At most one is in progress on a view.
    ///
    /// An interactive move is not a case here: it is a mutation of its own, with its own
    /// record (`View.moveState`), because other changes keep it or end it by their kind
    /// (`MovePolicy`). `requireNoGesture()` is where a begin of either refuses while the other
    /// (or another of its own) is in progress, and `interruptGesture(keeping:)` where every
    /// other mutation ends a transition (or, for a scroll, re-plans it).
    public enum Gesture {
        /// Nothing in progress: every mutation applies as documented.
        case idle
        /// `beginTransition` prepared a target layout; `updateTransition` scrubs, `endTransition`
        /// finishes (commit) or goes back (revert).
        case transition(InteractiveTransition)
    }

    /// The interactive transition in progress, if any.
    public var transition: InteractiveTransition? {
        if case .transition(let transition) = gesture { return transition }
        return nil
    }

    /// The transition in progress with every pair, as `beginTransition` returned it then (at
    /// the current progress, after any re-plan): what a snapshot carries, so a client that
    /// subscribes or resyncs during a transition can draw it.
    public var transitionPlan: TransitionPlan? { transition.map { plan(of: $0, left: nil) } }

    // MARK: The three steps

    /// Prepares the target of a strategy switch (`strategy`, with `parameters` from the
    /// strategy's defaults, as `switchStrategy` takes them) or of a parameter change
    /// (`strategy` nil: `parameters` over the current values, as `configure` takes them), the
    /// anchor kept as those switches keep it, and returns every pair of the two windows. The
    /// view does not change (no epoch step).
    ///
    /// - Throws: `staleEpoch`, `transitionInProgress`, the anchor's errors, `unknownStrategy`,
    ///   `unknownParameter`, `invalidParameter`; then nothing changed.
    /// - Complexity: a full prepare of the target, plus O(k log n) for the k elements of the
    ///   two windows.
    public func beginTransition(
        to name: String?, parameters: [String: ParameterValue] = [:], ifEpoch: Int? = nil, registry: StrategyRegistry = .builtIn,
        anchor: AnchorPolicy? = nil
    ) throws(LayoutError) -> TransitionPlan {
        if let ifEpoch, ifEpoch != epoch { throw .staleEpoch(expected: ifEpoch, actual: epoch) }
        try requireNoGesture()
        if let anchor { try validate(anchor) }
        let target: any LayoutStrategy
        if let name {
            target = MirroredStrategy.wrapping(try registry.makeStrategy(named: name, parameters: parameters), in: layoutDirection)
        } else {
            let current = layout.strategy
            target = try current.reconfigured(with: try current.descriptor.resolve(parameters, over: current.parameters))
        }
        let policy = anchorInForce(anchor)
        let capture = layout.prepareSwitch(to: target, anchor: policy.policy)
        var transition = InteractiveTransition(target: target, targetStrategyName: name ?? strategyName, anchorOverride: anchor)
        transition.anchor = capture.anchorID
        transition.anchorPolicy = policy.name
        pairBothWindows(&transition, window: currentWindowContents())
        gesture = .transition(transition)
        return plan(of: transition, left: nil)
    }

    /// Moves the transition to `progress` and returns every pair's attributes there
    /// (`LayoutAttributes.interpolated(to:progress:)`). The view does not change.
    ///
    /// - Throws: `noActiveTransition`; `invalidParameter` (`progress`) outside 0...1 or not
    ///   finite.
    /// - Complexity: O(k) for the k pairs.
    public func updateTransition(progress: Double) throws(LayoutError) -> TransitionFrame {
        guard case .transition(var transition) = gesture else { throw .noActiveTransition }
        guard progress.isFinite, progress >= 0, progress <= 1 else {
            throw .invalidParameter(parameter: "progress", reason: "must be finite and within 0...1")
        }
        transition.progress = progress
        gesture = .transition(transition)
        return frame(of: transition)
    }

    /// Ends the transition: `commit` switches to the target (one mutation: `context.everything`,
    /// the anchor kept, exactly the view a plain switch gives now), otherwise the view stays as
    /// it is (the layout before). Either way an applied mutation (the epoch steps), and its
    /// `transition` animates from where the gesture left every element: to the target in
    /// (1 − progress) of the transition's duration, or back in progress of it.
    ///
    /// - Throws: `staleEpoch`, `noActiveTransition`; then nothing changed.
    /// - Complexity: commit: the window delta of a switch (O(log n + k log k)); revert: O(k).
    @discardableResult
    public func endTransition(commit: Bool, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch) { () throws(LayoutError) -> Outcome in
            guard case .transition(let transition) = gesture else { throw .noActiveTransition }
            gesture = .idle
            let progress = transition.progress
            var outcome = Outcome()
            let moves = transition.pairs.compactMap { pair -> TransitionSegment? in
                let current = pair.attributes(at: progress)
                let end = commit ? pair.to : pair.from
                return current == end ? nil : TransitionSegment(key: pair.key, from: current, to: end)
            }
            // The gesture let go mid-motion: the rest eases out rather than starting slow again.
            outcome.transition = .together(moves, duration: transition.duration * (commit ? 1 - progress : progress), curve: .easeOut)
            if commit {
                layout.adopt(transition.target)
                strategyName = transition.targetStrategyName
                outcome.context.invalidatesEverything = true
                outcome.anchor = transition.anchor
                outcome.anchorPolicy = transition.anchorPolicy
            } else {
                // Nothing moved: the window is the one before.
                outcome.changeStart = .infinity
            }
            return outcome
        }
    }

    // MARK: Gestures and other mutations

    /// Refuses a new gesture while one is in progress: a scrubbed transition and an
    /// interactive move each change what the other relies on (the layout it pairs against, the
    /// slot the finger drops into), so a view holds at most one of either.
    func requireNoGesture() throws(LayoutError) {
        if let active = moveState.activeMove { throw .moveInProgress(id: active.id) }
        switch gesture {
        case .idle: return
        case .transition: throw .transitionInProgress
        }
    }

    /// What an applied mutation does to a gesture in progress, once the mutation's window
    /// `contents` are known: a scroll (`keeping`) re-plans the transition for the new window
    /// and returns the pairs that changed; any other mutation ends it back (the view already
    /// is the layout before) and reports it interrupted.
    func interruptGesture(keeping: Bool, window contents: WindowContents) -> (replanned: TransitionPlan?, interrupted: InterruptedTransition?) {
        guard case .transition(var transition) = gesture else { return (nil, nil) }
        guard keeping else {
            gesture = .idle
            return (nil, InterruptedTransition(strategy: transition.targetStrategyName, progress: transition.progress))
        }
        let before = transition.pairs
        let policy = anchorInForce(transition.anchorOverride)
        let capture = layout.captureAnchor(policy.policy)
        layout.place(transition.target, restoring: capture)
        transition.anchor = capture.anchorID
        transition.anchorPolicy = policy.name
        pairBothWindows(&transition, window: contents)
        gesture = .transition(transition)
        var plan = plan(of: transition, left: [])
        (plan.pairs, plan.left) = Self.changes(from: before, to: transition.pairs)
        return (plan, nil)
    }

    // MARK: Internals

    /// Pairs every element of the view's window (`contents`) and the target's window, and
    /// times the whole switch as the target strategy would animate it.
    private func pairBothWindows(_ transition: inout InteractiveTransition, window contents: WindowContents) {
        let target = transition.target
        let model = layout.model
        let targetWindow = Layout.windowContents(
            target.elements(in: target.viewport.window(margin: windowMargin, axis: target.scrollAxis), model: model),
            viewport: target.viewport.bounds, axis: target.scrollAxis, maximum: limits.maximumWindowElements
        ).elements
        let keys = Self.mergedKeys(contents.elements, targetWindow)
        var old = [ElementKey: LayoutAttributes](minimumCapacity: contents.elements.count)
        for attributes in contents.elements { old[attributes.key] = attributes }
        var new = [ElementKey: LayoutAttributes](minimumCapacity: targetWindow.count)
        for attributes in targetWindow { new[attributes.key] = attributes }
        let layout = layout
        transition.pairs = Layout.pairs(
            of: keys, before: { old[$0] ?? layout.attributes(for: $0) },
            after: { new[$0] ?? Layout.attributes(for: $0, in: target, model: model) }, in: target, model: model)
        let moves = transition.pairs.filter { $0.from != $0.to }.map { TransitionSegment(key: $0.key, from: $0.from, to: $0.to) }
        transition.duration = target.planTransition(from: layout.strategy, moves: moves, model: model).duration
    }

    /// The keys of two key-sorted windows, merged, each once.
    private static func mergedKeys(_ a: [LayoutAttributes], _ b: [LayoutAttributes]) -> [ElementKey] {
        var keys = [ElementKey]()
        keys.reserveCapacity(a.count + b.count)
        var (i, j) = (0, 0)
        while i < a.count || j < b.count {
            if j == b.count || i < a.count && a[i].key < b[j].key {
                keys.append(a[i].key)
                i += 1
            } else if i == a.count || b[j].key < a[i].key {
                keys.append(b[j].key)
                j += 1
            } else {
                keys.append(a[i].key)
                i += 1
                j += 1
            }
        }
        return keys
    }

    /// The pairs of `after` that are new or differ from `before`, and the keys of `before`'s
    /// that are gone; both lists key-sorted, as the inputs are.
    static func changes(from before: [TransitionPair], to after: [TransitionPair]) -> ([TransitionPair], [ElementKey]) {
        var changed = [TransitionPair]()
        var left = [ElementKey]()
        var (i, j) = (0, 0)
        while i < before.count || j < after.count {
            if j == after.count || i < before.count && before[i].key < after[j].key {
                left.append(before[i].key)
                i += 1
            } else if i == before.count || after[j].key < before[i].key {
                changed.append(after[j])
                j += 1
            } else {
                if before[i] != after[j] { changed.append(after[j]) }
                i += 1
                j += 1
            }
        }
        return (changed, left)
    }

    private func plan(of transition: InteractiveTransition, left: [ElementKey]?) -> TransitionPlan {
        TransitionPlan(
            strategy: transition.targetStrategyName, progress: transition.progress, duration: transition.duration,
            fromContentOffset: viewport.offset, toContentOffset: transition.target.viewport.offset,
            fromContentSize: layout.contentSize, toContentSize: transition.target.contentSize,
            pairs: transition.pairs, left: left, anchor: transition.anchor, anchorPolicy: transition.anchorPolicy)
    }

    private func frame(of transition: InteractiveTransition) -> TransitionFrame {
        let p = transition.progress
        let (fromOffset, toOffset) = (viewport.offset, transition.target.viewport.offset)
        let (fromSize, toSize) = (layout.contentSize, transition.target.contentSize)
        return TransitionFrame(
            progress: p,
            contentOffset: Point(x: LayoutAttributes.blend(fromOffset.x, toOffset.x, p), y: LayoutAttributes.blend(fromOffset.y, toOffset.y, p)),
            contentSize: Size(
                width: LayoutAttributes.blend(fromSize.width, toSize.width, p), height: LayoutAttributes.blend(fromSize.height, toSize.height, p)),
            elements: transition.pairs.map { $0.attributes(at: p) })
    }
}
