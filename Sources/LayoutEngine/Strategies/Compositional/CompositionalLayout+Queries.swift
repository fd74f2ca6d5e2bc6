import LayoutGeometry

extension CompositionalLayout {
    /// - Complexity: O(log sections + log groups + k) for k elements in the sections the rect
    ///   meets (pinned boundary items are computed from the offset as they are read).
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        guard rect.isFinite, !sections.isEmpty else { return [] }
        let main = configuration.main
        let low = main.coordinate(of: rect.origin)
        let high = low + main.extent(of: rect.size)
        var result = [LayoutAttributes]()
        var index = firstSection(endingAfter: low - reachAfter)
        while index < sections.count, starts[index] - reachBefore < high {
            appendElements(ofSection: index, in: rect, model: model, to: &result)
            index += 1
        }
        return result
    }

    /// - Complexity: O(log sections).
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), path.section < sections.count else { return nil }
        return LayoutAttributes(
            kind: .cell, id: id, section: path.section, item: path.item,
            frame: place(sections[path.section].cells[path.item], section: path.section, model: model))
    }

    /// A section's boundary or decoration element by section id; a badge by item id.
    ///
    /// - Complexity: O(log n).
    public func attributes(forSupplementary kind: ElementKind, id: String, model: CollectionModel) -> LayoutAttributes? {
        if configuration.itemKinds.contains(kind) {
            guard let path = model.indexPath(ofItem: id), path.section < sections.count else { return nil }
            let badges = sections[path.section].badges
            var low = 0
            var high = badges.count
            while low < high {
                let mid = (low + high) / 2
                if badges[mid].item < path.item { low = mid + 1 } else { high = mid }
            }
            while low < badges.count, badges[low].item == path.item {
                if sections[path.section].badgeStyles[badges[low].style].kind == kind {
                    return badge(badges[low], section: path.section, model: model)
                }
                low += 1
            }
            return nil
        }
        guard kind != .cell, let index = model.sectionIndex(of: id), index < sections.count else { return nil }
        let section = sections[index]
        if let boundary = section.boundaries.first(where: { $0.item.kind == kind }) {
            return LayoutAttributes(
                kind: kind, id: id, section: index, item: nil, frame: frame(of: boundary, section: index), zIndex: boundary.item.zIndex)
        }
        if let decoration = section.decorations.first(where: { $0.kind == kind }) {
            return LayoutAttributes(
                kind: kind, id: id, section: index, item: nil, frame: shifted(decoration.frame, section: index), zIndex: decoration.zIndex)
        }
        return nil
    }

    // MARK: Sections

    /// The first section whose end lies after `coordinate` along the scroll axis.
    func firstSection(endingAfter coordinate: Double) -> Int {
        var low = 0
        var high = sections.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid + 1] > coordinate { high = mid } else { low = mid + 1 }
        }
        return low
    }

    /// The section `index`'s offset across the scroll axis (0 unless it scrolls orthogonally).
    func offset(ofSection index: Int, model: CollectionModel) -> Double {
        guard sections[index].orthogonal != nil else { return 0 }
        return sectionOffsets[model.sections[index].id] ?? 0
    }

    /// A section-local frame on screen: moved to the section's start, and by the section's
    /// offset when it scrolls orthogonally.
    func place(_ frame: Rect, section index: Int, model: CollectionModel) -> Rect {
        place(frame, start: starts[index], across: offset(ofSection: index, model: model))
    }

    /// `place` with the section's start and offset already looked up (a query reads them once
    /// per section, not once per element).
    func place(_ frame: Rect, start: Double, across: Double) -> Rect {
        configuration.main == .y ? frame.offsetBy(dx: -across, dy: start) : frame.offsetBy(dx: start, dy: -across)
    }

    /// A section-local frame that does not scroll with the section (boundaries, decorations).
    func shifted(_ frame: Rect, section index: Int) -> Rect {
        configuration.main == .y ? frame.offsetBy(dx: 0, dy: starts[index]) : frame.offsetBy(dx: starts[index], dy: 0)
    }

    /// A boundary item where it is drawn now: pinned ones stick to the visible bounds while
    /// their section is on screen, and never leave it (as flow's pinned headers do).
    func frame(of boundary: CompositionalSection.Boundary, section index: Int) -> Rect {
        let natural = shifted(boundary.frame, section: index)
        guard boundary.item.pinToVisibleBounds else { return natural }
        let main = configuration.main
        let insets = CompositionalSectionSolver.physical(viewport.contentInsets)
        let visibleStart = main.coordinate(of: viewport.offset) + insets.before(main)
        let visibleEnd = main.coordinate(of: viewport.offset) + main.extent(of: viewport.size) - insets.after(main)
        let position = main.coordinate(of: natural.origin)
        let extent = main.extent(of: natural.size)
        let sectionStart = starts[index]
        let sectionEnd = starts[index] + sections[index].extent
        let pinned: Double
        switch CompositionalSectionSolver.mainEdge(of: boundary.item.alignment, main: main) {
        case .after:
            pinned = max(min(visibleEnd - extent, position), min(position, sectionStart))
        case .before, .neither:
            pinned = min(max(visibleStart, position), max(position, sectionEnd - extent))
        }
        return main == .y
            ? Rect(x: natural.minX, y: pinned, width: natural.width, height: natural.height)
            : Rect(x: pinned, y: natural.minY, width: natural.width, height: natural.height)
    }

    private func badge(_ badge: CompositionalSection.Badge, section index: Int, model: CollectionModel) -> LayoutAttributes {
        attributes(of: badge, frame: place(badge.frame, section: index, model: model), section: index, model: model)
    }

    private func attributes(of badge: CompositionalSection.Badge, frame: Rect, section index: Int, model: CollectionModel) -> LayoutAttributes {
        let style = sections[index].badgeStyles[badge.style]
        return LayoutAttributes(
            kind: style.kind, id: model.sections[index].itemIDs[badge.item], section: index, item: badge.item, frame: frame,
            zIndex: style.zIndex)
    }

    private func appendElements(ofSection index: Int, in rect: Rect, model: CollectionModel, to result: inout [LayoutAttributes]) {
        let section = sections[index]
        let main = configuration.main
        let start = starts[index]
        let across = offset(ofSection: index, model: model)
        // The rect in the section's own coordinates (content at offset 0 for an orthogonal one).
        let local = main == .y ? rect.offsetBy(dx: across, dy: -start) : rect.offsetBy(dx: -start, dy: across)
        let repeating = section.orthogonal == nil ? main : main.other
        let low = repeating.coordinate(of: local.origin)
        // Moving the rect into section coordinates rounds: search a hair wider, test exactly below.
        let slack = 1e-9 * (abs(start) + abs(across) + abs(low) + 1)
        let spans = section.spans(meeting: low - slack, low + repeating.extent(of: local.size) + slack)
        if !spans.isEmpty {
            let ids = model.sections[index].itemIDs
            for span in spans {
                // The spans were found in section coordinates; each frame is tested where it is
                // drawn, so a query agrees with every other lookup to the last bit.
                for item in section.spans[span].firstItem..<section.itemEnd(ofSpan: span) {
                    let frame = place(section.cells[item], start: start, across: across)
                    if frame.intersects(rect) {
                        result.append(LayoutAttributes(kind: .cell, id: ids[item], section: index, item: item, frame: frame))
                    }
                }
                for position in section.spans[span].firstBadge..<section.badgeEnd(ofSpan: span) {
                    let frame = place(section.badges[position].frame, start: start, across: across)
                    if frame.intersects(rect) { result.append(attributes(of: section.badges[position], frame: frame, section: index, model: model)) }
                }
            }
        }
        let id = model.sections[index].id
        for boundary in section.boundaries {
            let frame = frame(of: boundary, section: index)
            if frame.intersects(rect) {
                result.append(LayoutAttributes(kind: boundary.item.kind, id: id, section: index, item: nil, frame: frame, zIndex: boundary.item.zIndex))
            }
        }
        for decoration in section.decorations {
            let frame = shifted(decoration.frame, section: index)
            if frame.intersects(rect) {
                result.append(LayoutAttributes(kind: decoration.kind, id: id, section: index, item: nil, frame: frame, zIndex: decoration.zIndex))
            }
        }
    }
}

