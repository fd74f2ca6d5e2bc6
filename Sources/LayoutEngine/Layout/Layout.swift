import LayoutGeometry

/// A strategy together with the model and viewport it lays out: the one place that keeps a
/// strategy's cache and its model in step.
///
/// `Layout` owns the model, so mutations happen in place and each strategy only does its
/// incremental update (a collapsible selection toggle is O(log n), not a copy of the model).
/// Every mutation validates its whole input first: a thrown `LayoutError` changes nothing.
public final class Layout {
    public private(set) var model: CollectionModel
    public private(set) var strategy: any LayoutStrategy
    /// Counts the changes made through this layout: a cache of query results (the view's
    /// window) is current while the revision it was taken at is.
    private(set) var revision = 0
    /// The items an interactive move is dragging (`View.beginMove`), drawn where the finger is
    /// instead of in their slots: every query of this layout answers with it (see
    /// `Layout+Move.swift`). The strategy never sees it; it lays the item out in its slot.
    private(set) var movingItem: MovingItem?

    // MARK: Lifecycle

    /// Prepares `strategy` for `model` in `viewport`.
    ///
    /// - Throws: `invalidViewport`.
    public init(strategy: any LayoutStrategy, model: CollectionModel, viewport: Viewport) throws(LayoutError) {
        try viewport.validate()
        self.model = model
        self.strategy = strategy
        strategy.prepare(model: model, viewport: viewport)
    }

    /// A layout in the same state whose changes never reach this one (see
    /// `LayoutStrategy.copy(model:)`); the model is a value, shared until either side changes it.
    ///
    /// - Complexity: O(1) for the built-in strategies until the copy changes; what the
    ///   strategy's copy costs otherwise (a full prepare for plugins).
    public func copy() throws(LayoutError) -> Layout {
        Layout(model: model, prepared: try strategy.copy(model: model), revision: revision, movingItem: movingItem)
    }

    private init(model: CollectionModel, prepared strategy: any LayoutStrategy, revision: Int, movingItem: MovingItem?) {
        self.model = model
        self.strategy = strategy
        self.revision = revision
        self.movingItem = movingItem
    }

    // MARK: Queries

    public var viewport: Viewport { strategy.viewport }

    public var contentSize: Size { strategy.contentSize }

    /// - Complexity: the strategy's; O(log n + k) for the built-in ones.
    public func elements(in rect: Rect) -> [LayoutAttributes] {
        let slots = strategy.elements(in: rect, model: model)
        guard let movingItem else { return slots }
        return movingItem.replacingSlots(in: slots, within: rect, strategy: strategy, model: model)
    }

    public func attributes(forItem id: String) -> LayoutAttributes? {
        let slot = strategy.attributes(forItem: id, model: model)
        guard let movingItem, let rank = movingItem.rank(of: id) else { return slot }
        return slot.map { movingItem.dragged($0, rank: rank) }
    }

    public func attributes(forSupplementary kind: ElementKind, id: String) -> LayoutAttributes? {
        strategy.attributes(forSupplementary: kind, id: id, model: model)
    }

    public func attributes(for key: ElementKey) -> LayoutAttributes? {
        key.kind == .cell ? attributes(forItem: key.id) : attributes(forSupplementary: key.kind, id: key.id)
    }

    public func targetContentOffset(proposed: Point, velocity: Point) -> Point {
        strategy.targetContentOffset(proposed: proposed, velocity: velocity)
    }

    /// The first visible cell: the lowest index path among cells intersecting the viewport.
    /// It is what a layout switch keeps in place.
    public var firstVisibleItem: LayoutAttributes? {
        elements(in: viewport.bounds).filter { $0.kind == .cell }.min { $0.indexPath! < $1.indexPath! }
    }

    // MARK: Mutations

    /// Changes the selection; see `CollectionModel.select(_:mode:)`.
    @discardableResult
    public func select(_ ids: [String], mode: SelectionMode) throws(LayoutError) -> [String] {
        let changed = try model.select(ids, mode: mode)
        revision += 1
        if !changed.isEmpty { strategy.selectionDidChange(changed, model: model) }
        return changed
    }

