import LayoutGeometry

/// Whether a view is in the middle of an interactive move (UIKit's
/// `beginInteractiveMovementForItem`): `View.moveState`, the one record of it.
///
/// While `.moving`, the model holds the item at its target (a plain model move the strategy
/// re-flows incrementally), so every query, snapshot and delta shows the other items where
/// they go if the item drops there; `Layout.movingItem` draws the item itself under the finger.
public enum MoveState: Hashable, Sendable {
    case idle
    case moving(ActiveMove)

    public var activeMove: ActiveMove? {
        if case .moving(let move) = self { return move }
        return nil
    }
}

/// An interactive move in progress.
public struct ActiveMove: Hashable, Sendable {
    /// The item being dragged (the one the client named).
    public let id: String
    /// Every item that moves, in data order: `id` alone, or the unit the strategy moves with it
    /// (`LayoutStrategy.moveUnit`: a collapsible stack), fixed when the move begins. The unit
    /// stays consecutive in the model while the move lasts.
    public let items: [String]
    /// Where the unit's first item was when the move began: where `endMove(commit: false)`
    /// puts the unit back.
    public let origin: ItemIndexPath
    /// Where the unit's first item would drop now: its position in the model while the move
    /// lasts.
    public internal(set) var target: ItemIndexPath
    /// The finger in **viewport** coordinates (from the viewport's top-left corner): a scroll
    /// under a still finger moves the dragged item through the content, so auto-scroll carries
    /// it along and the target follows.
    public internal(set) var point: Point
    /// The scroll velocity the finger asks for (`AutoScroll.velocity`), points per second.
    public internal(set) var autoScroll: Point
}

/// Why a move ended (`Invalidation.moveEnded`).
public enum MoveEndReason: String, Hashable, Sendable {
    /// `endMove(commit: true)`: the item stays at its target.
    case committed
    /// `endMove(commit: false)`: the item went back where it was.
    case cancelled
    /// Another change of the data deleted the moving item (it had gone back first).
    case itemDeleted
    /// Another change of the data (a batch, new data): the item went back first, then the change
    /// applied to the data as it was before the move.
    case dataChanged
    /// A new size, strategy, parameters or layout direction: the item went back first.
    case layoutChanged
}

/// What an invalidation says about the move in progress after it (`Invalidation.move`).
public struct MoveReport: Hashable, Sendable {
    public var id: String
    /// Every item that moves (`ActiveMove.items`).
    public var items: [String]
    public var target: ItemIndexPath
    public var autoScroll: Point

    public init(id: String, items: [String]? = nil, target: ItemIndexPath, autoScroll: Point) {
        self.id = id
        self.items = items ?? [id]
        self.target = target
        self.autoScroll = autoScroll
    }

    public init(_ move: ActiveMove) {
        self.init(id: move.id, items: move.items, target: move.target, autoScroll: move.autoScroll)
    }
}

/// The move an invalidation ended (`Invalidation.moveEnded`).
public struct MoveEnd: Hashable, Sendable {
    public var id: String
    public var reason: MoveEndReason

    public init(id: String, reason: MoveEndReason) {
        self.id = id
        self.reason = reason
    }
}

/// What a mutation does to a move in progress (`View.mutate`).
enum MovePolicy {
    /// The move stays: its target and dragged frame are recomputed after the change (scrolls,
    /// selection, measurements, anchors, the window margin).
    case keeps
    /// The move ends before the change, the item back at its origin, for `reason`; if the change
    /// is refused, the move is as it was.
    case ends(MoveEndReason)
    /// The move methods themselves.
    case isMove
}