extension CompositionalLayout {
    /// The union of the orthogonal sections' cells across the scroll axis, each at its section's
    /// offset (badges included: a bound is all a search needs); nil without such sections.
    ///
    /// - Complexity: O(s) for s sections after a layout or a section scroll, O(1) until the next.
    public func cellCrossRange(model: CollectionModel) -> (min: Double, max: Double)? {
        if cellCrossRangeCache.isCurrent { return cellCrossRangeCache.range }
        var range: (min: Double, max: Double)?
        for index in sections.indices where sections[index].orthogonal != nil && !sections[index].spans.isEmpty {
            // Spans bound their cells along the axis groups repeat on, which is across here;
            // `reachLow[0]` and `reachHigh.last` bound them all.
            let section = sections[index]
            let across = offset(ofSection: index, model: model)
            let low = section.reachLow[0] - across
            let high = section.reachHigh[section.reachHigh.count - 1] - across
            range = (min(range?.min ?? low, low), max(range?.max ?? high, high))
        }
        cellCrossRangeCache = (range, true)
        return range
    }

    public func sectionScroll(ofSection index: Int, model: CollectionModel) -> SectionScroll? {
        guard index < sections.count, let orthogonal = sections[index].orthogonal else { return nil }
        return SectionScroll(
            offset: offset(ofSection: index, model: model), maximumOffset: orthogonal.maximumOffset,
            behavior: orthogonal.behavior.rawValue)
    }

