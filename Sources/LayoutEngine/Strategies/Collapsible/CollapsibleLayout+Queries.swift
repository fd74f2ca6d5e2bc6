import LayoutGeometry

extension CollapsibleLayout {
    /// - Complexity: O(log n + k): a Fenwick descent finds the first section, rows are
    ///   arithmetic, and another descent finds the first item of the first row.
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        guard rect.isFinite else { return [] }
        var result = [LayoutAttributes]()
        let pitch = itemSize.height + rowSpacing
        // The first section whose extent (with its trailing spacing) ends after rect.minY.
        var section = min(items.sectionCount, firstSection(endingAfter: rect.minY))
        while section < items.sectionCount {
            let start = sectionStart(section)
            guard start < rect.maxY else { break }
            let rows = rowCount(ofSection: section)
            if rows > 0 {
                let rowRange = EvenlySpacedLines(count: rows, extent: itemSize.height, pitch: pitch)
                    .lines(overlapping: rect.minY - start, rect.maxY - start)
                let firstRow = rowRange.lowerBound
                var row = firstRow
                var global = firstItem(inSection: section, slotAtLeast: firstRow * columns)
                let sectionEnd = items.end(ofSection: section)
                // One prefix sum for the first item; each later one's slot follows from the
                // advances walked over.
                var currentSlot = global < sectionEnd ? slot(ofGlobal: global, section: section) : 0
                result.reserveCapacity(result.count + rowRange.count * min(columns, sectionEnd - global))
                while row < rowRange.upperBound, global < sectionEnd {
                    let slotLimit = (row + 1) * columns
                    while global < sectionEnd && currentSlot < slotLimit {
                        let frame = frame(ofSlot: currentSlot, sectionStart: start)
                        if frame.intersects(rect) {
                            result.append(cell(global: global, section: section, frame: frame, model: model))
                        }
                        currentSlot += advance(atGlobal: global, section: section)
                        global += 1
                    }
                    row += 1
                }
            }
            section += 1
        }
        return result
    }

    /// - Complexity: O(log n).
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), path.section < items.sectionCount else { return nil }
        let global = items.global(path)
        let frame = frame(ofSlot: slot(ofGlobal: global, section: path.section), sectionStart: sectionStart(path.section))
        return cell(global: global, section: path.section, frame: frame, model: model)
    }

    /// Collapsible grids have no headers or footers.
    public func attributes(
        forSupplementary kind: ElementKind, id: String, model: CollectionModel
    ) -> LayoutAttributes? {
        nil
    }

    /// An item inserted into a stack comes out from under it: it starts at the stack's frame,
    /// fully opaque, instead of fading in.
    public func initialAttributes(forAppearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes {
        var initial = attributes
        guard let path = attributes.indexPath, isStacked(path) else {
            initial.alpha = 0
            return initial
        }
        return initial
    }

    // MARK: Helpers

    func isStacked(_ path: ItemIndexPath) -> Bool {
        guard isCollapsed, path.item > 0 else { return false }
        return advances[path.section][path.item - 1] == 0
    }

    func advance(atGlobal global: Int, section: Int) -> Int {
        isCollapsed ? Int(advances[section][global - items.first(ofSection: section)]) : 1
    }

    private func cell(global: Int, section: Int, frame: Rect, model: CollectionModel) -> LayoutAttributes {
        let item = global - items.first(ofSection: section)
        return LayoutAttributes(
            kind: .cell, id: model.sections[section].itemIDs[item], section: section, item: item, frame: frame,
            zIndex: item)
    }
}

extension CollapsibleLayout {
    /// A stack moves as one: while collapsed, dragging a selected item drags its whole run of
    /// consecutive selected items (the stack it is drawn in); otherwise the item alone.
    ///
    /// - Complexity: O(r) for the run's r items.
    public func moveUnit(for id: String, at path: ItemIndexPath, model: CollectionModel) -> Range<Int> {
        guard isCollapsed, model.isSelected(id) else { return path.item..<path.item + 1 }
        let section = model.sections[path.section]
        var start = path.item
        while start > 0, model.isSelected(section.items.id(at: start - 1)) { start -= 1 }
        var end = path.item + 1
        while end < section.count, model.isSelected(section.items.id(at: end)) { end += 1 }
        return start..<end
    }

    /// A stack is never split: while collapsed, a drop between two items of one run of selected
    /// items (which would cut the run in two stacks) lands after the run instead, unless the
    /// moving items are selected themselves (a lone selected item, or a whole stack: they join
    /// the run). Everywhere else, the proposal stands.
    ///
    /// - Complexity: O(r) for the r items of the run after the proposal.
    public func moveTarget(
        proposing proposed: ItemIndexPath, for id: String, at current: ItemIndexPath, model: CollectionModel
    ) -> ItemIndexPath? {
        guard isCollapsed, !model.isSelected(id) else { return proposed }
        let section = model.sections[proposed.section]
        // Positions in the section without the moving item, read off the model that has it.
        let holdsItem = proposed.section == current.section
        let count = section.count - (holdsItem ? 1 : 0)
        func selected(_ position: Int) -> Bool {
            let index = holdsItem && position >= current.item ? position + 1 : position
            return model.isSelected(section.items.id(at: index))
        }
        guard proposed.item > 0, proposed.item < count, selected(proposed.item - 1), selected(proposed.item) else { return proposed }
        var end = proposed.item
        while end < count, selected(end) { end += 1 }
        return ItemIndexPath(section: proposed.section, item: end)
    }
}
