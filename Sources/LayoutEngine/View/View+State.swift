import LayoutGeometry

/// A view's whole state as values: what `view.export` writes and `view.import` (and the
/// daemon's state directory) rebuilds a view from, so that the rebuilt view lays out the same
/// frames and continues the same epochs.
///
/// Caches (the last window, a strategy's prepared geometry) are not state: they are rebuilt.
/// A gesture in progress is not state either: `View.exportableState()` takes the view as if
/// the gesture had been cancelled (one more epoch).
public struct ViewState: Sendable {
    public var epoch: Int
    public var strategy: String
    public var parameters: [String: ParameterValue]
    public var layoutDirection: LayoutDirection
    /// The viewport as the view holds it: a right-to-left horizontal view's offset is the
    /// screen offset, not the reading one `View.init` takes.
    public var viewport: Viewport
    public var windowMargin: Double
    public var anchor: AnchorPolicy
    public var scrollTarget: AnchorPolicy?
    /// Sections as the client described them: a measured item's `size` / `estimatedSize` are
    /// the ones it had before its measurement (what later data is compared with).
    public var sections: [SectionSpec]
    /// Items whose size came from `view.measure`, with that size.
    public var measurements: [(id: String, size: Size)]
    public var selection: [String]
    /// Offsets of orthogonally scrolling sections (compositional), by section id.
    public var sectionOffsets: [(section: String, offset: Double)]
    /// Measured sizes of supplementary elements the strategy keeps (compositional's estimated
    /// boundary items and badges).
    public var supplementaryMeasurements: [(key: ElementKey, size: Size)]

    public init(
        epoch: Int, strategy: String, parameters: [String: ParameterValue], layoutDirection: LayoutDirection, viewport: Viewport,
        windowMargin: Double, anchor: AnchorPolicy, scrollTarget: AnchorPolicy?, sections: [SectionSpec],
        measurements: [(id: String, size: Size)], selection: [String], sectionOffsets: [(section: String, offset: Double)],
        supplementaryMeasurements: [(key: ElementKey, size: Size)]
    ) {
        self.epoch = epoch
        self.strategy = strategy
        self.parameters = parameters
        self.layoutDirection = layoutDirection
        self.viewport = viewport
        self.windowMargin = windowMargin
        self.anchor = anchor
        self.scrollTarget = scrollTarget
        self.sections = sections
        self.measurements = measurements
        self.selection = selection
        self.sectionOffsets = sectionOffsets
        self.supplementaryMeasurements = supplementaryMeasurements
    }
}

/// One item as an export writes it: the client's description, its measured size if it has
/// one, and whether it is selected.
public struct ExportedItem: Hashable, Sendable {
    public var spec: ItemSpec
    public var measuredSize: Size?
    public var isSelected: Bool
}

extension CollectionModel {
    /// Item `index` of section `section` as an export writes it.
    ///
    /// - Complexity: O(log chunks) to find the item, plus a hash lookup when it is measured.
    public func exportedItem(section: Int, index: Int) -> ExportedItem {
        let owner = sections[section]
        var spec = owner.itemSpec(at: index)
        let measured = owner.measuredSize(ofItem: index)
        if measured != nil {
            // The description the measurement replaced: what keeps the measurement when the
            // same data is sent again (`keepMeasuredSizes`). Every measured item has one; an
            // item measured with none is described by its measured size.
            if let before = descriptionsBeforeMeasurement[spec.id] {
                spec.size = before.size
                spec.estimatedSize = before.estimatedSize
            }
        }
        return ExportedItem(spec: spec, measuredSize: measured, isSelected: selection.contains(spec.id))
    }

    /// Makes `id`'s size a measured one whatever its size now (a restore, unlike
    /// `applyMeasurements`, has no tolerance: the state says the item was measured).
    mutating func restoreMeasurement(of id: String, size: Size) throws(LayoutError) {
        guard let path = indexPath(ofItem: id) else { throw .itemNotFound(id) }
        guard size.isValidLayoutExtent else { throw .invalidSize(id: id, field: "measuredSize") }
        if sections[path.section].sizeSource(ofItem: path.item) != .measured {
            descriptionsBeforeMeasurement[id] = SizeDescription(sections[path.section].itemSpec(at: path.item))
        }
        sections[path.section].setMeasuredSize(size, ofItem: path.item)
    }
}