    /// Not clamped (a client may rubber-band); `targetSectionOffset` clamps.
    public func scrollSection(_ index: Int, to offset: Double, model: CollectionModel) -> Double? {
        sectionOffsets[model.sections[index].id] = offset
        cellCrossRangeCache.isCurrent = false
        // Only this section's cells and badges moved, all within its band: they start no
        // earlier than its reach before it and before its end plus its reach after.
        changeStart = starts[index] - reachBefore
        return starts[index + 1] + sections[index].reachAfter + 1
    }

    /// Where section `index` comes to rest when the finger lifts at `proposed` with `velocity`
    /// (points per second, across the scroll axis), by its behaviour's snapping rule
    /// (docs/compositional-layout.md), within 0...maximumOffset.
    public func targetSectionOffset(section index: Int, proposed: Double, velocity: Double, model: CollectionModel) -> Double {
        guard index < sections.count, let orthogonal = sections[index].orthogonal else { return proposed }
        let section = sections[index]
        let current = offset(ofSection: index, model: model)
        let maximum = orthogonal.maximumOffset
        func clamp(_ value: Double) -> Double { min(max(value, 0), maximum) }
        let leading = section.spans.first?.groupStart ?? 0
        let tolerance = 1e-6
        /// The rest point in `candidates` (ascending) for this gesture: the next one past the
        /// current offset in the fling's direction (one step per gesture), else the nearest.
        func step(_ candidates: [Double]) -> Double {
            guard !candidates.isEmpty else { return clamp(proposed) }
            if velocity > 0 { return clamp(candidates.first { $0 > current + tolerance } ?? candidates.last!) }
            if velocity < 0 { return clamp(candidates.last { $0 < current - tolerance } ?? candidates.first!) }
            return clamp(nearest(candidates, to: proposed))
        }
        switch orthogonal.behavior {
        case .none, .continuous:
            return clamp(proposed)
        case .continuousGroupLeadingBoundary:
            // Free scrolling that ends with a group's leading edge where the first group rests:
            // the boundary at or beyond the proposal in the fling's direction.
            let candidates = section.spans.map { $0.groupStart - leading }
            if velocity > 0 { return clamp(candidates.first { $0 >= proposed - tolerance } ?? candidates.last ?? proposed) }
            if velocity < 0 { return clamp(candidates.last { $0 <= proposed + tolerance } ?? candidates.first ?? proposed) }
            return clamp(nearest(candidates, to: proposed))
        case .paging:
            let page = orthogonal.visibleExtent
            guard page > 0 else { return clamp(proposed) }
            let pages = (maximum / page).rounded(.up)
            return step(stride(from: 0.0, through: pages, by: 1).map { $0 * page })
        case .groupPaging:
            return step(section.spans.map { $0.groupStart - leading })
        case .groupPagingCentered:
            let centre = orthogonal.visibleStart + orthogonal.visibleExtent / 2
            return step(section.spans.map { ($0.groupStart + $0.groupEnd) / 2 - centre })
        }
    }

    private func nearest(_ candidates: [Double], to value: Double) -> Double {
        candidates.min { abs($0 - value) < abs($1 - value) } ?? value
    }
}
