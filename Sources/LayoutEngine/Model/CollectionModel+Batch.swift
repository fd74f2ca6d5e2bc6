import LayoutGeometry

extension CollectionModel {
    /// The model after `updates`, applied as one atomic batch, and what changed.
    ///
    /// - Throws: `itemNotFound` / `sectionNotFound` for unknown ids, `invalidBatch` for an id
    ///   named twice or an update into or out of a deleted section, `indexOutOfRange`,
    ///   `duplicateItemID` / `duplicateSectionID`, `invalidSize`, `invalidID`. `self` is never
    ///   changed: the result is a new model.
    /// - Complexity: O(n + k log k) for n items and k updates.
    public func applying(_ updates: [BatchUpdate]) throws(LayoutError) -> (CollectionModel, DataChanges) {
        var plan = try BatchPlan(updates, model: self)
        return try plan.apply(to: self)
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
    var deletedItems = Set<String>()
    var deletedSections = Set<String>()
    var movedSections = [(id: String, to: Int)]()
    var reloadedSections = [String: SectionSpec]()
    var reloadedItems = [String: ItemSpec]()
    var insertedSections = [(at: Int, order: Int, sections: [SectionSpec])]()
    /// Items placed by the batch (inserted or moved), by target section.
    var placements = [(section: String, at: Int, order: Int, items: [Placed])]()
    var changes = DataChanges()

    enum Placed {
        case new(ItemSpec)
        case moved(String)
    }

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
        func existingItem(_ id: String) throws(LayoutError) -> ItemIndexPath {
            guard let path = model.indexPath(ofItem: id) else { throw .itemNotFound(id) }
            return path
        }
        func existingSection(_ id: String) throws(LayoutError) {
            guard model.sectionIndex(of: id) != nil else { throw .sectionNotFound(id) }
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
                movedSections.append((id, index))
                changes.movedSections.append(id)
            case .reloadSections(let specs):
                for spec in specs {
                    try existingSection(spec.id)
                    try nameSection(spec.id)
                    reloadedSections[spec.id] = spec
                    changes.reloadedSections.append(spec.id)
                }
            case .insertSections(let specs, let index):
                for spec in specs {
                    guard model.sectionIndex(of: spec.id) == nil else { throw .duplicateSectionID(spec.id) }
                    try nameSection(spec.id)
                    changes.insertedSections.append(spec.id)
                    changes.insertedItems += spec.items.map(\.id)
                }
                insertedSections.append((index, order, specs))
            case .deleteItems(let ids):
                for id in ids {
                    _ = try existingItem(id)
                    try nameItem(id)
                    deletedItems.insert(id)
                    changes.deletedItems.append(id)
                }
            case .moveItem(let id, let section, let index):
                _ = try existingItem(id)
                try nameItem(id)
                placements.append((section, index, order, [.moved(id)]))
                changes.movedItems.append(id)
            case .reloadItems(let specs):
                for spec in specs {
                    _ = try existingItem(spec.id)
                    try nameItem(spec.id)
                    reloadedItems[spec.id] = spec
                    changes.reloadedItems.append(spec.id)
                }
            case .insertItems(let specs, let section, let index):
                for spec in specs {
                    guard model.indexPath(ofItem: spec.id) == nil else { throw .duplicateItemID(spec.id) }
                    try nameItem(spec.id)
                    changes.insertedItems.append(spec.id)
                }
                placements.append((section, index, order, specs.map { .new($0) }))
            }
        }
        // Nothing may reach into a section the batch deletes or reloads wholesale.
        let replacedSections = deletedSections.union(reloadedSections.keys)
        for id in namedItems where model.indexPath(ofItem: id) != nil {
            let section = model.sections[model.indexPath(ofItem: id)!.section].id
            if replacedSections.contains(section) {
                throw .invalidBatch(reason: "item '\(id)' is in section '\(section)', which the batch deletes or reloads")
            }
        }
        for placement in placements where deletedSections.contains(placement.section) {
            throw .invalidBatch(reason: "section '\(placement.section)' is deleted by the same batch")
        }
        for (id, _) in movedSections where deletedSections.contains(id) {
            throw .invalidBatch(reason: "section '\(id)' is both moved and deleted")
        }
        for id in reloadedSections.keys where deletedSections.contains(id) {
            throw .invalidBatch(reason: "section '\(id)' is both reloaded and deleted")
        }
        // Items of reloaded sections: old ones that do not come back are deleted, new ones inserted.
        for (id, spec) in reloadedSections {
            let old = model.sections[model.sectionIndex(of: id)!]
            let newIDs = Set(spec.items.map(\.id))
            changes.deletedItems += old.itemIDs.filter { !newIDs.contains($0) }
            let oldIDs = Set(old.itemIDs)
            changes.insertedItems += spec.items.map(\.id).filter { !oldIDs.contains($0) }
        }
        for id in deletedSections {
            changes.deletedItems += model.sections[model.sectionIndex(of: id)!].itemIDs
        }
    }

    mutating func apply(to model: CollectionModel) throws(LayoutError) -> (CollectionModel, DataChanges) {
        // 1. Remove what is deleted or moved; replace what is reloaded.
        let movedItemIDs = Set(placements.flatMap { $0.items }.compactMap { placed -> String? in
            if case .moved(let id) = placed { return id }
            return nil
        })
        let movedSectionIDs = Set(movedSections.map(\.id))
        var working = [SectionRecords]()
        var setAside = [String: SectionRecords]()
        var itemRecords = [String: ItemRecord]()
        for section in model.sections where !deletedSections.contains(section.id) {
            var records: SectionRecords
            if let spec = reloadedSections[section.id] {
                records = SectionRecords(spec: spec)
            } else {
                records = SectionRecords(section: section)
                records.items.removeAll { record in
                    if movedItemIDs.contains(record.id) { itemRecords[record.id] = record }
                    return deletedItems.contains(record.id) || movedItemIDs.contains(record.id)
                }
                for index in records.items.indices {
                    if let spec = reloadedItems[records.items[index].id] {
                        records.items[index] = ItemRecord(spec: spec)
                    }
                }
            }
            if movedSectionIDs.contains(section.id) {
                setAside[section.id] = records
            } else {
                working.append(records)
            }
        }
        // 2. Insert sections (new and moved) in ascending order of their final positions.
        var sectionInsertions = insertedSections.flatMap { insertion in
            insertion.sections.enumerated().map { offset, spec in
                (at: insertion.at + offset, order: insertion.order, records: SectionRecords(spec: spec))
            }
        }
        for (order, move) in movedSections.enumerated() {
            sectionInsertions.append((move.to, -1 - order, setAside[move.id]!))
        }
        sectionInsertions.sort { ($0.at, $0.order) < ($1.at, $1.order) }
        for insertion in sectionInsertions {
            guard insertion.at >= 0, insertion.at <= working.count else {
                throw .indexOutOfRange(target: "sections", index: insertion.at, count: working.count)
            }
            working.insert(insertion.records, at: insertion.at)
        }
        // 3. Insert items (new and moved) in ascending order of their final positions.
        var sectionPositions = [String: Int]()
        for (index, section) in working.enumerated() { sectionPositions[section.id] = index }
        let ordered = placements.sorted { ($0.at, $0.order) < ($1.at, $1.order) }
        for placement in ordered {
            guard let target = sectionPositions[placement.section] else { throw .sectionNotFound(placement.section) }
            let count = working[target].items.count
            guard placement.at >= 0, placement.at <= count else {
                throw .indexOutOfRange(target: "section '\(placement.section)'", index: placement.at, count: count)
            }
            let records = placement.items.map { placed -> ItemRecord in
                switch placed {
                case .new(let spec): ItemRecord(spec: spec)
                case .moved(let id): itemRecords[id]!
                }
            }
            working[target].items.insert(contentsOf: records, at: placement.at)
        }
        // 4. Build and validate the final model (ids unique, sizes valid); keep the selection
        //    of items that survive.
        var result = try CollectionModel(records: working)
        let surviving = model.selection.filter { result.indexPath(ofItem: $0) != nil }
        try result.select(Array(surviving), mode: .set)
        return (result, changes)
    }
}
