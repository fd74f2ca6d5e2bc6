import LayoutGeometry

/// A uniform grid that can stack runs of selected items (docs/layout-semantics.md, section 2, and
/// the stacking-grid question in the seeds).
///
/// While `collapsed` is true, every run of consecutive selected items in one section shares the
/// frame of the run's first item; later items move up to close the gap; within a stack, later
/// items sit on top (zIndex = item index). Sections stack vertically, each starting a new row,
/// with `sectionSpacing` between sections that have items.
///
/// Positions come from *slots*: item i of a section sits in slot `Σ advances(j) for j < i`,
/// where an item advances the cursor unless it and the next item are both selected (and the
/// layout is collapsed). Slots live in a Fenwick tree per section over the advance flags, and
/// section offsets in a Fenwick tree over section extents, so a selection toggle, a single
/// insert or delete is O(log n + chunk), and a rect query O(log n + k).
public final class CollapsibleLayout: NativeStrategy {
    /// How toggling `collapsed` animates.
    public enum TransitionStyle: String, Sendable, CaseIterable {
        /// Everything moves together.
        case basic
        /// Each run's items first slide onto the run's first frame, staggered, then the rest
        /// moves (collapsing only; expanding is always basic).
        case preStack
    }

    public static let descriptor = StrategyDescriptor(
        name: "collapsible",
        summary: "uniform grid whose runs of consecutive selected items stack into one cell, animated",
        parameters: [
            ParameterDescription("itemSize", .size, default: .size(Size(width: 50, height: 50)), "size of every item"),
            ParameterDescription(
                "itemSpacing", .number(minimum: 0, maximum: nil), default: .number(8), "gap between items in a row"),
            ParameterDescription("rowSpacing", .number(minimum: 0, maximum: nil), default: .number(8), "gap between rows"),
            ParameterDescription(
                "sectionSpacing", .number(minimum: 0, maximum: nil), default: .number(8),
                "gap between sections that have items"),
            ParameterDescription("collapsed", .bool, default: .bool(false), "stack runs of consecutive selected items"),
            ParameterDescription(
                "transition", .choice(TransitionStyle.allCases.map(\.rawValue)), default: .string("basic"),
                "how collapsing animates: basic, or preStack (runs slide onto their first item first)"),
            ParameterDescription(
                "animationDuration", .number(minimum: 0, maximum: 10), default: .number(0.5),
                "seconds for a basic transition"),
        ])

    public let parameters: ResolvedParameters
    let itemSize: Size
    let itemSpacing: Double
    let rowSpacing: Double
    let sectionSpacing: Double
    public let isCollapsed: Bool
    let transitionStyle: TransitionStyle
    let animationDuration: Double

    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    private(set) var columns = 1
    private(set) var items = GlobalItemIndex()
    /// Per section, per item: 1 if the item advances the slot cursor. Empty when not collapsed
    /// (every item advances, and slots are item indices).
    private(set) var advances: [ChunkedFlags] = []
    /// Per section: its extent plus the spacing after it (when it has items).
    private var sectionExtents = FenwickTree<Double>([])
    private var sectionsWithItems = 0
    /// See `LayoutStrategy.changeStart`: set by every incremental update.
    public private(set) var changeStart: Double?

    // MARK: Lifecycle

    public init(parameters: ResolvedParameters) {
        self.parameters = parameters
        itemSize = parameters.size("itemSize")
        itemSpacing = parameters.number("itemSpacing")
        rowSpacing = parameters.number("rowSpacing")
        sectionSpacing = parameters.number("sectionSpacing")
        isCollapsed = parameters.bool("collapsed")
        transitionStyle = parameters.choice("transition", as: TransitionStyle.self)
        animationDuration = parameters.number("animationDuration")
    }

    /// Every cache is a value: the copy shares its storage until one side changes it.
    public func copy(model: CollectionModel) -> any LayoutStrategy {
        let copy = CollapsibleLayout(parameters: parameters)
        copy.viewport = viewport
        copy.columns = columns
        copy.items = items
        copy.advances = advances
        copy.sectionExtents = sectionExtents
        copy.sectionsWithItems = sectionsWithItems
        copy.changeStart = changeStart
        return copy
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { .vertical }

    public var defaultItemSize: Size { itemSize }

    /// - Complexity: O(n + selection) when collapsed, O(sections) otherwise.
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        columns = Self.columns(itemWidth: itemSize.width, spacing: itemSpacing, available: viewport.size.width)
        items = GlobalItemIndex(model)
        if isCollapsed {
            var flags = model.sections.map { [UInt8](repeating: 1, count: $0.count) }
            for id in model.selection {
                guard let path = model.indexPath(ofItem: id) else { continue }
                flags[path.section][path.item] = advanceFlag(at: path, model: model)
            }
            advances = flags.map(ChunkedFlags.init)
        } else {
            advances = []
        }
        updateSectionExtents(model: model)
        changeStart = nil
    }

