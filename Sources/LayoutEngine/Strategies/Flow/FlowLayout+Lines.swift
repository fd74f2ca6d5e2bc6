import LayoutGeometry

// Line building, in logical coordinates (see `Axis`): `cross` runs along a line, `main` along
// the scroll direction. Step names follow docs/flow-layout.md.

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

/// A section with varying sizes: its lines, and the open sizes of its selected expanding items.
struct VariableLines {
    var lines: LineList
    /// Open sizes of the section's selected expanding items, by item index.
    var expanded: [Int: Size]
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
    /// How many neighbouring items differ in size (open sizes included): the section is
    /// uniform exactly when none do, and an edit changes this count only around itself, so
    /// uniformity is known without a scan.
    var sizeBreaks: Int
    /// Cross extents of lines wider than the available space (an item too wide for any line),
    /// counted: they alone can widen the content.
    var oversized: [Double: Int]
    /// How far the section reaches across the layout, insets included, when a line overflows.
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
    /// - Complexity: O(1) for a section whose items have no sizes of their own, O(n) otherwise.
    static func layoutSection(
        _ section: Section, at start: Double, model: CollectionModel,
        viewportCross: Double, configuration c: FlowConfiguration
    ) -> FlowSection {
        let expanded = model.openSizes(of: section)
        var sizeBreaks = 0
        if section.hasOwnSizes || !expanded.isEmpty {
            var previous: Size?
            section.forEachSize(default: c.defaultItemSize) { index, base in
                let size = expanded.isEmpty ? base : expanded[index] ?? base
                if let previous, previous != size { sizeBreaks += 1 }
                previous = size
                return true
            }
        }
        var laidOut = FlowSection(
            start: start, headerExtent: 0, itemsStart: 0, itemsEnd: 0, footerStart: 0, footerExtent: 0,
            itemCount: section.count, lines: .uniform(uniformLines(count: 0, size: .zero, available: 0, configuration: c)),
            sizeBreaks: sizeBreaks, oversized: [:], crossExtent: 0)
        relayLines(of: &laidOut, section: section, expanded: expanded, viewportCross: viewportCross, configuration: c)
        return laidOut
    }

    /// Lays out all lines of `laidOut` again: arithmetic when its items share one size, else
    /// from its items.
    ///
    /// - Complexity: O(1) for a uniform section, O(n) otherwise.
    static func relayLines(
        of laidOut: inout FlowSection, section: Section, expanded: [Int: Size], viewportCross: Double,
        configuration c: FlowConfiguration
    ) {
        let available = viewportCross - c.sectionInset.crossLeading - c.sectionInset.crossTrailing
        laidOut.itemCount = section.count
        laidOut.oversized = [:]
        if laidOut.sizeBreaks == 0 {
            let size = section.count == 0
                ? c.defaultItemSize : expanded[0] ?? section.baseSize(ofItem: 0, default: c.defaultItemSize)
            let uniform = uniformLines(count: section.count, size: size, available: available, configuration: c)
            laidOut.lines = .uniform(uniform)
            if section.count > 0 && uniform.itemCross > available { laidOut.oversized[uniform.itemCross] = 1 }
        } else {
            let lines = flowLines(
                of: section, expanded: expanded, from: 0, previousGap: nil, available: available, configuration: c
            ) { _ in false }
            for line in lines where line.used > available { laidOut.oversized[line.used, default: 0] += 1 }
            laidOut.lines = .variable(VariableLines(lines: LineList(lines, spacing: c.lineSpacing), expanded: expanded))
        }
        settle(&laidOut, section: section, configuration: c)
    }

    /// Recomputes the section's extents from its lines and its supplementary sizes.
    static func settle(_ laidOut: inout FlowSection, section: Section, configuration c: FlowConfiguration) {
        let axis = c.axis
        let inset = c.sectionInset
        laidOut.headerExtent = axis.main(of: section.headerSize ?? c.headerReferenceSize)
        laidOut.footerExtent = axis.main(of: section.footerSize ?? c.footerReferenceSize)
        laidOut.itemsStart = laidOut.start + laidOut.headerExtent + inset.mainLeading
        let linesExtent: Double
        switch laidOut.lines {
        case .uniform(let uniform):
            linesExtent = uniform.lineCount == 0 ? 0 : Double(uniform.lineCount - 1) * uniform.pitch + uniform.itemMain
        case .variable(let variable):
            linesExtent = variable.lines.mainExtent
        }
        laidOut.itemsEnd = laidOut.itemsStart + linesExtent
        laidOut.footerStart = laidOut.itemsEnd + inset.mainTrailing
        laidOut.crossExtent = inset.crossLeading + (laidOut.oversized.keys.max() ?? 0) + inset.crossTrailing
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

    /// STEP 1 (variable): fill lines greedily from item `start`. An item joins the line when
    /// `used + spacing + w <= available`, else it starts the next line. After each line that
    /// does not reach the section's end, `stop(end)` may end the walk (a re-flow that found the
    /// old line breaks again).
    ///
    /// - Complexity: O(items walked).
    static func flowLines(
        of section: Section, expanded: [Int: Size], from start: Int, previousGap: Double?,
        available: Double, configuration c: FlowConfiguration, stop: (Int) -> Bool
    ) -> [FlowLine] {
        let axis = c.axis
        let spacing = c.interitemSpacing
        let count = section.count
        var lines = [FlowLine]()
        var previousGap = previousGap
        var first = start
        var used = 0.0
        var thickness = 0.0
        var stopped = false
        func closeLine(end: Int) {
            let placement = placeLine(
                count: end - first, used: used, available: available, isLast: end == count,
                previousGap: previousGap, configuration: c)
            previousGap = end - first >= 2 ? placement.gap : nil
            lines.append(FlowLine(count: end - first, used: used, thickness: thickness, placement: placement))
        }
        section.forEachSize(from: start, default: c.defaultItemSize) { index, base in
            let size = expanded.isEmpty ? base : expanded[index] ?? base
            let cross = axis.cross(of: size)
            if index == first {
                used = cross
                thickness = axis.main(of: size)
            } else if used + spacing + cross <= available {
                used += spacing + cross
                thickness = max(thickness, axis.main(of: size))
            } else {
                closeLine(end: index)
                if stop(index) {
                    stopped = true
                    return false
                }
                first = index
                used = cross
                thickness = axis.main(of: size)
            }
            return true
        }
        if !stopped && start < count { closeLine(end: count) }
        return lines
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
