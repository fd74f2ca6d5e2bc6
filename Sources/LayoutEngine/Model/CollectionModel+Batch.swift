import LayoutGeometry

extension CollectionModel {
    /// Applies `updates` as one atomic batch, in place.
    ///
    /// - Returns: what changed, by id.
    /// - Throws: `itemNotFound` / `sectionNotFound` for unknown ids, `invalidBatch` for an id
    ///   named twice or an update into or out of a deleted section, `indexOutOfRange`,
    ///   `duplicateItemID` / `duplicateSectionID`, `invalidSize`, `invalidID`; the whole batch is
    ///   checked first, so the model is then unchanged.
    /// - Complexity: O(k (log n + chunk size)) for k updated items; section insertions,
    ///   deletions and moves add O(sections), and deleting or reloading a section O(its items).
    /// - Parameter maximumItems: refuse (`limitExceeded`) a batch that would leave more items.
    @discardableResult
    public mutating func apply(_ updates: [BatchUpdate], maximumItems: Int = .max) throws(LayoutError) -> DataChanges {
        let plan = try BatchPlan(updates, model: self)
        guard numberOfItems + plan.changes.insertedItems.count - plan.changes.deletedItems.count <= maximumItems else {
            throw .limitExceeded(limit: "items", maximum: maximumItems)
        }
        var changes = plan.changes
        changes.edits = plan.apply(to: &self)
        if !descriptionsBeforeMeasurement.isEmpty {
            for id in changes.deletedItems { descriptionsBeforeMeasurement[id] = nil }
        }
        return changes
    }

    /// The model after `updates` (see `apply(_:maximumItems:)`), leaving `self` as it is.
    public func applying(
        _ updates: [BatchUpdate], maximumItems: Int = .max
    ) throws(LayoutError) -> (CollectionModel, DataChanges) {
        var copy = self
        let changes = try copy.apply(updates, maximumItems: maximumItems)
        return (copy, changes)
    }

    /// What turning `self` into `new` changes, by id: items and sections that appear,
    /// disappear, change order (the fewest moves: everything outside a longest run that keeps
    /// its relative order) or change their sizes.
    ///
    /// - Complexity: O(n log n).
    public func changes(to new: CollectionModel) -> DataChanges {
        var changes = DataChanges()
        let oldSectionIDs = sections.map(\.id)
        let newSectionIDs = new.sections.map(\.id)
        changes.insertedSections = newSectionIDs.filter { sectionIndex(of: $0) == nil }
        changes.deletedSections = oldSectionIDs.filter { new.sectionIndex(of: $0) == nil }
        changes.movedSections = Self.moved(newSectionIDs.compactMap { id in sectionIndex(of: id).map { (id, $0) } })

        var common = [(String, Int)]()
        var oldOrder = [String: Int]()
        var position = 0
        for section in sections {
            for id in section.itemIDs {
                oldOrder[id] = position
                position += 1
            }
        }
        for section in new.sections {
            for (index, id) in section.itemIDs.enumerated() {
                guard let old = oldOrder[id] else {
                    changes.insertedItems.append(id)
                    continue
                }
                common.append((id, old))
                let oldPath = indexPath(ofItem: id)!
                if self.sections[oldPath.section].itemSpec(at: oldPath.item) != section.itemSpec(at: index) {
                    changes.reloadedItems.append(id)
                }
            }
        }
        for section in sections {
            for id in section.itemIDs where new.indexPath(ofItem: id) == nil { changes.deletedItems.append(id) }
        }
        changes.movedItems = Self.moved(common)
        return changes
    }

    /// Ids (in new order, with their old positions) outside a longest increasing run of old
    /// positions: the fewest elements whose moves explain the new order.
    private static func moved(_ entries: [(String, Int)]) -> [String] {
        // Patience sorting: tails[k] = index into entries of the smallest tail of a run of k+1.
        var tails = [Int]()
        var previous = [Int](repeating: -1, count: entries.count)
        for (index, entry) in entries.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let mid = (low + high) / 2
                if entries[tails[mid]].1 < entry.1 { low = mid + 1 } else { high = mid }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var kept = Set<Int>()
        var cursor = tails.last ?? -1
        while cursor >= 0 {
            kept.insert(cursor)
            cursor = previous[cursor]
        }
        return entries.indices.filter { !kept.contains($0) }.map { entries[$0].0 }
    }
}