    /// A single item edit in a section updates its flags in place; several rebuild that
    /// section's flags; section changes re-prepare.
    ///
    /// - Complexity: O(log n + chunk + sections) for one edit per section.
    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) {
        guard !changes.changesSectionList, model.numberOfSections == items.sectionCount else {
            prepare(model: model, viewport: viewport)
            return
        }
        let start = changeStart(of: changes.edits)
        let firstEdited = min(changes.edits.map(\.section).min() ?? 0, max(items.sectionCount - 1, 0))
        let unchangedStarts = (0...firstEdited).map(sectionStart)
        items = GlobalItemIndex(model)
        if isCollapsed {
            var bySection = [Int: [ItemEdit]]()
            for edit in changes.edits { bySection[edit.section, default: []].append(edit) }
            for (section, edits) in bySection {
                if edits.count == 1 {
                    apply(edits[0], model: model)
                } else {
                    rebuildFlags(ofSection: section, model: model)
                }
            }
        }
        updateSectionExtents(model: model)
        // The section extents are summed afresh: a section before the change may start an ulp
        // away from where it did, and then everything may have moved.
        changeStart = unchangedStarts == (0...firstEdited).map(sectionStart) ? start : nil
    }

    /// Where the items that `edits` move start (before the edits): the row of the item before
    /// the first edit in the first section edited (its successors move; the item itself only
    /// changes its flag, which places the next one). Several edits in a section rebuild its
    /// flags: the section's start.
    private func changeStart(of edits: [ItemEdit]) -> Double? {
        var bySection = [Int: [ItemEdit]]()
        for edit in edits { bySection[edit.section, default: []].append(edit) }
        guard let first = bySection.keys.min(), first < items.sectionCount else { return edits.isEmpty ? .infinity : nil }
        let sectionEdits = bySection[first]!
        guard sectionEdits.count == 1 else { return sectionStart(first) }
        let item: Int
        switch sectionEdits[0] {
        case .removed(_, let index, _), .inserted(_, let index, _): item = index
        case .resized: return edits.count == 1 ? .infinity : sectionStart(first)
        }
        return rowStart(ofItem: max(item - 1, 0), section: first)
    }

    /// The start of the row holding item `item` of `section` (clamped to the section's items).
    private func rowStart(ofItem item: Int, section: Int) -> Double {
        let count = items.end(ofSection: section) - items.first(ofSection: section)
        guard count > 0 else { return sectionStart(section) }
        let slot = slot(ofGlobal: items.first(ofSection: section) + min(item, count - 1), section: section)
        return frame(ofSlot: slot, sectionStart: sectionStart(section)).minY
    }

    /// One edit changes the flags of the items it inserts or removes and of the item before it
    /// (whose next neighbour changed).
    ///
    /// - Complexity: O(log n + chunk size + k) for k inserted items.
    private func apply(_ edit: ItemEdit, model: CollectionModel) {
        let section = edit.section
        switch edit {
        case .removed(_, let item, _):
            advances[section].remove(at: item)
            if item > 0 { refreshFlag(ItemIndexPath(section: section, item: item - 1), model: model) }
        case .inserted(_, let item, let count):
            let flags = (item..<(item + count)).map { advanceFlag(at: ItemIndexPath(section: section, item: $0), model: model) }
            advances[section].insert(contentsOf: flags, at: item)
            if item > 0 { refreshFlag(ItemIndexPath(section: section, item: item - 1), model: model) }
        case .resized:
            break  // sizes are uniform: nothing moves
        }
    }

    private func refreshFlag(_ path: ItemIndexPath, model: CollectionModel) {
        advances[path.section].set(advanceFlag(at: path, model: model), at: path.item)
    }

    private func rebuildFlags(ofSection section: Int, model: CollectionModel) {
        var flags = [UInt8](repeating: 1, count: model.sections[section].count)
        for (item, itemID) in model.sections[section].itemIDs.enumerated() where model.isSelected(itemID) {
            flags[item] = advanceFlag(at: ItemIndexPath(section: section, item: item), model: model)
        }
        advances[section] = ChunkedFlags(flags)
    }

    private func updateSectionExtents(model: CollectionModel) {
        sectionsWithItems = model.sections.count { $0.count > 0 }
        sectionExtents = FenwickTree((0..<model.numberOfSections).map(extentWithSpacing(ofSection:)))
    }

    /// Flips the advance flags around each changed item and updates the section's extent.
    ///
    /// - Complexity: O(k log n) for k ids; O(1) when not collapsed (selection does not move
    ///   anything then).
    ///
    /// Sets `changeStart` to the row of the first item whose flag flipped: the items after it
    /// move, it and those before it stay. An item with no selected neighbour flips none, so
    /// most toggles move nothing.
    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        guard isCollapsed else {
            changeStart = .infinity
            return
        }
        var start = Double.infinity
        var touchedSections = Set<Int>()
        for id in ids {
            guard let path = model.indexPath(ofItem: id) else { continue }
            for item in [path.item - 1, path.item] where item >= 0 {
                let neighbour = ItemIndexPath(section: path.section, item: item)
                let flag = advanceFlag(at: neighbour, model: model)
                guard flag != advances[path.section][item] else { continue }
                start = min(start, rowStart(ofItem: item, section: path.section))
                advances[path.section].set(flag, at: item)
            }
            touchedSections.insert(path.section)
        }
        for section in touchedSections {
            let old = sectionExtents.value(at: section)
            sectionExtents.add(extentWithSpacing(ofSection: section) - old, at: section)
        }
        // Adding to one section's extent leaves the sums before it as they were.
        changeStart = start
    }

    /// Sizes are uniform: measurements do not move anything.
    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        changeStart = .infinity
    }

    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let widthChanged = newViewport.size.width != viewport.size.width
        viewport = newViewport
        guard widthChanged else { return .none }
        let newColumns = Self.columns(itemWidth: itemSize.width, spacing: itemSpacing, available: newViewport.size.width)
        guard newColumns != columns else { return .none }
        prepare(model: model, viewport: newViewport)
        return .layout
    }

    public var contentSize: Size {
        let height = max(0, sectionExtents.total - (sectionsWithItems > 0 ? sectionSpacing : 0))
        return Size(width: max(viewport.size.width, itemSize.width), height: height)
    }

    // MARK: Geometry

    /// Items per row: the seed wraps on `x > width` and lets items overflow; we wrap as soon as
    /// `x + w > width` (see `lineCapacity`). Items that take no room share one row.
    static func columns(itemWidth w: Double, spacing s: Double, available: Double) -> Int {
        lineCapacity(itemExtent: w, spacing: s, available: available) ?? 1 << 40
    }

    /// 0 when the item and the next one in its section are both selected (it stacks under
    /// the next), else 1.
    private func advanceFlag(at path: ItemIndexPath, model: CollectionModel) -> UInt8 {
        let section = model.sections[path.section]
        guard path.item + 1 < section.count else { return 1 }
        return model.isSelected(section.itemIDs[path.item]) && model.isSelected(section.itemIDs[path.item + 1]) ? 0 : 1
    }

    /// Slots (grid positions) a section uses.
    func slotCount(ofSection section: Int) -> Int {
        guard isCollapsed else { return items.end(ofSection: section) - items.first(ofSection: section) }
        return advances[section].total
    }

    func rowCount(ofSection section: Int) -> Int {
        let slotCount = slotCount(ofSection: section)
        return slotCount == 0 ? 0 : (slotCount + columns - 1) / columns
    }

    private func extentWithSpacing(ofSection section: Int) -> Double {
        let rows = rowCount(ofSection: section)
        guard rows > 0 else { return 0 }
        return Double(rows) * itemSize.height + Double(rows - 1) * rowSpacing + sectionSpacing
    }

    func sectionStart(_ section: Int) -> Double { sectionExtents.prefixSum(section) }

    /// The first section whose extent, trailing spacing included, ends after `y`.
    ///
    /// - Complexity: O(log sections).
    func firstSection(endingAfter y: Double) -> Int {
        max(0, sectionExtents.firstCount(reaching: y, strictly: true) - 1)
    }

    /// The slot of the item with global index `global` in `section`.
    ///
    /// - Complexity: O(log n) when collapsed, O(1) otherwise.
    func slot(ofGlobal global: Int, section: Int) -> Int {
        let item = global - items.first(ofSection: section)
        guard isCollapsed else { return item }
        return advances[section].prefixSum(item)
    }

    /// The first item of `section` (global index) whose slot is at least `slot`.
    func firstItem(inSection section: Int, slotAtLeast slot: Int) -> Int {
        let first = items.first(ofSection: section)
        let count = items.end(ofSection: section) - first
        guard isCollapsed else { return first + min(slot, count) }
        return first + min(advances[section].firstCount(reaching: slot), count)
    }

    func frame(ofSlot slot: Int, sectionStart: Double) -> Rect {
        let row = slot / columns
        let column = slot % columns
        return Rect(
            x: Double(column) * (itemSize.width + itemSpacing),
            y: sectionStart + Double(row) * (itemSize.height + rowSpacing),
            width: itemSize.width, height: itemSize.height)
    }
}
