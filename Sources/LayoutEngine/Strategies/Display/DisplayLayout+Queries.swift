import LayoutGeometry

extension DisplayLayout {
    /// - Complexity: O(log sections + k): sections by binary search, lines arithmetic.
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        guard rect.isFinite else { return [] }
        let axis = geometry.axis
        let (low, high) = axis.mainRange(of: rect)
        var result = [LayoutAttributes]()
        var section = firstSection(endingAfter: low)
        while section < items.sectionCount, sectionStarts[section] < high {
            let count = model.sections[section].count
            if count > 0 {
                let lines = (count + geometry.perLine - 1) / geometry.perLine
                let start = sectionStarts[section]
                let lineRange = EvenlySpacedLines(count: lines, extent: geometry.itemMain, pitch: geometry.pitch)
                    .lines(overlapping: low - start, high - start)
                for line in lineRange {
                    let first = line * geometry.perLine
                    for item in first..<min(first + geometry.perLine, count) {
                        let frame = frame(ofItem: item, inSection: section)
                        if frame.intersects(rect) {
                            result.append(cell(item: item, section: section, frame: frame, model: model))
                        }
                    }
                }
            }
            section += 1
        }
        return result
    }

    /// - Complexity: O(1).
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), path.section < items.sectionCount else { return nil }
        return cell(
            item: path.item, section: path.section, frame: frame(ofItem: path.item, inSection: path.section), model: model)
    }

    /// Display layouts have no headers or footers.
    public func attributes(
        forSupplementary kind: ElementKind, id: String, model: CollectionModel
    ) -> LayoutAttributes? {
        nil
    }

    // MARK: Helpers

    /// The first section whose span (trailing spacing included) ends after `main`.
    private func firstSection(endingAfter main: Double) -> Int {
        var low = 0
        var high = items.sectionCount
        while low < high {
            let mid = (low + high) / 2
            if sectionStarts[mid + 1] > main { high = mid } else { low = mid + 1 }
        }
        return low
    }

    private func cell(item: Int, section: Int, frame: Rect, model: CollectionModel) -> LayoutAttributes {
        LayoutAttributes(
            kind: .cell, id: model.sections[section].itemIDs[item], section: section, item: item, frame: frame)
    }
}
