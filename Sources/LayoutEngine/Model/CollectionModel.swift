import LayoutGeometry

/// The data a view lays out: ordered sections of items with client-given, stable string ids,
/// their sizes, and the selection.
///
/// Index paths are derived from order; everything clients say is by id. Every mutating method
/// validates its whole input before changing anything, so a thrown `LayoutError` leaves the
/// model exactly as it was.
///
/// The id index (`ItemIndex`) maps an item to its section and chunk (by serials that do not
/// change when other items come and go), so inserting or deleting one item updates one entry,
/// and an index path is computed on demand in O(log n + chunk size). Ids are compared byte for
/// byte (their UTF-8), as the wire carries them.
public struct CollectionModel: Sendable {
    public internal(set) var sections: [Section]
    public internal(set) var selection: Set<String>
    var itemIndex: ItemIndex
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
    typealias ItemKey = ItemIndex.Location

    // MARK: Lifecycle

    public init() {
        sections = []
        selection = []
        itemIndex = ItemIndex()
        sectionIndices = [:]
        sectionOrdinals = []
    }

    /// Builds a model from client specs.
    ///
    /// - Throws: `invalidID` for empty ids, `duplicateSectionID` / `duplicateItemID`,
    ///   `invalidSize` for negative, NaN or infinite sizes.
    /// - Complexity: O(n) in the number of items.
    public init(sections specs: [SectionSpec]) throws(LayoutError) {
        var sectionIndices = [String: Int](minimumCapacity: specs.count)
        for (sectionIndex, section) in specs.enumerated() {
            guard !section.id.isEmpty else { throw .invalidID(section.id) }
            guard sectionIndices.updateValue(sectionIndex, forKey: section.id) == nil else {
                throw .duplicateSectionID(section.id)
            }
            try Self.validateSupplementarySizes(of: section)
            for item in section.items { try Self.validate(ItemRecord(spec: item)) }
        }
        self.sections = specs.enumerated().map { Section(spec: $1, serial: $0) }
        self.selection = []
        self.sectionIndices = sectionIndices
        self.sectionOrdinals = Array(sections.indices)
        self.itemIndex = ItemIndex(capacity: specs.reduce(0) { $0 + $1.items.count })
        // One table does both jobs: the id index, and finding duplicates.
        for section in sections { try indexNewItems(of: section) }
    }

    /// Adds every item of `section` (one of `sections`) to the id index, refusing an id that is
    /// there already.
    private mutating func indexNewItems(of section: Section) throws(LayoutError) {
        for chunk in section.items.chunks {
            let key = ItemKey(section: Int32(section.serial), chunk: Int32(chunk.serial))
            for offset in chunk.ids.indices {
                let duplicate = chunk.ids.withUTF8(at: offset) { utf8 in
                    let hash = ItemIndex.hash(utf8)
                    // The item is in its chunk already: a slot naming that chunk is this id's
                    // only if the id is there twice.
                    let existing = itemIndex.first(hash: hash) { candidate in
                        candidate == key
                            ? section.items.occursTwice(utf8, hash: hash, inChunk: Int(key.chunk))
                            : find(utf8, hash: hash, at: candidate) != nil
                    }
                    if existing == nil { itemIndex.insert(hash: hash, key) }
                    return existing != nil
                }
                if duplicate { throw .duplicateItemID(chunk.ids[offset]) }
            }
        }
    }

    // MARK: Lookup

    public var numberOfSections: Int { sections.count }

    public var numberOfItems: Int { itemIndex.count }

    /// Items in the section with this id; nil when there is none.
    public func numberOfItems(inSection id: String) -> Int? { sectionIndices[id].map { sections[$0].count } }

    /// - Complexity: O(log n + chunk size).
    public func indexPath(ofItem id: String) -> ItemIndexPath? { locate(id)?.path }

    /// An item's index path, its entry in the id index and its id's hash.
    func locate(_ id: String) -> (path: ItemIndexPath, key: ItemKey, hash: UInt32)? {
        var id = id
        return id.withUTF8 { utf8 in
            let hash = ItemIndex.hash(utf8)
            var path: ItemIndexPath?
            guard let key = itemIndex.first(hash: hash, where: { key in
                path = find(utf8, hash: hash, at: key)
                return path != nil
            }) else { return nil }
            return (path!, key, hash)
        }
    }

    /// The index path of the id `utf8` if it lives where `key` says.
    private func find(_ utf8: UnsafeBufferPointer<UInt8>, hash: UInt32, at key: ItemKey) -> ItemIndexPath? {
        let section = sectionOrdinals[Int(key.section)]
        guard section >= 0, let item = sections[section].items.position(of: utf8, hash: hash, inChunk: Int(key.chunk)) else {
            return nil
        }
        return ItemIndexPath(section: section, item: item)
    }

    /// Whether an item with this id exists.
    ///
    /// - Complexity: O(1) on average.
    public func contains(item id: String) -> Bool { locate(id) != nil }

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
        for id in ids where !contains(item: id) { throw .itemNotFound(id) }
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

    /// Adds the new items of an `ItemList` insertion to the id index, and points it at the new
    /// chunks of those it moved.
    mutating func reindex(_ relocations: [ItemList.Relocation], sectionSerial: Int) {
        let section = Int32(sectionSerial)
        for relocation in relocations {
            let hash = ItemIndex.hash(relocation.id)
            let key = ItemKey(section: section, chunk: Int32(relocation.to))
            if let from = relocation.from {
                itemIndex.replace(hash: hash, ItemKey(section: section, chunk: Int32(from)), with: key)
            } else {
                itemIndex.insert(hash: hash, key)
            }
        }
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
        let (path, key, hash) = locate(id)!
        let edit = ItemEdit.removed(section: path.section, item: path.item, previous: previousSize(of: path))
        let selectedSize = sections[path.section].selectedSizes.removeValue(forKey: id)
        var record = sections[path.section].items.remove(at: path.item)
        record.selectedSize = selectedSize
        itemIndex.remove(hash: hash, key)
        return (record, edit)
    }

    /// Adds every item of `section`, whose ids the batch has checked, to the id index.
    mutating func indexItems(of section: Section) {
        forEachEntry(of: section) { itemIndex.insert(hash: $0, $1) }
    }

    /// Takes every item of `section` out of the id index.
    mutating func unindexItems(of section: Section) {
        forEachEntry(of: section) { itemIndex.remove(hash: $0, $1) }
    }

    private func forEachEntry(of section: Section, _ body: (UInt32, ItemKey) -> Void) {
        for chunk in section.items.chunks {
            let key = ItemKey(section: Int32(section.serial), chunk: Int32(chunk.serial))
            for offset in chunk.ids.indices { body(chunk.ids.withUTF8(at: offset, ItemIndex.hash), key) }
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

    static func validateSupplementarySizes(of section: SectionSpec) throws(LayoutError) {
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
