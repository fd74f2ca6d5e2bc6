import LayoutGeometry

// Incremental updates: a change re-flows the lines from the one before it until the line
// breaks meet the old ones again, and moves the sections after it. Names follow
// docs/flow-layout.md, like the full layout in FlowLayout+Lines.swift.

extension FlowLayout {
    /// Applies item edits: a section with one edit re-flows locally (while it keeps varying
    /// sizes); a section with several, or one that turns uniform or stops being uniform, is
    /// laid out again. Sections after the first touched one move.
    ///
    /// - Complexity: for one edit in a section with varying sizes, O(log n + chunk + the lines
    ///   re-flowed until the breaks realign) plus O(sections after it). Realigning is quick
    ///   when line lengths vary; in a grid whose lines all hold the same number of items an
    ///   insertion shifts every later line's items, and every later line re-flows (any exact
    ///   flow layout must: each of those lines' thickness can change).
    ///
    /// Sets `changeStart`: where the first touched section's re-flow began (everything before
    /// it, earlier sections included, is untouched), or that section's start when pinned
    /// headers follow their section's end; `nil` when the content's cross extent changed.
    func apply(_ edits: [ItemEdit], model: CollectionModel) {
        var bySection = [Int: [ItemEdit]]()
        for edit in edits where edit.section < sections.count { bySection[edit.section, default: []].append(edit) }
        guard let first = bySection.keys.min() else {
            changeStart = .infinity
            return
        }
        let viewportCross = configuration.axis.cross(of: viewport.size)
        let oldCross = contentCross
        var cursor = sections[first].start
        var start = cursor
        for index in first..<sections.count {
            if let sectionEdits = bySection[index] {
                var laidOut = sections[index].moved(to: cursor)
                // Release the array's hold on the lines, so the edit below changes them in place
                // instead of copying every chunk of the section.
                sections[index].lines = .uniform(Self.uniformLines(count: 0, size: .zero, available: 0, configuration: configuration))
                let changed = update(&laidOut, with: sectionEdits, section: model.sections[index], model: model, viewportCross: viewportCross)
                if index == first { start = changed }
                sections[index] = laidOut
            } else if sections[index].start != cursor {
                sections[index] = sections[index].moved(to: cursor)
            }
            cursor = sections[index].end
        }
        contentCross = sections.reduce(viewportCross) { max($0, $1.crossExtent) }
        if contentCross != oldCross {
            changeStart = nil
        } else {
            changeStart = configuration.pinsHeaders ? sections[first].start : start
        }
    }

    /// - Returns: where along the scroll axis the section's elements may have changed: the
    ///   first re-flowed line's start, or the section's start when it was laid out again.
    private func update(
        _ laidOut: inout FlowSection, with edits: [ItemEdit], section: Section, model: CollectionModel,
        viewportCross: Double
    ) -> Double {
        let c = configuration
        let expanded = model.openSizes(of: section)
        guard edits.count == 1, let edit = edits.first else {
            // Positions in a series of edits refer to states in between: count sizes afresh.
            laidOut = Self.layoutSection(section, at: laidOut.start, model: model, viewportCross: viewportCross, configuration: c)
            return laidOut.start
        }
        let wasUniform = laidOut.sizeBreaks == 0
        laidOut.sizeBreaks += breakChange(of: edit, section: section, expanded: expanded)
        let isUniform = laidOut.sizeBreaks == 0
        guard !wasUniform, !isUniform, case .variable(var variable) = laidOut.lines else {
            Self.relayLines(of: &laidOut, section: section, expanded: expanded, viewportCross: viewportCross, configuration: c)
            return laidOut.start
        }
        laidOut.lines = .uniform(Self.uniformLines(count: 0, size: .zero, available: 0, configuration: c))  // release for in-place edits
        variable.expanded = expanded
        let reflowStart = reflow(&variable, around: edit, section: section, oversized: &laidOut.oversized, viewportCross: viewportCross)
        laidOut.itemCount = section.count
        laidOut.lines = .variable(variable)
        // The header and the inset before the items do not change with an item edit.
        let changed = reflowStart.map { laidOut.itemsStart + $0 } ?? laidOut.start
        Self.settle(&laidOut, section: section, configuration: c)
        return changed
    }

