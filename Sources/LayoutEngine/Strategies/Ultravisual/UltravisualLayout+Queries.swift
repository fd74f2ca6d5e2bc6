import LayoutGeometry

extension UltravisualLayout {
    /// - Complexity: O(log sections + k): the items above the featured one and those below the
    ///   next one are evenly spaced, so their ranges are arithmetic.
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        guard rect.isFinite, itemCount > 0, rect.minX < viewport.size.width, rect.maxX > 0 else { return [] }
        let (featuredIndex, _) = featured
        var candidates = [Int]()
        // Scrolled-past items: y = i·standard for i < F.
        if standardHeight > 0 {
            let first = max(0, Int(min(max((rect.minY / standardHeight).rounded(.down) - 1, 0), Double(featuredIndex))))
            let end = Int(min(max((rect.maxY / standardHeight).rounded(.up) + 1, 0), Double(featuredIndex)))
            if first < end { candidates.append(contentsOf: first..<end) }
        } else {
            candidates.append(contentsOf: 0..<featuredIndex)
        }
        candidates.append(featuredIndex)
        if featuredIndex + 1 < itemCount { candidates.append(featuredIndex + 1) }
        // Items after the next one: evenly spaced from featuredY + featured + standard.
        let base = frame(ofGlobal: featuredIndex).minY + featuredHeight
        let firstTrailing = featuredIndex + 2
        if firstTrailing < itemCount {
            if standardHeight > 0 {
                let low = ((rect.minY - base) / standardHeight).rounded(.down) - 1
                let high = ((rect.maxY - base) / standardHeight).rounded(.up) + 1
                let first = Int(min(max(Double(featuredIndex + 1) + low, Double(firstTrailing)), Double(itemCount)))
                let end = Int(min(max(Double(featuredIndex + 1) + high + 1, Double(firstTrailing)), Double(itemCount)))
                if first < end { candidates.append(contentsOf: first..<end) }
            } else {
                candidates.append(contentsOf: firstTrailing..<itemCount)
            }
        }
        return candidates.compactMap { index in
            let frame = frame(ofGlobal: index)
            return frame.intersects(rect) ? cell(global: index, frame: frame, model: model) : nil
        }
    }

    /// - Complexity: O(log sections).
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), path.section < items.sectionCount else { return nil }
        let global = items.global(path)
        return cell(global: global, frame: frame(ofGlobal: global), model: model)
    }

    /// The featured layout has no headers or footers.
    public func attributes(
        forSupplementary kind: ElementKind, inSection id: String, model: CollectionModel
    ) -> LayoutAttributes? {
        nil
    }

    private func cell(global: Int, frame: Rect, model: CollectionModel) -> LayoutAttributes {
        let path = items.path(ofGlobal: global)
        return LayoutAttributes(
            kind: .cell, id: model.itemID(at: path), section: path.section, item: path.item, frame: frame,
            zIndex: global, effects: effects(forHeight: frame.height))
    }
}
