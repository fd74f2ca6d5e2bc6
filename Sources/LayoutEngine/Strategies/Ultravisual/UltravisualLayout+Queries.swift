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
        forSupplementary kind: ElementKind, id: String, model: CollectionModel
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

extension UltravisualLayout {
    /// Where item k's `edge` sits `distance` below the viewport's top. Its distance from there,
    /// g(o) = edge(o) − o − distance, falls as the offset o grows (a scroll never moves a cell
    /// down on screen) and is linear in o while the featured index F stays: so F is the last
    /// index whose start offset F·drag leaves g ≥ 0 (a binary search), and the offset is where
    /// g's line within that F reaches 0. With p = o/drag − F, the slopes of g in p are −drag
    /// (k < F: the cell stands while the viewport moves), −standard (k = F, or k > F+1: the
    /// cell rides up with the featured one), and −standard − drag + c·drag for k = F+1 (it grows
    /// upward), c being 0, ½, 1 for the start, centre and end edge.
    ///
    /// - Complexity: O(log n).
    public func offset(placing id: String, edge: AnchorEdge, at distance: Double, model: CollectionModel) -> Double? {
        guard let path = model.indexPath(ofItem: id), path.section < items.sectionCount else { return nil }
        let k = items.global(path)
        let count = itemCount
        let (standard, featured, drag) = (standardHeight, featuredHeight, dragDistance)
        let c = switch edge {
        case .start: 0.0
        case .center: 0.5
        case .end: 1.0
        }
        // g at o = F·drag (p = 0), and its slope in p while F stays.
        func start(_ f: Int) -> (value: Double, slope: Double) {
            if k < f { return (Double(k) * standard + c * standard - Double(f) * drag - distance, -drag) }
            if k == f { return (c * featured - distance, -standard) }
            if k == f + 1 { return (featured + c * standard - distance, -standard - drag + c * drag) }
            return (featured + Double(k - f - 1) * standard + c * standard - distance, -standard)
        }
        var (low, high) = (0, max(0, count - 1))
        while low < high {
            let middle = (low + high + 1) / 2
            if start(middle).value >= 0 { low = middle } else { high = middle - 1 }
        }
        let line = start(low)
        // Above the top (p < 0) no cell grows: every cell rides with the viewport's top.
        if low == 0 && line.value < 0 { return line.value / standard * drag }
        return (Double(low) - line.value / line.slope) * drag
    }
}
