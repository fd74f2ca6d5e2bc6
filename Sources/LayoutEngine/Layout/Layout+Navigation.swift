import LayoutGeometry

/// Which way `Layout.neighbor(of:direction:)` moves: by geometry for the four screen
/// directions, by reading order (the data's order, sections in turn) for `next` and `previous`.
public enum NeighborDirection: String, Sendable, CaseIterable {
    case up, down, left, right, next, previous
}

extension LayoutAttributes {
    /// Whether `point` lies in the area the element covers on screen: its frame with its
    /// transform applied around the frame's centre, as UIKit applies a view's transform. Edges
    /// as `CGRect.contains`: the minimum edges belong to the area, the maximum edges do not.
    /// A transform that collapses the area (determinant 0) covers nothing.
    public func covers(_ point: Point) -> Bool {
        var local = point
        if !transform.isIdentity {
            // On screen p = c + L·(q − c) + t for a point q of the frame (L the linear part,
            // t the translation), so q = c + L⁻¹·(p − c − t).
            let t = transform
            let determinant = t.a * t.d - t.b * t.c
            guard determinant != 0, determinant.isFinite else { return false }
            let dx = point.x - frame.midX - t.tx
            let dy = point.y - frame.midY - t.ty
            local = Point(x: frame.midX + (t.d * dx - t.c * dy) / determinant, y: frame.midY + (t.a * dy - t.b * dx) / determinant)
        }
        return frame.minX <= local.x && local.x < frame.maxX && frame.minY <= local.y && local.y < frame.maxY
    }

    /// Whether this element is drawn above `other`: the higher zIndex, then the later element
    /// (cells before headers before footers before other kinds, then by section, item and kind name).
    public func isDrawn(above other: LayoutAttributes) -> Bool {
        func order(_ attributes: LayoutAttributes) -> (Int, Int, Int, Int, String) {
            (attributes.zIndex, attributes.kind.rank, attributes.section, attributes.item ?? 0, attributes.kind.rawValue)
        }
        return order(self) > order(other)
    }

    /// Whether a hit test or a keyboard move may land on the element: UIKit's hit testing skips
    /// hidden views and views with alpha below 0.01.
    var isInteractive: Bool { !isHidden && alpha >= 0.01 }
}

extension Layout {
    /// The topmost element (`isDrawn(above:)`) among `kinds` whose area covers `point`, in
    /// content coordinates; hidden and (nearly) transparent elements are passed over, as UIKit's
    /// hit testing passes over such views. Nil when nothing is there.
    ///
    /// - Complexity: O(log n + k) for the k elements whose frames, grown by the strategy's
    ///   `transformOverhang`, contain the point (a handful: those drawn at that spot).
    public func hitTest(_ point: Point, kinds: Set<ElementKind>? = nil) -> LayoutAttributes? {
        let reach = strategy.transformOverhang
        // The smallest rect that the open intersection of `elements(in:)` finds every frame
        // containing the point with (frames are half-open; the probe must have some width).
        let probe = Rect(
            x: point.x - reach, y: point.y - reach,
            width: (point.x + reach).nextUp - (point.x - reach), height: (point.y + reach).nextUp - (point.y - reach))
        var top: LayoutAttributes?
        for element in elements(in: probe) where kinds?.contains(element.kind) ?? true && element.isInteractive && element.covers(point) {
            if top.map({ element.isDrawn(above: $0) }) ?? true { top = element }
        }
        return top
    }

