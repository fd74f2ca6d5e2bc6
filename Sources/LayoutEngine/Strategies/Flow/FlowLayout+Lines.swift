import LayoutGeometry

// Line building, in logical coordinates (see `Axis`): `cross` runs along a line, `main` along
// the scroll direction. Step names follow layout-semantics.md, section 1.

/// Where a line's items sit across the layout: item j starts at
/// `start + Σ_{k<j} crossExtent(k) + j·gap`.
struct LinePlacement: Hashable {
    var start: Double
    var gap: Double
}

/// A section whose items all have one size: every answer is arithmetic, nothing per item.
struct UniformLines {
    var itemCross: Double
    var itemMain: Double
    /// Items in a full line (the number of grid columns).
    var perLine: Int
    var lineCount: Int
    /// Distance from one line's start to the next one's.
    var pitch: Double
    var full: LinePlacement
    var last: LinePlacement

    func placement(ofLine line: Int) -> LinePlacement { line == lineCount - 1 ? last : full }
}

/// A section with varying sizes: one record per line, stored as parallel arrays. Line starts
/// are relative to the section's first line, so moving a section moves no line.
struct VariableLines {
    var firstItem: [Int] = []
    var mainStart: [Double] = []
    var thickness: [Double] = []
    var placement: [LinePlacement] = []
    /// Open sizes of the section's selected expanding items, by item index.
    var expanded: [Int: Size] = [:]

    var count: Int { firstItem.count }

    /// The line holding `item`.
    ///
    /// - Complexity: O(log lines).
    func line(containing item: Int) -> Int {
        var low = 0
        var high = firstItem.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if firstItem[mid] <= item { low = mid } else { high = mid }
        }
        return low
    }

    /// The first line that ends after `main`, relative to the first line (line ends never
    /// decrease).
    ///
    /// - Complexity: O(log lines).
    func firstLine(endingAfter main: Double) -> Int {
        var low = 0
        var high = firstItem.count
        while low < high {
            let mid = (low + high) / 2
            if mainStart[mid] + thickness[mid] > main { high = mid } else { low = mid + 1 }
        }
        return low
    }
}

enum SectionLines {
    case uniform(UniformLines)
    case variable(VariableLines)
}

/// A prepared section, in logical coordinates.
struct FlowSection {
    var start: Double
    var headerExtent: Double
    var itemsStart: Double
    var itemsEnd: Double
    var footerStart: Double
    var footerExtent: Double
    var itemCount: Int
    var lines: SectionLines
    /// How far the section's lines reach across the layout, insets included.
    var crossExtent: Double

    var end: Double { footerStart + footerExtent }

    /// The same section starting at `newStart`: everything in it is relative, so O(1).
    func moved(to newStart: Double) -> FlowSection {
        let delta = newStart - start
        var copy = self
        copy.start = newStart
        copy.itemsStart += delta
        copy.itemsEnd += delta
        copy.footerStart += delta
        return copy
    }
}

extension FlowLayout {
    /// Lays out one section starting at `start`.
    ///
    /// - Complexity: O(1) for a uniform section, O(n) otherwise.
    static func layoutSection(
        _ section: Section, at start: Double, model: CollectionModel,
        viewportCross: Double, configuration c: FlowConfiguration
    ) -> FlowSection {
        let axis = c.axis
        let inset = c.sectionInset
        let available = viewportCross - inset.crossLeading - inset.crossTrailing
        let headerExtent = axis.main(of: section.headerSize ?? c.headerReferenceSize)
        let footerExtent = axis.main(of: section.footerSize ?? c.footerReferenceSize)
        let itemsStart = start + headerExtent + inset.mainLeading

        let expanded = expandedItems(of: section, model: model)
        let lines: SectionLines
        let linesExtent: Double
        let usedCross: Double
        if let size = uniformSize(of: section, expanded: expanded, default: c.defaultItemSize) {
            let uniform = uniformLines(
                count: section.count, size: size, available: available, configuration: c)
            lines = .uniform(uniform)
            linesExtent = uniform.lineCount == 0
                ? 0 : Double(uniform.lineCount - 1) * uniform.pitch + uniform.itemMain
            let perLine = Double(min(uniform.perLine, section.count))
            // Only an item wider than the line can push the used extent past `available`.
            usedCross = section.count == 0
                ? 0 : perLine * uniform.itemCross + (perLine - 1) * c.interitemSpacing
        } else {
            var variable = VariableLines()
            variable.expanded = expanded
            (linesExtent, usedCross) = fillLines(
                of: section, into: &variable, available: available, configuration: c)
            lines = .variable(variable)
        }
        let itemsEnd = itemsStart + linesExtent
        let footerStart = itemsEnd + inset.mainTrailing
        return FlowSection(
            start: start, headerExtent: headerExtent, itemsStart: itemsStart, itemsEnd: itemsEnd,
            footerStart: footerStart, footerExtent: footerExtent, itemCount: section.count,
            lines: lines,
            crossExtent: inset.crossLeading + max(usedCross, 0) + inset.crossTrailing)
    }