    /// Applies self-sizing measurements; see `CollectionModel.applyMeasurements`.
    @discardableResult
    public func applyMeasurements(
        _ measurements: [(id: String, size: Size)], tolerance: Double = 0.5
    ) throws(LayoutError) -> [ItemIndexPath] {
        var previous = [ItemIndexPath: PreviousSize]()
        for (id, _) in measurements {
            if let path = model.indexPath(ofItem: id), previous[path] == nil { previous[path] = model.previousSize(of: path) }
        }
        let changed = try model.applyMeasurements(
            measurements, defaultSize: strategy.defaultItemSize, tolerance: tolerance)
        revision += 1
        if !changed.isEmpty {
            strategy.sizesDidChange(
                changed.map { .resized(section: $0.section, item: $0.item, previous: previous[$0]!) }, model: model)
        }
        return changed
    }

    /// Refuses supplementary measurements (`measureSupplementary`) naming no element of the
    /// layout (`elementNotFound`; a cell is an item, measured by `applyMeasurements`) or a
    /// size that is not finite, negative or past the layout bound (`invalidSize`).
    public func checkSupplementaryMeasurements(_ measurements: [(key: ElementKey, size: Size)]) throws(LayoutError) {
        for (key, size) in measurements {
            guard key.kind != .cell, attributes(forSupplementary: key.kind, id: key.id) != nil else {
                throw .elementNotFound(kind: key.kind.rawValue, id: key.id)
            }
            guard size.isValidLayoutExtent else { throw .invalidSize(id: key.id, field: "measuredSize") }
        }
    }

    /// Measured sizes of supplementary elements (checked by `checkSupplementaryMeasurements`):
    /// the strategy keeps the ones it sizes by an estimate and lays out what they change.
    ///
    /// - Returns: whether the layout changed.
    public func measureSupplementary(_ measurements: [(key: ElementKey, size: Size)], tolerance: Double = 0.5) -> Bool {
        revision += 1
        return strategy.measureSupplementary(measurements, tolerance: tolerance, model: model)
    }

    /// Applies an atomic batch of inserts, deletes, moves and reloads to the model in place;
    /// see `CollectionModel.apply(_:maximumItems:)`.
    @discardableResult
    public func apply(_ updates: [BatchUpdate], maximumItems: Int = .max) throws(LayoutError) -> DataChanges {
        let changes = try model.apply(updates, maximumItems: maximumItems)
        revision += 1
        if !changes.isEmpty { strategy.dataDidChange(changes, model: model) }
        return changes
    }

    /// Scrolls or resizes.
    ///
    /// Only the parts that change are validated: the rest is the current viewport, which may
    /// hold an offset the engine chose (to keep an anchor, or a snapping target) beyond the
    /// bound a client may send.
    ///
    /// - Throws: `invalidViewport` for a changed size, offset or insets that `Viewport.validate`
    ///   would refuse.
    @discardableResult
    public func setViewport(_ newViewport: Viewport) throws(LayoutError) -> ViewportInvalidation {
        let current = viewport
        if newViewport.size != current.size { try Viewport.validate(size: newViewport.size) }
        if newViewport.offset != current.offset { try Viewport.validate(offset: newViewport.offset) }
        if newViewport.contentInsets != current.contentInsets {
            try Viewport.validate(contentInsets: newViewport.contentInsets)
        }
        revision += 1
        return strategy.updateViewport(newViewport, model: model)
    }

    /// Moves to an offset the engine chose (a clamped snapping target): a sum of bounded
    /// lengths, so it is not held to the bound clients are.
    ///
    /// - Throws: `invalidViewport` if the strategy's target is not finite.
    @discardableResult
    func scroll(toTarget offset: Point) throws(LayoutError) -> ViewportInvalidation {
        guard offset.isFinite else {
            throw .invalidViewport(reason: "the strategy's target offset is not finite, got \(offset)")
        }
        var moved = viewport
        moved.offset = offset
        revision += 1
        return strategy.updateViewport(moved, model: model)
    }

