import LayoutGeometry

/// The data a view lays out: ordered sections of items with client-given, stable string ids,
/// their sizes, and the selection.
///
/// Index paths are derived from order; everything clients say is by id. Every mutating method
/// validates its whole input before changing anything, so a thrown `LayoutError` leaves the
/// model exactly as it was.
///
/// The id index maps an item to its section and chunk (by serials that do not change when
/// other items come and go), so inserting or deleting one item updates one entry, and an index
/// path is computed on demand in O(log n + chunk size).
public struct CollectionModel: Sendable {
    public internal(set) var sections: [Section]
    public internal(set) var selection: Set<String>
    var itemKeys: [String: ItemKey]
    private(set) var sectionIndices: [String: Int]
    /// Section ordinal by section serial, -1 for sections that no longer exist.
    private(set) var sectionOrdinals: [Int]
    /// The size description a measured item had when a measurement first replaced it: what
    /// `keepMeasuredSizes(from:)` compares new data with. An entry counts only while the item's
    /// size is `.measured` (a reload leaves a stale one, which the next measurement replaces);
    /// deleting the item removes it.
    var descriptionsBeforeMeasurement: [String: SizeDescription] = [:]

    /// An item's own size description, without its `selectedSize`.
    struct SizeDescription: Hashable, Sendable {
        var size: Size?
        var estimatedSize: Size?

        init(_ spec: ItemSpec) {
            size = spec.size
            estimatedSize = spec.estimatedSize
        }
    }

    /// Where an item lives: its section's serial and its chunk's serial.
    struct ItemKey: Hashable, Sendable {
        var section: Int32
        var chunk: Int32
    }

    // MARK: Lifecycle

    public init() {
        sections = []
        selection = []
        itemKeys = [:]
        sectionIndices = [:]
        sectionOrdinals = []
    }

    /// Builds a model from client specs.
    ///
    /// - Throws: `invalidID` for empty ids, `duplicateSectionID` / `duplicateItemID`,
    ///   `invalidSize` for negative, NaN or infinite sizes.
    /// - Complexity: O(n) in the number of items.
    public init(sections specs: [SectionSpec]) throws(LayoutError) {
        try self.init(records: specs.map(SectionRecords.init(spec:)))
    }

    /// Builds a model from records (specs, or the sections of another model being rebuilt),
    /// validating ids and sizes.
    init(records: [SectionRecords]) throws(LayoutError) {
        var sectionIndices = [String: Int](minimumCapacity: records.count)
        for (sectionIndex, section) in records.enumerated() {
            guard !section.id.isEmpty else { throw .invalidID(section.id) }
            guard sectionIndices.updateValue(sectionIndex, forKey: section.id) == nil else {
                throw .duplicateSectionID(section.id)
            }
            try Self.validateSupplementarySizes(of: section)
            for item in section.items { try Self.validate(item) }
        }
        let sections = records.enumerated().map { Section(records: $1, serial: $0) }
        // One hash table does both jobs: the id index, and finding duplicates.
        let total = records.reduce(0) { $0 + $1.items.count }
        var itemKeys = [String: ItemKey](minimumCapacity: total)
        for section in sections {
            for chunk in section.items.chunks {
                let key = ItemKey(section: Int32(section.serial), chunk: Int32(chunk.serial))
                for id in chunk.ids where itemKeys.updateValue(key, forKey: id) != nil {
                    throw .duplicateItemID(id)
                }
            }
        }
        self.sections = sections
        self.selection = []
        self.sectionIndices = sectionIndices
        self.sectionOrdinals = Array(sections.indices)
        self.itemKeys = itemKeys
    }

    // MARK: Lookup

    public var numberOfSections: Int { sections.count }

    public var numberOfItems: Int { itemKeys.count }

    /// Items in the section with this id; nil when there is none.
    public func numberOfItems(inSection id: String) -> Int? { sectionIndices[id].map { sections[$0].count } }

    /// - Complexity: O(log n + chunk size).
    public func indexPath(ofItem id: String) -> ItemIndexPath? {
        guard let key = itemKeys[id] else { return nil }
        let section = sectionOrdinals[Int(key.section)]
        guard let item = sections[section].items.position(of: id, inChunk: Int(key.chunk)) else { return nil }
        return ItemIndexPath(section: section, item: item)
    }

    /// Whether an item with this id exists.
    ///
    /// - Complexity: O(1) on average.
    public func contains(item id: String) -> Bool { itemKeys[id] != nil }

    /// - Complexity: O(1) on average.
    public func sectionIndex(of id: String) -> Int? { sectionIndices[id] }