    /// The cell a keyboard, a remote or a screen reader moves to from item `id`, or nil at the
    /// edge of the content. Hidden cells are passed over, and cells that share one frame (a
    /// collapsible stack) are one stop, represented by the one drawn on top.
    ///
    /// `next` and `previous` follow reading order (the data's order, across sections).
    /// `up`, `down`, `left` and `right` go by geometry, with the rules of Android's focus
    /// search: a candidate lies beyond the item in that direction (its near and far edges both
    /// past the item's); one that overlaps the item on the other axis (in its beam) is
    /// preferred over one that does not unless the other lies wholly nearer (for left and right
    /// the beam always wins); otherwise the lower 13·d² + c² wins, d the gap along the
    /// direction and c the distance between centres across it; a tie goes to the one drawn on
    /// top. Moves across the scroll axis look at most one viewport along it either way.
    ///
    /// - Throws: `itemNotFound` when `id` is not an item.
    /// - Complexity: O(log n + k) for the k cells in the searched region: it starts at twice
    ///   the item's size and doubles until the best candidate provably beats anything farther.
    ///   `next` and `previous` cost O(log n) plus the stops' sizes.
    public func neighbor(of id: String, direction: NeighborDirection) throws(LayoutError) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id), let current = attributes(forItem: id) else { throw .itemNotFound(id) }
        switch direction {
        case .next: return readingNeighbor(of: current, at: path, forward: true)
        case .previous: return readingNeighbor(of: current, at: path, forward: false)
        case .up, .down, .left, .right: return geometricNeighbor(of: current, direction: FocusDirection(direction))
        }
    }

    // MARK: Reading order

    private func readingNeighbor(of current: LayoutAttributes, at start: ItemIndexPath, forward: Bool) -> LayoutAttributes? {
        var path = start
        var landed: LayoutAttributes
        // Leave the current stop: every neighbour in reading order that shares its frame.
        repeat {
            guard let step = step(from: path, forward: forward), let attributes = cell(at: step) else { return nil }
            path = step
            landed = attributes
        } while landed.frame == current.frame || !landed.isInteractive
        // The stop reached is the run of cells sharing `landed`'s frame; the one on top stands
        // for it.
        var top = landed
        for direction in [forward, !forward] {
            var probe = path
            while let step = step(from: probe, forward: direction), let attributes = cell(at: step), attributes.frame == landed.frame {
                if attributes.isInteractive && attributes.isDrawn(above: top) { top = attributes }
                probe = step
            }
        }
        return top
    }

    /// The index path after (or before) `path` in reading order, across sections; nil past the
    /// ends.
    private func step(from path: ItemIndexPath, forward: Bool) -> ItemIndexPath? {
        let sections = model.sections
        if forward {
            if path.item + 1 < sections[path.section].count { return ItemIndexPath(section: path.section, item: path.item + 1) }
            var section = path.section + 1
            while section < sections.count {
                if sections[section].count > 0 { return ItemIndexPath(section: section, item: 0) }
                section += 1
            }
        } else {
            if path.item > 0 { return ItemIndexPath(section: path.section, item: path.item - 1) }
            var section = path.section - 1
            while section >= 0 {
                if sections[section].count > 0 { return ItemIndexPath(section: section, item: sections[section].count - 1) }
                section -= 1
            }
        }
        return nil
    }

    private func cell(at path: ItemIndexPath) -> LayoutAttributes? { attributes(forItem: model.itemID(at: path)) }

    // MARK: Geometry

    /// Where cells can be: the content rect, grown to the first and the last item's frames and
    /// across the scroll axis to the strategy's `cellCrossRange`. Cells may lie past the
    /// content's end (ultravisual's cells below the featured one when its drag offset is shorter
    /// than a cell), and every strategy places items in reading order along its scroll axis, so
    /// the first and last items bound the rest there. Across it, a carousel (an orthogonal
    /// section) lays cells past the content's width wherever it sits in the data.
    private var extent: Rect {
        var (minX, minY, maxX, maxY) = (0.0, 0.0, contentSize.width, contentSize.height)
        let model = self.model
        if let across = strategy.cellCrossRange(model: model) {
            if strategy.scrollAxis == .vertical {
                (minX, maxX) = (min(minX, across.min), max(maxX, across.max))
            } else {
                (minY, maxY) = (min(minY, across.min), max(maxY, across.max))
            }
        }
        var ends = [ItemIndexPath]()
        if let first = (0..<model.numberOfSections).first(where: { model.sections[$0].count > 0 }) { ends.append(ItemIndexPath(section: first, item: 0)) }
        if let last = (0..<model.numberOfSections).last(where: { model.sections[$0].count > 0 }) {
            ends.append(ItemIndexPath(section: last, item: model.sections[last].count - 1))
        }
        for path in ends {
            guard let frame = cell(at: path)?.frame else { continue }
            (minX, minY, maxX, maxY) = (min(minX, frame.minX), min(minY, frame.minY), max(maxX, frame.maxX), max(maxY, frame.maxY))
        }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }

    private func geometricNeighbor(of current: LayoutAttributes, direction: FocusDirection) -> LayoutAttributes? {
        let source = current.frame
        let axis = strategy.scrollAxis
        let content = extent
        let alongScroll = direction.axis == axis
        // Across the scroll axis the whole way is searched at once (the cross extent is about a
        // viewport), but only within a viewport along the scroll axis.
        let acrossReach = axis.main(of: viewport.size)
        var reach = 2 * max(source.width, source.height, 1)
        while true {
            let major = alongScroll ? reach : .infinity
            let region = direction.region(beyond: source, major: major, cross: alongScroll ? .infinity : acrossReach, within: content)
            var best: LayoutAttributes?
            for element in elements(in: region) where element.kind == .cell && element.isInteractive && direction.isCandidate(element.frame, from: source) {
                if best.map({ direction.isBetter(element, than: $0, from: source) }) ?? true { best = element }
            }
            // The region reaches the content's edge that way: nothing lies farther.
            if direction.reachesEdge(region, of: content) { return best }
            // Anything outside the region is at least `reach` away along the direction, so it
            // scores at least 13·reach² and, in the beam, is no nearer than `reach`.
            if let best {
                let score = direction.score(best.frame, from: source)
                let beamSafe = direction.inBeam(best.frame, of: source)
                    || (!direction.beamAlwaysWins && direction.farEdgeDistance(best.frame, from: source) <= reach)
                if score < 13 * reach * reach && beamSafe { return best }
            }
            reach *= 2
        }
    }
}