    /// Section `id`'s index and its own scrolling, if it scrolls orthogonally.
    ///
    /// - Throws: `sectionNotFound`, or `sectionNotOrthogonal` for a section that does not
    ///   scroll on its own.
    public func sectionScroll(ofSection id: String) throws(LayoutError) -> (index: Int, scroll: SectionScroll) {
        guard let index = model.sectionIndex(of: id) else { throw .sectionNotFound(id) }
        guard let scroll = strategy.sectionScroll(ofSection: index, model: model) else { throw .sectionNotOrthogonal(id) }
        return (index, scroll)
    }

    /// Moves an orthogonal section (see `sectionScroll(ofSection:)`): section offsets are state
    /// like the viewport's offset, so a layout rebuilt from scratch takes them this way.
    ///
    /// - Returns: where the band of moved elements ends (`LayoutStrategy.scrollSection`).
    @discardableResult
    public func scrollSection(_ index: Int, to offset: Double) -> Double? {
        revision += 1
        return strategy.scrollSection(index, to: offset, model: model)
    }

    /// Takes a strategy that is already prepared for this model.
    func adopt(_ prepared: any LayoutStrategy) {
        revision += 1
        strategy = prepared
    }

    /// Moves the offset so `capture`'s anchor (taken before a change) is where it was on
    /// screen, clamped to the valid range; an anchor that is gone only clamps.
    ///
    /// - Returns: what the move did to the frames (`.none` when the offset stayed).
    @discardableResult
    func keep(_ capture: AnchorCapture) -> ViewportInvalidation {
        var target = viewport
        target.offset = Self.offset(restoring: capture, in: strategy, model: model)
        guard target.offset != viewport.offset else { return .none }
        revision += 1
        return strategy.updateViewport(target, model: model)
    }

    /// Moves one item to `target` for an interactive move: the strategy sees the item leave and
    /// then arrive (a deletion and an insertion by id, one edit each), two incremental updates,
    /// where a batch `moveItem` is one change of two edits that a strategy may lay out in full.
    /// The model ends exactly as the batch would leave it.
    ///
    /// Moves a unit of consecutive items (`ids`, in data order, the first at `current`) so the
    /// first lands at `target` (a position in the data without the unit) and the rest follow
    /// it, one `moveItem` each: forward within a section from the last, otherwise from the
    /// first, so every step's destination is already its final index.
    ///
    /// - Precondition: the unit is consecutive at `current`; `target` is a valid final position.
    func moveItems(_ ids: [String], from current: ItemIndexPath, to target: ItemIndexPath) {
        let forward = target.section == current.section && target.item > current.item
        for rank in forward ? Array(ids.indices.reversed()) : Array(ids.indices) {
            moveItem(ids[rank], to: ItemIndexPath(section: target.section, item: target.item + rank))
        }
    }

    /// - Precondition: `id` is in the model; `target` is a valid final position.
    func moveItem(_ id: String, to target: ItemIndexPath) {
        // In place: a copy of the model would copy its storage on the first write.
        let from = model.sections[model.indexPath(ofItem: id)!.section].id
        let (record, removal) = model.removeItem(id)
        revision += 1
        var left = DataChanges()
        left.deletedItems = [id]
        left.touchedSections = [from]
        left.edits = [removal]
        strategy.dataDidChange(left, model: model)
        let insertion = model.insert(moved: record, at: target)
        var arrived = DataChanges()
        arrived.insertedItems = [id]
        arrived.touchedSections = [model.sections[target.section].id]
        arrived.edits = [insertion]
        strategy.dataDidChange(arrived, model: model)
    }

    /// Draws `item` at its dragged place (nil: back in its slot).
    func setMovingItem(_ item: MovingItem?) {
        guard item != movingItem else { return }
        movingItem = item
        revision += 1
    }

    /// Replaces the whole model and lays it out from scratch.
    public func replaceModel(_ newModel: CollectionModel) {
        model = newModel
        revision += 1
        strategy.prepare(model: model, viewport: viewport)
    }
}