    public func itemID(at path: ItemIndexPath) -> String { sections[path.section].items.id(at: path.item) }

    public func isSelected(_ id: String) -> Bool { selection.contains(id) }

    /// The model as client specs again; `CollectionModel(sections: model.specs)` is an equal model
    /// (selection and measurements aside from sizes are carried in the specs).
    public var specs: [SectionSpec] { sections.map(\.spec) }

    // MARK: Selection

    /// Changes the selection by id.
    ///
    /// - Returns: the ids whose selected state changed, in the order given (for `.set`, the
    ///   newly deselected ones follow in no particular order).
    /// - Throws: `itemNotFound` for any unknown id; the selection is then unchanged.
    /// - Complexity: O(k) for k ids (`.set`: plus the size of the old selection).
    @discardableResult
    public mutating func select(_ ids: [String], mode: SelectionMode) throws(LayoutError) -> [String] {
        for id in ids where itemKeys[id] == nil { throw .itemNotFound(id) }
        var changed = [String]()
        switch mode {
        case .add:
            for id in ids where selection.insert(id).inserted { changed.append(id) }
        case .remove:
            for id in ids where selection.remove(id) != nil { changed.append(id) }
        case .toggle:
            // Toggling the same id twice in one request cancels out, as two toggles would.
            var flips = [String: Int]()
            var order = [String]()
            for id in ids {
                if flips[id] == nil { order.append(id) }
                flips[id, default: 0] += 1
            }
            for id in order where flips[id]! % 2 == 1 {
                if selection.remove(id) == nil { selection.insert(id) }
                changed.append(id)
            }
        case .set:
            let target = Set(ids)
            var seen = Set<String>()
            for id in ids where !selection.contains(id) && seen.insert(id).inserted { changed.append(id) }
            for id in selection where !target.contains(id) { changed.append(id) }
            selection = target
        }
        return changed
    }

    // MARK: Measurement

    /// Applies self-sizing measurements.
    ///
    /// A measurement within `tolerance` (per dimension) of the item's current size is a no-op:
    /// this is what stops the self-sizing loop where a layout pass re-measures a cell that then
    /// differs by a rounding error and triggers another pass.
    ///
    /// - Parameters:
    ///   - measurements: `(id, size)` pairs; a later pair for the same id wins.
    ///   - defaultSize: the strategy's current size for items without their own size.
    ///   - tolerance: 0.5 pt in the product; a parameter so tests can pin it.
    /// - Returns: index paths of the items whose size really changed, in order.
    /// - Throws: `itemNotFound` or `invalidSize`, before anything is applied.
    /// - Complexity: O(k (log n + chunk size)) for k measurements.
    @discardableResult
    public mutating func applyMeasurements(
        _ measurements: [(id: String, size: Size)], defaultSize: Size, tolerance: Double = 0.5
    ) throws(LayoutError) -> [ItemIndexPath] {
        var paths = [ItemIndexPath]()
        paths.reserveCapacity(measurements.count)
        for (id, size) in measurements {
            guard let path = indexPath(ofItem: id) else { throw .itemNotFound(id) }
            guard size.isValidLayoutExtent else { throw .invalidSize(id: id, field: "measuredSize") }
            paths.append(path)
        }
        var changed = Set<ItemIndexPath>()
        for (path, (id, size)) in zip(paths, measurements) {
            let current = sections[path.section].baseSize(ofItem: path.item, default: defaultSize)
            guard !current.isClose(to: size, tolerance: tolerance) else { continue }
            if sections[path.section].sizeSource(ofItem: path.item) != .measured {
                descriptionsBeforeMeasurement[id] = SizeDescription(sections[path.section].itemSpec(at: path.item))
            }
            sections[path.section].setMeasuredSize(size, ofItem: path.item)
            changed.insert(path)
        }
        return changed.sorted()
    }

    /// Carries `old`'s measured sizes over to the items that stay and whose size description
    /// (`size`, `estimatedSize`) is the one they had when they were measured: the same data sent
    /// again keeps what the client measured; a changed description replaces the measurement
    /// (the item is then reloaded). `reloadItems` is how a client asks for a new measurement.
    ///
    /// - Complexity: O(m log n) for m measured items of `old`.
    public mutating func keepMeasuredSizes(from old: CollectionModel) {
        for (id, description) in old.descriptionsBeforeMeasurement {
            guard let oldPath = old.indexPath(ofItem: id),
                let measured = old.sections[oldPath.section].measuredSize(ofItem: oldPath.item),
                let path = indexPath(ofItem: id),
                SizeDescription(sections[path.section].itemSpec(at: path.item)) == description
            else { continue }
            sections[path.section].setMeasuredSize(measured, ofItem: path.item)
            descriptionsBeforeMeasurement[id] = description
        }
    }