extension View {
    /// Begins dragging item `id`, with the unit the strategy moves with it (a collapsible
    /// stack): each is drawn with its slot's size centred on the finger (at `point`, viewport
    /// coordinates, or by default at the item's centre, where it stays) and above every element
    /// of the window; a finger elsewhere moves the target as `updateMove` would (so a dry run
    /// previews a drag in one request).
    ///
    /// - Throws: `moveInProgress` when a move is active, `transitionInProgress` during an
    ///   interactive transition (`requireNoGesture`), `itemNotFound`, `invalidParameter`
    ///   (`point`), `staleEpoch`.
    @discardableResult
    public func beginMove(_ id: String, at finger: Point? = nil, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, move: .isMove) { () throws(LayoutError) -> Outcome in
            try requireNoGesture()
            guard let slot = layout.attributes(forItem: id), let path = slot.indexPath else { throw .itemNotFound(id) }
            if let finger { try Self.validate(movePoint: finger) }
            let offset = viewport.offset
            let point = finger ?? Point(x: slot.frame.midX - offset.x, y: slot.frame.midY - offset.y)
            let unit = layout.strategy.moveUnit(for: id, at: path, model: model)
            let items = unit.map { model.itemID(at: ItemIndexPath(section: path.section, item: $0)) }
            let origin = ItemIndexPath(section: path.section, item: unit.lowerBound)
            moveState = .moving(ActiveMove(id: id, items: items, origin: origin, target: origin, point: point, autoScroll: .zero))
            followFinger()
            return Outcome()
        }
    }

    /// The finger is at `point` (viewport coordinates): the item follows it, the target is
    /// recomputed (see `followFinger`) and the other items re-flow around it.
    ///
    /// - Throws: `noActiveMove`, `invalidParameter` (`point`: not finite or beyond
    ///   `LayoutBounds`), `staleEpoch`.
    /// - Complexity: O(log n + k) for the slots near the point and the window, plus one model
    ///   move and the strategy's incremental update when the target changes.
    @discardableResult
    public func updateMove(to point: Point, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, move: .isMove) { () throws(LayoutError) -> Outcome in
            guard var active = moveState.activeMove else { throw .noActiveMove }
            try Self.validate(movePoint: point)
            active.point = point
            moveState = .moving(active)
            followFinger()
            return Outcome()
        }
    }

    /// Ends the move: committed, the item stays at its target (one batch move: the
    /// invalidation's `changes` name it as moved) and animates from under the finger into its
    /// slot; cancelled, it goes back where it began and everything animates back.
    ///
    /// - Throws: `noActiveMove`, `staleEpoch`.
    @discardableResult
    public func endMove(commit: Bool, animated: Bool = true, ifEpoch: Int? = nil) throws(LayoutError) -> Invalidation {
        try mutate(ifEpoch: ifEpoch, move: .isMove) { () throws(LayoutError) -> Outcome in
            guard let active = moveState.activeMove else { throw .noActiveMove }
            var outcome = Outcome()
            let axis = layout.strategy.scrollAxis
            // Attributes around the window before, for the transition's from-attributes; the
            // elements animated are those of the window before and after, each as the client
            // holds it (cut to the maximum, so at most twice that many segments).
            var captured = [ElementKey: LayoutAttributes]()
            var keys = Set<ElementKey>()
            if animated {
                let reach = windowMargin + axis.main(of: viewport.size)
                for attributes in layout.elements(in: viewport.window(margin: reach, axis: axis)) { captured[attributes.key] = attributes }
                keys.formUnion(currentWindowContents().elements.map(\.key))
            }
            if commit {
                layout.setMovingItem(nil)
                moveState = .idle
                if active.target != active.origin {
                    var changes = DataChanges()
                    changes.movedItems = active.items
                    let from = model.sections[active.origin.section].id
                    let to = model.sections[active.target.section].id
                    changes.touchedSections = from == to ? [from] : [from, to]
                    outcome.changes = changes
                    outcome.context.invalidatesDataSourceCounts = from != to
                }
                outcome.context.invalidatedItems = active.items
            } else {
                putBack(active)
                outcome.context.invalidatedItems = active.items
            }
            outcome.moveEnded = MoveEnd(id: active.id, reason: commit ? .committed : .cancelled)
            if animated {
                let contents = windowContents()
                keys.formUnion(contents.elements.map(\.key))
                let moves = Layout.moves(
                    of: keys, before: { captured[$0] }, after: { layout.attributes(for: $0) }, in: layout.strategy, model: layout.model)
                // Released from the finger mid-motion: it eases out into its slot (or back).
                outcome.transition = Transition.together(moves, duration: Transition.defaultDuration, curve: .easeOut)
                outcome.window = contents
            }
            return outcome
        }
    }

    // MARK: Internals

    /// Places the moving item under the finger: the nearest slot (`Layout.nearestSlot`) gives
    /// the proposed target, which the strategy may adjust or refuse (`LayoutStrategy.moveTarget`);
    /// the model moves the item there when it changed; the item is drawn centred on the finger
    /// (content point = viewport offset + finger) above the window's highest zIndex; and the
    /// auto-scroll velocity is read off the finger's place in the viewport.
    ///
    /// The proposal from a cell X other than the unit's own: X's position in the data without
    /// the moving unit, or the one after it when the finger is past X's centre in reading order;
    /// from an empty section's header or footer, that section's first position.
    /// The item's own slot proposes where it is. So the item swaps with a neighbour only once
    /// the finger passes the neighbour's centre, and a still finger never makes it oscillate.
    func followFinger() {
        guard var active = moveState.activeMove else { return }
        let offset = viewport.offset
        let center = Point(x: offset.x + active.point.x, y: offset.y + active.point.y)
        let strategy = layout.strategy
        // The target is read at the centre clamped to the content: a finger far outside it asks
        // for the nearest edge's slots, and the search stays near them (O(log n + k)) instead of
        // growing over the whole content.
        let content = layout.contentSize
        let probe = Point(x: min(max(center.x, 0), content.width), y: min(max(center.y, 0), content.height))
        let unit = (section: active.target.section, count: active.items.count)
        if let slot = strategy.attributes(forItem: active.id, model: model),
            let nearest = layout.nearestSlot(to: probe, reach: max(slot.frame.width, slot.frame.height), unit: unit),
            let nearestPath = layout.dropPosition(of: nearest, unit: unit)
        {
            var proposed = active.target
            if nearest.kind != .cell {
                // The header or footer of a section empty but for the unit: its first position
                // (where the unit already is, when it is the unit's own section).
                proposed = nearestPath
            } else if !active.items.contains(nearest.id) {
                let current = active.target
                var position = nearestPath
                if position.section == current.section, position.item > current.item { position.item -= active.items.count }
                if !layout.precedes(probe, centreOf: nearest.frame, rightToLeft: layoutDirection == .rtl) { position.item += 1 }
                proposed = position
            }
            if proposed != active.target,
                let target = strategy.moveTarget(proposing: proposed, for: active.id, at: active.target, model: model),
                target != active.target
            {
                layout.moveItems(active.items, from: active.target, to: target)
                active.target = target
            }
        }
        // Above everything the client holds: the window's highest zIndex, the unit's own aside.
        let drawn = MovingItem(ids: active.items, center: center, zIndex: 0)
        var highest = Int.min
        for attributes in strategy.elements(in: window, model: model) where !(attributes.kind == .cell && drawn.rank(of: attributes.id) != nil) {
            highest = max(highest, attributes.zIndex)
        }
        let zIndex = highest == Int.min ? (strategy.attributes(forItem: active.items[0], model: model)?.zIndex ?? 0) + 1 : highest + 1
        // Under the finger as the viewport is now: moving the unit may have moved the offset.
        let now = Point(x: viewport.offset.x + active.point.x, y: viewport.offset.y + active.point.y)
        layout.setMovingItem(MovingItem(ids: active.items, center: now, zIndex: zIndex))
        active.autoScroll = AutoScroll.velocity(at: active.point, in: strategy)
        moveState = .moving(active)
    }

    /// Ends the move with the unit back at its origin (the model exactly as before `beginMove`).
    func putBack(_ active: ActiveMove) {
        layout.setMovingItem(nil)
        moveState = .idle
        guard active.target != active.origin else { return }
        layout.moveItems(active.items, from: active.target, to: active.origin)
    }

    /// Undoes `putBack` when the change that ended the move was refused: the move exactly as it
    /// was, target, finger and dragged frame (`drawn`) included. Not recomputed with
    /// `followFinger`: a second placement under the same finger may pick another slot on the
    /// re-flowed layout, and a refused change must change nothing.
    func resume(_ active: ActiveMove, drawn: MovingItem?) {
        // The inverse of the move `putBack` made, on the same data.
        if active.target != active.origin { layout.moveItems(active.items, from: active.origin, to: active.target) }
        moveState = .moving(active)
        layout.setMovingItem(drawn)
    }

    /// `transition` with each element's last segment ending where the element is now: a change
    /// during a move (an animated selection or measurement) was planned before the target
    /// followed the finger again.
    func endingWhereElementsAre(_ transition: Transition) -> Transition {
        var result = transition
        var last = [ElementKey: Int]()
        for (index, segment) in transition.segments.enumerated() { last[segment.key] = index }
        for index in last.values {
            let segment = result.segments[index]
            guard segment.to.alpha != 0, let now = layout.attributes(for: segment.key) else { continue }
            result.segments[index].to = now
        }
        return result
    }

    /// The data as a change that ends the move sees it (`MovePolicy.ends`: the unit goes back
    /// first): the model with the moving unit at its origin; the model itself at rest. A client
    /// that sends a batch during a drag counts its positions in this data.
    public var restingModel: CollectionModel {
        guard let active = moveState.activeMove, active.target != active.origin else { return model }
        var resting = model
        let section = resting.sections[active.origin.section].id
        // One batch of moves, each to its final position (batch semantics): the unit, in order.
        try! resting.apply(active.items.enumerated().map { .moveItem($1, toSection: section, at: active.origin.item + $0) })
        return resting
    }

    /// What the invalidation reports about the move in force after a change.
    var moveReport: MoveReport? {
        moveState.activeMove.map(MoveReport.init)
    }

    static func validate(movePoint point: Point) throws(LayoutError) {
        guard point.isFinite, point.isWithinLayoutBounds else {
            throw .invalidParameter(parameter: "point", reason: "must be finite and at most \(LayoutBounds.maximumText) in magnitude")
        }
    }
}