/// A screen direction and the geometry of a focus move that way.
private struct FocusDirection {
    /// The axis the move goes along.
    let axis: Axis
    /// Whether the move goes toward larger coordinates (down, right).
    let increasing: Bool

    init(_ direction: NeighborDirection) {
        switch direction {
        case .up: (axis, increasing) = (.vertical, false)
        case .down: (axis, increasing) = (.vertical, true)
        case .left: (axis, increasing) = (.horizontal, false)
        case .right: (axis, increasing) = (.horizontal, true)
        case .next, .previous: preconditionFailure("reading order is not a screen direction")
        }
    }

    /// Left and right: a candidate in the beam always beats one outside it.
    var beamAlwaysWins: Bool { axis == .horizontal }

    private func range(_ rect: Rect) -> (min: Double, max: Double) { axis.mainRange(of: rect) }
    private func crossRange(_ rect: Rect) -> (min: Double, max: Double) { axis.crossRange(of: rect) }

    /// Both of the candidate's edges lie beyond the source's along the direction.
    func isCandidate(_ frame: Rect, from source: Rect) -> Bool {
        let (s, d) = (range(source), range(frame))
        return increasing ? (s.min < d.min || s.max <= d.min) && s.max < d.max : (s.max > d.max || s.min >= d.max) && s.min > d.min
    }

    /// The candidate overlaps the source across the direction.
    func inBeam(_ frame: Rect, of source: Rect) -> Bool {
        let (s, d) = (crossRange(source), crossRange(frame))
        return d.max > s.min && d.min < s.max
    }

    /// The candidate lies wholly beyond the source's far edge.
    private func isWhollyBeyond(_ frame: Rect, from source: Rect) -> Bool {
        let (s, d) = (range(source), range(frame))
        return increasing ? s.max <= d.min : s.min >= d.max
    }

    /// The gap along the direction from the source's far edge to the candidate's near edge.
    func nearEdgeDistance(_ frame: Rect, from source: Rect) -> Double {
        let (s, d) = (range(source), range(frame))
        return max(0, increasing ? d.min - s.max : s.min - d.max)
    }

    /// The distance along the direction from the source's far edge to the candidate's far edge.
    func farEdgeDistance(_ frame: Rect, from source: Rect) -> Double {
        let (s, d) = (range(source), range(frame))
        return max(1, increasing ? d.max - s.max : s.min - d.min)
    }

    func score(_ frame: Rect, from source: Rect) -> Double {
        let major = nearEdgeDistance(frame, from: source)
        let (s, d) = (crossRange(source), crossRange(frame))
        let minor = (d.min + d.max) / 2 - (s.min + s.max) / 2
        return 13 * major * major + minor * minor
    }

    /// `first` in the beam beats `second` outside it, unless `second` lies wholly nearer.
    private func beamBeats(_ first: Rect, _ second: Rect, from source: Rect) -> Bool {
        guard inBeam(first, of: source), !inBeam(second, of: source) else { return false }
        guard isWhollyBeyond(second, from: source), !beamAlwaysWins else { return true }
        return nearEdgeDistance(first, from: source) < farEdgeDistance(second, from: source)
    }

    func isBetter(_ candidate: LayoutAttributes, than best: LayoutAttributes, from source: Rect) -> Bool {
        if beamBeats(candidate.frame, best.frame, from: source) { return true }
        if beamBeats(best.frame, candidate.frame, from: source) { return false }
        let (a, b) = (score(candidate.frame, from: source), score(best.frame, from: source))
        return a != b ? a < b : candidate.isDrawn(above: best)
    }

    /// The part of `content` beyond `source` that way (from the source's near edge, since a
    /// candidate's far edge only has to pass the source's), `major` deep along the direction
    /// and `cross` wide on each side across it.
    func region(beyond source: Rect, major: Double, cross: Double, within content: Rect) -> Rect {
        let s = range(source)
        let (low, high) = increasing ? (s.min, s.max + major) : (s.min - major, s.max)
        let c = crossRange(source)
        let crossLow = max(crossRange(content).min, c.min - cross)
        let crossHigh = min(crossRange(content).max, c.max + cross)
        let mainLow = max(range(content).min, low)
        let mainHigh = min(range(content).max, high)
        return axis.rect(cross: crossLow, main: mainLow, crossExtent: max(0, crossHigh - crossLow), mainExtent: max(0, mainHigh - mainLow))
    }

    /// Whether `region` extends to the content's edge along the direction.
    func reachesEdge(_ region: Rect, of content: Rect) -> Bool {
        increasing ? range(region).max >= range(content).max : range(region).min <= range(content).min
    }
}
