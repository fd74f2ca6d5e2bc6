import LayoutGeometry

extension FlowLayout {
    /// Every element intersecting `rect`.
    ///
    /// - Complexity: O(log n + m), m being the elements on the lines that cross `rect`: a binary
    ///   search over section ends, then over line ends (arithmetic in uniform sections).
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        guard rect.isFinite else { return [] }
        let axis = configuration.axis
        let (low, high) = axis.mainRange(of: rect)
        var result = [LayoutAttributes]()
        var index = firstSection(endingAfter: low)
        while index < sections.count, sections[index].start < high {
            let section = sections[index]
            if let header = supplementary(.header, sectionIndex: index, model: model), header.frame.intersects(rect) {
                result.append(header)
            }
            switch section.lines {
            case .uniform(let lines):
                appendCells(of: lines, section: section, sectionIndex: index, model: model, in: rect, to: &result)
            case .variable(let lines):
                appendCells(of: lines, section: section, sectionIndex: index, model: model, in: rect, to: &result)
            }
            if let footer = supplementary(.footer, sectionIndex: index, model: model), footer.frame.intersects(rect) {
                result.append(footer)
            }
            index += 1
        }
        return result
    }

    /// - Complexity: O(1) for uniform sections, O(log lines + line length) otherwise.
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), path.section < sections.count else { return nil }
        let section = sections[path.section]
        switch section.lines {
        case .uniform(let lines):
            return cell(
                path.item, line: path.item / lines.perLine, of: lines, section: section, sectionIndex: path.section,
                model: model)
        case .variable(let variable):
            guard let position = variable.lines.position(containingItem: path.item) else { return nil }
            var found: LayoutAttributes?
            forEachCell(
                of: variable.lines.line(at: position), at: position, in: variable, section: section,
                sectionIndex: path.section, model: model
            ) { attributes in
                if attributes.item == path.item { found = attributes }
                return attributes.item! < path.item
            }
            return found
        }
    }

    public func attributes(
        forSupplementary kind: ElementKind, id: String, model: CollectionModel
    ) -> LayoutAttributes? {
        guard let index = model.sectionIndex(of: id), index < sections.count else { return nil }
        return supplementary(kind, sectionIndex: index, model: model)
    }

    // MARK: Sections

    /// The first section whose end lies after `main` (section ends never decrease).
    private func firstSection(endingAfter main: Double) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if sections[mid].end > main { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// A header or footer, full width across the viewport. A pinned header sticks to the top of
    /// the visible bounds (below the content inset) and is pushed away by the section's end:
    /// `min(max(offset + inset, natural), footerStart − extent)`.
    private func supplementary(_ kind: ElementKind, sectionIndex: Int, model: CollectionModel) -> LayoutAttributes? {
        let section = sections[sectionIndex]
        let axis = configuration.axis
        let crossExtent = axis.cross(of: viewport.size)
        switch kind {
        case .header:
            guard section.headerExtent > 0 else { return nil }
            var main = section.start
            var zIndex = 0
            if configuration.pinsHeaders {
                let visibleStart = axis.main(of: viewport.offset) + configuration.axis.logical(viewport.contentInsets).mainLeading
                main = min(max(visibleStart, section.start), section.footerStart - section.headerExtent)
                zIndex = FlowConfiguration.pinnedHeaderZIndex
            }
            return LayoutAttributes(
                kind: .header, id: model.sections[sectionIndex].id, section: sectionIndex, item: nil,
                frame: axis.rect(cross: 0, main: main, crossExtent: crossExtent, mainExtent: section.headerExtent),
                zIndex: zIndex)
        case .footer:
            guard section.footerExtent > 0 else { return nil }
            return LayoutAttributes(
                kind: .footer, id: model.sections[sectionIndex].id, section: sectionIndex, item: nil,
                frame: axis.rect(
                    cross: 0, main: section.footerStart, crossExtent: crossExtent, mainExtent: section.footerExtent))
        default:
            return nil
        }
    }

    // MARK: Uniform sections

    private func appendCells(
        of lines: UniformLines, section: FlowSection, sectionIndex: Int, model: CollectionModel, in rect: Rect,
        to result: inout [LayoutAttributes]
    ) {
        guard lines.lineCount > 0 else { return }
        let (low, high) = configuration.axis.mainRange(of: rect)
        let lineRange = EvenlySpacedLines(count: lines.lineCount, extent: lines.itemMain, pitch: lines.pitch)
            .lines(overlapping: low - section.itemsStart, high - section.itemsStart)
        for line in lineRange {
            let first = line * lines.perLine
            let end = min(first + lines.perLine, section.itemCount)
            for item in first..<end {
                let attributes = cell(
                    item, line: line, of: lines, section: section, sectionIndex: sectionIndex, model: model)
                if attributes.frame.intersects(rect) { result.append(attributes) }
            }
        }
    }

    private func cell(
        _ item: Int, line: Int, of lines: UniformLines, section: FlowSection, sectionIndex: Int, model: CollectionModel
    ) -> LayoutAttributes {
        let placement = lines.placement(ofLine: line)
        let column = Double(item - line * lines.perLine)
        let cross = placement.start + column * (lines.itemCross + placement.gap)
        let main = section.itemsStart + Double(line) * lines.pitch
        return LayoutAttributes(
            kind: .cell, id: model.sections[sectionIndex].itemIDs[item], section: sectionIndex, item: item,
            frame: configuration.axis.rect(
                cross: cross, main: main, crossExtent: lines.itemCross, mainExtent: lines.itemMain))
    }

    // MARK: Variable sections

    private func appendCells(
        of variable: VariableLines, section: FlowSection, sectionIndex: Int, model: CollectionModel, in rect: Rect,
        to result: inout [LayoutAttributes]
    ) {
        let (low, high) = configuration.axis.mainRange(of: rect)
        guard let first = variable.lines.position(endingAfter: low - section.itemsStart) else { return }
        variable.lines.forEach(from: first) { position, line in
            guard section.itemsStart + position.mainStart < high else { return false }
            forEachCell(of: line, at: position, in: variable, section: section, sectionIndex: sectionIndex, model: model) {
                attributes in
                if attributes.frame.intersects(rect) { result.append(attributes) }
                return true
            }
            return true
        }
    }

    /// Calls `body` with each cell of the line at `position` in order until it returns false.
    private func forEachCell(
        of line: FlowLine, at position: LineList.Position, in variable: VariableLines, section flowSection: FlowSection,
        sectionIndex: Int, model: CollectionModel, _ body: (LayoutAttributes) -> Bool
    ) {
        let axis = configuration.axis
        let lineStart = flowSection.itemsStart + position.mainStart
        let end = position.firstItem + line.count
        var cross = line.placement.start
        model.sections[sectionIndex].forEachItem(from: position.firstItem, default: configuration.defaultItemSize) {
            item, id, base in
            guard item < end else { return false }
            let size = variable.expanded.isEmpty ? base : variable.expanded[item] ?? base
            let itemCross = axis.cross(of: size)
            let itemMain = axis.main(of: size)
            let main = lineStart + configuration.mainOffset(ofItemExtent: itemMain, inLineOf: line.thickness)
            let attributes = LayoutAttributes(
                kind: .cell, id: id, section: sectionIndex, item: item,
                frame: axis.rect(cross: cross, main: main, crossExtent: itemCross, mainExtent: itemMain))
            guard body(attributes) else { return false }
            cross += itemCross + line.placement.gap
            return true
        }
    }
}