    /// Selected items of `section` that have an open size, by index.
    ///
    /// - Complexity: O(expanding items in the section).
    private static func expandedItems(of section: Section, model: CollectionModel) -> [Int: Size] {
        var expanded = [Int: Size]()
        for (id, open) in section.selectedSizes where model.isSelected(id) {
            if let path = model.indexPath(ofItem: id) { expanded[path.item] = open }
        }
        return expanded
    }

    /// The one size every item of the section has, or `nil` if sizes differ.
    ///
    /// - Complexity: O(1) for a section without sizes of its own, else O(n).
    private static func uniformSize(of section: Section, expanded: [Int: Size], default defaultSize: Size) -> Size? {
        guard section.count > 0 else { return defaultSize }
        if !section.hasOwnSizes && expanded.isEmpty { return defaultSize }
        var first: Size?
        var uniform = true
        section.forEachSize(default: defaultSize) { index, base in
            let size = expanded.isEmpty ? base : expanded[index] ?? base
            if first == nil { first = size } else if size != first { uniform = false }
            return uniform
        }
        return uniform ? first : nil
    }

    // MARK: Uniform sections

    /// STEP 1 (uniform): how many items fit a line, and where full and last lines put them.
    static func uniformLines(
        count: Int, size: Size, available: Double, configuration c: FlowConfiguration
    ) -> UniformLines {
        let cross = c.axis.cross(of: size)
        let main = c.axis.main(of: size)
        let spacing = c.interitemSpacing
        // A full line's capacity, not capped by the item count: a grid-aligned last line sits on
        // the columns of a full line even when no line is full. Items that take no room at all
        // share one line, however many there are.
        let perLine = lineCapacity(itemExtent: cross, spacing: spacing, available: available) ?? max(count, 1)
        let lineCount = count == 0 ? 0 : (count + perLine - 1) / perLine
        let lastCount = count - (lineCount - 1) * perLine

        let full = placeLine(
            count: perLine, used: usedCross(count: perLine, itemCross: cross, spacing: spacing),
            available: available, isLast: false, previousGap: nil, configuration: c)
        let last: LinePlacement
        if c.spacingMode == .justified
            && (c.lastLineAlignment == .gridAligned || c.lastLineAlignment == .automatic)
        {
            // Grid-aligned: the last line's items sit on the full line's columns.
            last = full
        } else {
            last = placeLine(
                count: lastCount, used: usedCross(count: lastCount, itemCross: cross, spacing: spacing),
                available: available, isLast: true, previousGap: nil, configuration: c)
        }
        return UniformLines(
            itemCross: cross, itemMain: main, perLine: perLine, lineCount: lineCount,
            pitch: main + c.lineSpacing, full: full, last: last)
    }

    private static func usedCross(count: Int, itemCross: Double, spacing: Double) -> Double {
        count == 0 ? 0 : Double(count) * itemCross + Double(count - 1) * spacing
    }

    // MARK: Variable sections