/// A batch checked against the model, ready to apply.
private struct BatchPlan {
    var deletedItems = [String]()
    var deletedSections = Set<String>()
    var movedSections = [(id: String, to: Int, order: Int)]()
    var reloadedSections = [String: SectionSpec]()
    var reloadedItems = [ItemSpec]()
    var insertedSections = [(at: Int, order: Int, sections: [SectionSpec])]()
    /// Items placed by the batch (inserted or moved), by target section.
    var placements = [(section: String, at: Int, order: Int, items: [Placed])]()
    var changes = DataChanges()

    enum Placed {
        case new(ItemSpec)
        case moved(String)
    }

    // MARK: Checking

    init(_ updates: [BatchUpdate], model: CollectionModel) throws(LayoutError) {
        var namedItems = Set<String>()
        var namedSections = Set<String>()
        func nameItem(_ id: String) throws(LayoutError) {
            guard namedItems.insert(id).inserted else { throw .invalidBatch(reason: "item '\(id)' is named more than once") }
        }
        func nameSection(_ id: String) throws(LayoutError) {
            guard namedSections.insert(id).inserted else {
                throw .invalidBatch(reason: "section '\(id)' is named more than once")
            }
        }
        func existingItem(_ id: String) throws(LayoutError) {
            guard model.contains(item: id) else { throw .itemNotFound(id) }
        }
        func existingSection(_ id: String) throws(LayoutError) {
            guard model.sectionIndex(of: id) != nil else { throw .sectionNotFound(id) }
        }
        func newItem(_ spec: ItemSpec) throws(LayoutError) {
            try CollectionModel.validate(ItemRecord(spec: spec))
            guard !model.contains(item: spec.id) else { throw .duplicateItemID(spec.id) }
            try nameItem(spec.id)
        }
        func newSection(_ spec: SectionSpec) throws(LayoutError) {
            guard !spec.id.isEmpty else { throw .invalidID(spec.id) }
            try CollectionModel.validateSupplementarySizes(of: spec)
        }

        for (order, update) in updates.enumerated() {
            switch update {
            case .deleteSections(let ids):
                for id in ids {
                    try existingSection(id)
                    try nameSection(id)
                    deletedSections.insert(id)
                    changes.deletedSections.append(id)
                }
            case .moveSection(let id, let index):
                try existingSection(id)
                try nameSection(id)
                movedSections.append((id, index, order))
                changes.movedSections.append(id)
            case .reloadSections(let specs):
                for spec in specs {
                    try existingSection(spec.id)
                    try nameSection(spec.id)
                    try newSection(spec)
                    reloadedSections[spec.id] = spec
                    changes.reloadedSections.append(spec.id)
                }
            case .insertSections(let specs, let index):
                for spec in specs {
                    guard model.sectionIndex(of: spec.id) == nil else { throw .duplicateSectionID(spec.id) }
                    try nameSection(spec.id)
                    try newSection(spec)
                    for item in spec.items { try newItem(item) }
                    changes.insertedSections.append(spec.id)
                    changes.insertedItems += spec.items.map(\.id)
                }
                insertedSections.append((index, order, specs))
            case .deleteItems(let ids):
                for id in ids {
                    try existingItem(id)
                    try nameItem(id)
                    deletedItems.append(id)
                    changes.deletedItems.append(id)
                }
            case .moveItem(let id, let section, let index):
                try existingItem(id)
                try nameItem(id)
                placements.append((section, index, order, [.moved(id)]))
                changes.movedItems.append(id)
            case .reloadItems(let specs):
                for spec in specs {
                    try existingItem(spec.id)
                    try nameItem(spec.id)
                    try CollectionModel.validate(ItemRecord(spec: spec))
                    reloadedItems.append(spec)
                    changes.reloadedItems.append(spec.id)
                }
            case .insertItems(let specs, let section, let index):
                for spec in specs { try newItem(spec) }
                changes.insertedItems += specs.map(\.id)
                placements.append((section, index, order, specs.map { .new($0) }))
            }
        }
        try checkSections(model: model, namedItems: namedItems)
        try checkPositions(model: model)
        var touched = Set(placements.map(\.section))
        for id in namedItems {
            if let path = model.indexPath(ofItem: id) { touched.insert(model.sections[path.section].id) }
        }
        changes.touchedSections = touched.sorted()
    }