    // MARK: Index maintenance

    /// Points the id index at new chunk serials after an `ItemList` insertion.
    mutating func reindex(_ moved: [(id: String, serial: Int)], sectionSerial: Int) {
        for (id, serial) in moved { itemKeys[id] = ItemKey(section: Int32(sectionSerial), chunk: Int32(serial)) }
    }

    /// Recomputes section ordinals and the id → ordinal map after sections came, went or moved.
    ///
    /// - Complexity: O(sections).
    mutating func reindexSections() {
        var ordinals = Array(repeating: -1, count: (sections.map(\.serial).max() ?? -1) + 1)
        var indices = [String: Int](minimumCapacity: sections.count)
        for (ordinal, section) in sections.enumerated() {
            ordinals[section.serial] = ordinal
            indices[section.id] = ordinal
        }
        sectionOrdinals = ordinals
        sectionIndices = indices
    }

    /// Selected items of `section` that have an open size, by item index: what a full layout
    /// lays out at their open size.
    ///
    /// - Complexity: O(expanding items in the section).
    public func openSizes(of section: Section) -> [Int: Size] {
        var open = [Int: Size]()
        for (id, size) in section.selectedSizes where isSelected(id) {
            if let path = indexPath(ofItem: id) { open[path.item] = size }
        }
        return open
    }

    /// The size an item is laid out at now: its open size while selected, else its own, else
    /// `defaultSize`.
    public func layoutSize(of path: ItemIndexPath, default defaultSize: Size) -> Size {
        previousSize(of: path).effective(default: defaultSize)
    }

    /// The size an item has now, in the form a later `ItemEdit` reports it.
    func previousSize(of path: ItemIndexPath) -> PreviousSize {
        let section = sections[path.section]
        let own: Size? = section.items.source(at: path.item) == .strategyDefault
            ? nil : section.baseSize(ofItem: path.item, default: .zero)
        let id = section.items.id(at: path.item)
        return PreviousSize(size: own, openSize: isSelected(id) ? section.selectedSizes[id] : nil)
    }

    /// Removes an item from its section and the id index, keeping the rest of the model.
    ///
    /// - Returns: the item's record (with its selected size), for a move, and its edit.
    mutating func removeItem(_ id: String) -> (ItemRecord, ItemEdit) {
        let path = indexPath(ofItem: id)!
        let edit = ItemEdit.removed(section: path.section, item: path.item, previous: previousSize(of: path))
        let selectedSize = sections[path.section].selectedSizes.removeValue(forKey: id)
        var record = sections[path.section].items.remove(at: path.item)
        record.selectedSize = selectedSize
        itemKeys[id] = nil
        return (record, edit)
    }

    /// Adds every item of `section` to the id index.
    mutating func indexItems(of section: Section) {
        for chunk in section.items.chunks {
            let key = ItemKey(section: Int32(section.serial), chunk: Int32(chunk.serial))
            for id in chunk.ids { itemKeys[id] = key }
        }
    }

    /// A serial no section has used.
    var nextSectionSerial: Int { max(sectionOrdinals.count, (sections.map(\.serial).max() ?? -1) + 1) }

    // MARK: Validation

    static func validate(_ item: ItemRecord) throws(LayoutError) {
        guard !item.id.isEmpty else { throw .invalidID(item.id) }
        if item.source != .strategyDefault, !item.size.isValidLayoutExtent {
            let field = switch item.source {
            case .estimated: "estimatedSize"
            case .measured: "measuredSize"
            case .absolute, .strategyDefault: "size"
            }
            throw .invalidSize(id: item.id, field: field)
        }
        if let size = item.selectedSize, !size.isValidLayoutExtent {
            throw .invalidSize(id: item.id, field: "selectedSize")
        }
    }

    static func validateSupplementarySizes(of section: SectionRecords) throws(LayoutError) {
        if let size = section.headerSize, !size.isValidLayoutExtent {
            throw .invalidSize(id: section.id, field: "headerSize")
        }
        if let size = section.footerSize, !size.isValidLayoutExtent {
            throw .invalidSize(id: section.id, field: "footerSize")
        }
    }
}

/// How `CollectionModel.select(_:mode:)` combines the given ids with the current selection.
public enum SelectionMode: String, Hashable, Sendable, CaseIterable {
    case set, add, remove, toggle
}