    /// STEP 1 (variable): fill lines greedily. An item joins the line when
    /// `used + spacing + w <= available`, else it starts the next line.
    ///
    /// - Returns: the lines' total main extent and the widest line's used cross extent.
    /// - Complexity: O(n).
    private static func fillLines(
        of section: Section, into lines: inout VariableLines,
        available: Double, configuration c: FlowConfiguration
    ) -> (mainExtent: Double, usedCross: Double) {
        let axis = c.axis
        let spacing = c.interitemSpacing
        let count = section.count
        let expanded = lines.expanded

        var mainCursor = 0.0
        var widest = 0.0
        var previousGap: Double?
        // The line being filled: first item, used cross extent, thickness.
        var first = 0
        var used = 0.0
        var thickness = 0.0
        func closeLine(end: Int) {
            let placement = placeLine(
                count: end - first, used: used, available: available, isLast: end == count,
                previousGap: previousGap, configuration: c)
            previousGap = end - first >= 2 ? placement.gap : nil
            lines.firstItem.append(first)
            lines.mainStart.append(mainCursor)
            lines.thickness.append(thickness)
            lines.placement.append(placement)
            widest = max(widest, used)
            mainCursor += thickness + c.lineSpacing
        }
        section.forEachSize(default: c.defaultItemSize) { index, base in
            let size = expanded.isEmpty ? base : expanded[index] ?? base
            let cross = axis.cross(of: size)
            if index == 0 {
                used = cross
                thickness = axis.main(of: size)
            } else if used + spacing + cross <= available {
                used += spacing + cross
                thickness = max(thickness, axis.main(of: size))
            } else {
                closeLine(end: index)
                first = index
                used = cross
                thickness = axis.main(of: size)
            }
            return true
        }
        if count > 0 { closeLine(end: count) }
        let extent = lines.count == 0 ? 0 : mainCursor - c.lineSpacing
        return (extent, widest)
    }

    // MARK: Placing a line

    /// STEP 2: where a line's items go across the layout.
    ///
    /// - justified mode, not the last line: n ≥ 2 is justified (gap = spacing + L/(n−1)), a
    ///   single item is centered;
    /// - justified mode, last line: by `lastLineAlignment` (`gridAligned` with varying sizes
    ///   reuses the previous line's gap, never more than fits, else the minimum spacing);
    /// - fixed mode: the minimum spacing, the packed line placed by `lineAlignment`.
    ///
    /// Leftover space L is clamped at 0, so an item wider than the line starts at the leading
    /// inset and overflows on the trailing side.
    static func placeLine(
        count: Int, used: Double, available: Double, isLast: Bool, previousGap: Double?,
        configuration c: FlowConfiguration
    ) -> LinePlacement {
        let leading = c.sectionInset.crossLeading
        let spacing = c.interitemSpacing
        let leftover = max(0, available - used)
        func justify() -> LinePlacement {
            count >= 2
                ? LinePlacement(start: leading, gap: spacing + leftover / Double(count - 1))
                : LinePlacement(start: leading + leftover / 2, gap: spacing)
        }
        switch c.spacingMode {
        case .fixed:
            switch c.lineAlignment {
            case .leading: return LinePlacement(start: leading, gap: spacing)
            case .center: return LinePlacement(start: leading + leftover / 2, gap: spacing)
            case .trailing: return LinePlacement(start: leading + leftover, gap: spacing)
            }
        case .justified:
            guard isLast else { return justify() }
            switch c.lastLineAlignment {
            case .justified:
                return justify()
            case .automatic, .leading:
                // `automatic` reaches here only for sections with varying sizes.
                return LinePlacement(start: leading, gap: spacing)
            case .centered:
                return LinePlacement(start: leading + leftover / 2, gap: spacing)
            case .gridAligned:
                guard let previousGap, count >= 2 else { return LinePlacement(start: leading, gap: spacing) }
                let widestFitting = spacing + leftover / Double(count - 1)
                return LinePlacement(start: leading, gap: min(previousGap, widestFitting))
            }
        }
    }
}