    /// Nothing may reach into a section the batch deletes or reloads wholesale, and a reloaded
    /// section's new items must not exist elsewhere.
    private mutating func checkSections(model: CollectionModel, namedItems: Set<String>) throws(LayoutError) {
        let replacedSections = deletedSections.union(reloadedSections.keys)
        for id in namedItems {
            guard let path = model.indexPath(ofItem: id) else { continue }
            let section = model.sections[path.section].id
            if replacedSections.contains(section) {
                throw .invalidBatch(reason: "item '\(id)' is in section '\(section)', which the batch deletes or reloads")
            }
        }
        for placement in placements where deletedSections.contains(placement.section) {
            throw .invalidBatch(reason: "section '\(placement.section)' is deleted by the same batch")
        }
        for move in movedSections where deletedSections.contains(move.id) {
            throw .invalidBatch(reason: "section '\(move.id)' is both moved and deleted")
        }
        for id in reloadedSections.keys where deletedSections.contains(id) {
            throw .invalidBatch(reason: "section '\(id)' is both reloaded and deleted")
        }
        for (id, spec) in reloadedSections.sorted(by: { $0.key < $1.key }) {
            let old = model.sections[model.sectionIndex(of: id)!]
            let oldIDs = Set(old.itemIDs)
            var newIDs = Set<String>()
            for item in spec.items {
                try CollectionModel.validate(ItemRecord(spec: item))
                guard newIDs.insert(item.id).inserted else { throw .duplicateItemID(item.id) }
                if !oldIDs.contains(item.id) && (model.contains(item: item.id) || namedItems.contains(item.id)) {
                    throw .duplicateItemID(item.id)
                }
            }
            changes.deletedItems += old.itemIDs.filter { !newIDs.contains($0) }
            changes.insertedItems += spec.items.map(\.id).filter { !oldIDs.contains($0) }
        }
        for id in deletedSections.sorted() {
            changes.deletedItems += model.sections[model.sectionIndex(of: id)!].itemIDs
        }
    }