extension View {
    /// The view's state for an export: this view's own when no gesture is in progress, else a
    /// copy's with the move or interactive transition cancelled (its epoch one step on).
    ///
    /// - Complexity: O(sections + measured supplementary elements) besides what the copy and
    ///   the cancel cost; the items are read from `model` page by page by the caller.
    public func exportableView() throws(LayoutError) -> View {
        guard moveState.activeMove != nil || transitionPlan != nil else { return self }
        let copy = try self.copy()
        if copy.moveState.activeMove != nil { _ = try copy.endMove(commit: false, animated: false) }
        if copy.transitionPlan != nil { _ = try copy.endTransition(commit: false) }
        return copy
    }

    private static func validateOffset(of policy: AnchorPolicy) throws(LayoutError) {
        guard case .element(_, _, let offset?) = policy, !(offset.isFinite && LayoutBounds.contains(offset)) else { return }
        throw .invalidParameter(parameter: "anchor.offset", reason: "must be finite and at most \(LayoutBounds.maximumText) in magnitude")
    }

    /// Offsets of the sections that scroll on their own axis and are not at 0.
    public var sectionOffsets: [(section: String, offset: Double)] {
        model.sections.compactMap { section in
            guard let scroll = try? layout.sectionScroll(ofSection: section.id), scroll.scroll.offset != 0 else { return nil }
            return (section.id, scroll.scroll.offset)
        }
    }

    /// Checks what of `state` needs no data: the strategy and its parameters, the viewport,
    /// the window margin and the epoch (what an import can refuse before its items arrive).
    public static func check(_ state: ViewState, limits: ViewLimits = ViewLimits(), registry: StrategyRegistry = .builtIn) throws(LayoutError) {
        guard state.epoch >= 0 else { throw .invalidParameter(parameter: "epoch", reason: "must not be negative") }
        try validate(windowMargin: state.windowMargin)
        try state.viewport.validate()
        _ = try registry.makeStrategy(named: state.strategy, parameters: state.parameters)
    }

    /// Rebuilds a view from its state: the same frames, the same epoch.
    ///
    /// - Throws: what `init(strategy:...)` throws for the strategy, parameters, data, viewport
    ///   and window margin; `itemNotFound` for a measured or selected item that is not in the
    ///   data; `sectionNotFound` / `sectionNotOrthogonal` for a section offset;
    ///   `elementNotFound` for a supplementary measurement of no element; `invalidSize`.
    public convenience init(restoring state: ViewState, limits: ViewLimits = ViewLimits(), registry: StrategyRegistry = .builtIn) throws(LayoutError) {
        guard state.epoch >= 0 else { throw .invalidParameter(parameter: "epoch", reason: "must not be negative") }
        var model = try CollectionModel(sections: state.sections)
        for (id, size) in state.measurements { try model.restoreMeasurement(of: id, size: size) }
        var selection = Set<String>(minimumCapacity: state.selection.count)
        for id in state.selection {
            guard model.contains(item: id) else { throw .itemNotFound(id) }
            selection.insert(id)
        }
        model.selection = selection
        try self.init(
            model: model, strategy: state.strategy, parameters: state.parameters, viewport: state.viewport,
            windowMargin: state.windowMargin, limits: limits, registry: registry, layoutDirection: state.layoutDirection)
        for (id, offset) in state.sectionOffsets {
            let (index, _) = try layout.sectionScroll(ofSection: id)
            guard offset.isFinite, LayoutBounds.contains(offset) else {
                throw .invalidParameter(parameter: "offset", reason: "must be finite and at most \(LayoutBounds.maximumText) in magnitude")
            }
            layout.scrollSection(index, to: offset)
        }
        if !state.supplementaryMeasurements.isEmpty {
            try layout.checkSupplementaryMeasurements(state.supplementaryMeasurements)
            layout.measureSupplementary(state.supplementaryMeasurements, tolerance: 0)
        }
        // An anchor may name an element the data no longer holds (the view keeps such a policy:
        // it then only clamps), so only its offset is checked here.
        try Self.validateOffset(of: state.anchor)
        anchorPolicy = state.anchor
        if let target = state.scrollTarget { try Self.validateOffset(of: target) }
        scrollTarget = state.scrollTarget
        epoch = state.epoch
    }
}