    /// How one edit changes the number of neighbouring items that differ in size: only the
    /// pairs around the edit change.
    ///
    /// - Complexity: O(k log n) for k inserted items, O(log n) otherwise.
    private func breakChange(of edit: ItemEdit, section: Section, expanded: [Int: Size]) -> Int {
        let defaultSize = configuration.defaultItemSize
        let count = section.count
        func size(_ item: Int) -> Size? {
            guard item >= 0, item < count else { return nil }
            return expanded[item] ?? section.baseSize(ofItem: item, default: defaultSize)
        }
        func differ(_ a: Size?, _ b: Size?) -> Int {
            guard let a, let b else { return 0 }
            return a != b ? 1 : 0
        }
        switch edit {
        case .removed(_, let item, let previous):
            let old = previous.effective(default: defaultSize)
            return differ(size(item - 1), size(item)) - differ(size(item - 1), old) - differ(old, size(item))
        case .inserted(_, let item, let inserted):
            var change = -differ(size(item - 1), size(item + inserted))
            for index in (item - 1)..<(item + inserted) { change += differ(size(index), size(index + 1)) }
            return change
        case .resized(_, let item, let previous):
            let old = previous.effective(default: defaultSize)
            let new = size(item)
            return differ(size(item - 1), new) + differ(new, size(item + 1))
                - differ(size(item - 1), old) - differ(old, size(item + 1))
        }
    }

    /// STEP 1 again, locally: fill lines greedily from the line before the edit until a line
    /// starts where an old line started (after the edit), then splice.
    ///
    /// - Returns: the re-flowed lines' start relative to the section's items, when every line
    ///   before them is where it was to the bit: they stayed in their chunk, whose start the
    ///   line list's sums kept (a line that moves to the next chunk, or sums built afresh, may
    ///   land an ulp away). `nil` otherwise.
    private func reflow(
        _ variable: inout VariableLines, around edit: ItemEdit, section: Section, oversized: inout [Double: Int],
        viewportCross: Double
    ) -> Double? {
        let c = configuration
        let available = viewportCross - c.sectionInset.crossLeading - c.sectionInset.crossTrailing
        let oldLines = variable.lines
        let oldCount = oldLines.itemCount
        // The first old item the edit can affect, the first old item after it, and the shift.
        let (item, editEnd, shift): (Int, Int, Int)
        switch edit {
        case .removed(_, let index, _): (item, editEnd, shift) = (index, index + 1, -1)
        case .inserted(_, let index, let count): (item, editEnd, shift) = (index, index, count)
        case .resized(_, let index, _): (item, editEnd, shift) = (index, index + 1, 0)
        }
        let anchorItem = max(0, min(item - 1, oldCount - 1))
        guard oldCount > 0, let start = oldLines.position(containingItem: anchorItem) else {
            let lines = Self.flowLines(
                of: section, expanded: variable.expanded, from: 0, previousGap: nil, available: available, configuration: c
            ) { _ in false }
            replaceAll(&variable, with: lines, oversized: &oversized, available: available)
            return nil
        }
        var previousGap: Double?
        if start.line > 0, let before = oldLines.position(ofLine: start.line - 1) {
            let line = oldLines.line(at: before)
            previousGap = line.count >= 2 ? line.placement.gap : nil
        }
        var resumeLine = oldLines.lineCount
        let lines = Self.flowLines(
            of: section, expanded: variable.expanded, from: start.firstItem, previousGap: previousGap,
            available: available, configuration: c
        ) { newStart in
            let oldStart = newStart - shift
            guard oldStart >= editEnd, let old = oldLines.position(containingItem: oldStart), old.firstItem == oldStart else {
                return false
            }
            resumeLine = old.line
            return true
        }
        // Oversized lines leave and arrive with the lines they belong to.
        oldLines.forEach(from: start) { position, line in
            guard position.line < resumeLine else { return false }
            if line.used > available {
                oversized[line.used, default: 0] -= 1
                if oversized[line.used] == 0 { oversized[line.used] = nil }
            }
            return true
        }
        for line in lines where line.used > available { oversized[line.used, default: 0] += 1 }
        // The old lines are done with here: once they are released the splice edits the chunks
        // in place instead of copying them all.
        let (oldLineCount, oldChunkCount) = (oldLines.lineCount, oldLines.chunks.count)
        variable.lines.replace(start.line..<resumeLine, with: lines)
        // The last line's placement depends on the line before it (grid alignment), which the
        // re-flow may have changed even when it stopped short of the end.
        if resumeLine < oldLineCount { placeLastLine(&variable.lines, available: available) }
        let chunks = variable.lines.chunks
        guard chunks.count == oldChunkCount, chunks[start.chunk].count > start.offset else { return nil }
        return start.mainStart
    }

    private func replaceAll(
        _ variable: inout VariableLines, with lines: [FlowLine], oversized: inout [Double: Int], available: Double
    ) {
        variable.lines = LineList(lines, spacing: configuration.lineSpacing)
        oversized = [:]
        for line in lines where line.used > available { oversized[line.used, default: 0] += 1 }
    }

    private func placeLastLine(_ lines: inout LineList, available: Double) {
        guard let last = lines.last else { return }
        var previousGap: Double?
        if lines.lineCount >= 2, let position = lines.position(ofLine: lines.lineCount - 2) {
            let line = lines.line(at: position)
            previousGap = line.count >= 2 ? line.placement.gap : nil
        }
        lines.setLastPlacement(
            Self.placeLine(
                count: last.count, used: last.used, available: available, isLast: true, previousGap: previousGap,
                configuration: configuration))
    }
}