    /// Simulates the counts the batch leaves, so every final position is checked before
    /// anything changes.
    private func checkPositions(model: CollectionModel) throws(LayoutError) {
        var sectionCount = model.numberOfSections - deletedSections.count - movedSections.count
        var sectionInsertions = insertedSections.flatMap { insertion in
            insertion.sections.indices.map { (at: insertion.at + $0, order: insertion.order) }
        }
        sectionInsertions += movedSections.map { (at: $0.to, order: $0.order) }
        for insertion in sectionInsertions.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            guard insertion.at >= 0, insertion.at <= sectionCount else {
                throw .indexOutOfRange(target: "sections", index: insertion.at, count: sectionCount)
            }
            sectionCount += 1
        }
        var counts = [String: Int]()
        for section in model.sections where !deletedSections.contains(section.id) {
            counts[section.id] = reloadedSections[section.id]?.items.count ?? section.count
        }
        for insertion in insertedSections {
            for spec in insertion.sections { counts[spec.id] = spec.items.count }
        }
        for placement in placements {
            if case .moved(let id) = placement.items[0], let path = model.indexPath(ofItem: id) {
                counts[model.sections[path.section].id]! -= 1
            }
        }
        for id in deletedItems {
            counts[model.sections[model.indexPath(ofItem: id)!.section].id]! -= 1
        }
        for placement in placements.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            guard let count = counts[placement.section] else { throw .sectionNotFound(placement.section) }
            guard placement.at >= 0, placement.at <= count else {
                throw .indexOutOfRange(target: "section '\(placement.section)'", index: placement.at, count: count)
            }
            counts[placement.section] = count + placement.items.count
        }
    }

    // MARK: Applying

    /// Applies the checked batch; cannot fail.
    ///
    /// - Returns: the item-level steps taken (none when sections themselves changed).
    func apply(to model: inout CollectionModel) -> [ItemEdit] {
        var edits = [ItemEdit]()
        var droppedFromSelection = Set<String>()
        // 1. Take out deleted and moved items; reload items in place.
        var movedRecords = [String: ItemRecord]()
        for placement in placements {
            guard case .moved(let id) = placement.items[0] else { continue }
            let (record, edit) = model.removeItem(id)
            movedRecords[id] = record
            edits.append(edit)
        }
        for id in deletedItems {
            edits.append(model.removeItem(id).1)
            droppedFromSelection.insert(id)
        }
        for spec in reloadedItems {
            let path = model.indexPath(ofItem: spec.id)!
            edits.append(.resized(section: path.section, item: path.item, previous: model.previousSize(of: path)))
            let record = ItemRecord(spec: spec)
            model.sections[path.section].items.setSize(record.size, source: record.source, at: path.item)
            model.sections[path.section].selectedSizes[spec.id] = spec.selectedSize
        }
        // 2. Sections: drop deleted ones, replace reloaded ones, set moved ones aside.
        let sectionsChanged = !deletedSections.isEmpty || !movedSections.isEmpty || !insertedSections.isEmpty
        if sectionsChanged || !reloadedSections.isEmpty {
            applySectionChanges(to: &model, droppedFromSelection: &droppedFromSelection)
        }
        // 3. Insert items (new and moved) in ascending order of their final positions.
        for placement in placements.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            let records = placement.items.map { placed -> ItemRecord in
                switch placed {
                case .new(let spec): ItemRecord(spec: spec)
                case .moved(let id): movedRecords[id]!
                }
            }
            let ordinal = model.sectionIndex(of: placement.section)!
            let moved = model.sections[ordinal].items.insert(records, at: placement.at)
            model.reindex(moved, sectionSerial: model.sections[ordinal].serial)
            for record in records {
                model.sections[ordinal].selectedSizes[record.id] = record.selectedSize
            }
            edits.append(.inserted(section: ordinal, item: placement.at, count: records.count))
        }
        // 4. Items that left do not stay selected.
        for id in droppedFromSelection where !model.contains(item: id) { model.selection.remove(id) }
        return sectionsChanged || !reloadedSections.isEmpty ? [] : edits
    }

    /// Drops deleted sections, replaces reloaded ones and inserts new and moved ones at their
    /// final positions, in ascending order.
    ///
    /// - Complexity: O(sections + items of deleted, reloaded and inserted sections).
    private func applySectionChanges(to model: inout CollectionModel, droppedFromSelection: inout Set<String>) {
        var setAside = [String: Section]()
        var kept = [Section]()
        for section in model.sections {
            if deletedSections.contains(section.id) {
                model.unindexItems(of: section)
                droppedFromSelection.formUnion(section.itemIDs)
                continue
            }
            var section = section
            if let spec = reloadedSections[section.id] {
                let newIDs = Set(spec.items.map(\.id))
                model.unindexItems(of: section)
                droppedFromSelection.formUnion(section.itemIDs.lazy.filter { !newIDs.contains($0) })
                section = Section(spec: spec, serial: section.serial)
                model.indexItems(of: section)
            }
            if movedSections.contains(where: { $0.id == section.id }) {
                setAside[section.id] = section
            } else {
                kept.append(section)
            }
        }
        var serial = model.nextSectionSerial
        var sectionInsertions = [(at: Int, order: Int, section: Section)]()
        for insertion in insertedSections {
            for (offset, spec) in insertion.sections.enumerated() {
                let section = Section(spec: spec, serial: serial)
                serial += 1
                model.indexItems(of: section)
                sectionInsertions.append((insertion.at + offset, insertion.order, section))
            }
        }
        for move in movedSections { sectionInsertions.append((move.to, move.order, setAside[move.id]!)) }
        for insertion in sectionInsertions.sorted(by: { ($0.at, $0.order) < ($1.at, $1.order) }) {
            kept.insert(insertion.section, at: insertion.at)
        }
        model.sections = kept
        model.reindexSections()
    }
}

extension CollectionModel {
    /// Puts back an item `removeItem` took out, at `target` (section ordinal, final index): with
    /// the removal, exactly what a batch `moveItem` does (records keep sizes, their sources and
    /// the open size; the selection is by id and never left). `Layout.moveItem` does the two
    /// steps apart so the strategy sees each as an incremental update.
    ///
    /// - Returns: the insertion's edit.
    mutating func insert(moved record: ItemRecord, at target: ItemIndexPath) -> ItemEdit {
        let moved = sections[target.section].items.insert([record], at: target.item)
        reindex(moved, sectionSerial: sections[target.section].serial)
        sections[target.section].selectedSizes[record.id] = record.selectedSize
        return .inserted(section: target.section, item: target.item, count: 1)
    }
}
