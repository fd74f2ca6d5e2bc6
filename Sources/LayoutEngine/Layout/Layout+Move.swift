import LayoutGeometry

/// The items an interactive move drags (one, or a unit such as a collapsible stack): laid
/// out by the strategy in their slots (the target position), drawn instead each with its slot's
/// size centred on the finger and above every other element. Only `Layout`'s queries apply it,
/// so strategies (plugins too) never know.
struct MovingItem: Hashable, Sendable {
    /// The unit in data order (`ActiveMove.items`).
    var ids: [String]
    /// The finger in content coordinates: the centre of the drawn frames.
    var center: Point
    /// One more than the highest zIndex in the window when the unit was last placed: the
    /// unit's first item is drawn at it, the next one above, and so on.
    var zIndex: Int

    init(ids: [String], center: Point, zIndex: Int) {
        self.ids = ids
        self.center = center
        self.zIndex = zIndex
    }

    /// The item's place in the unit, or nil when it is not dragged. O(r), r = 1 almost always.
    func rank(of id: String) -> Int? {
        ids.count == 1 ? (ids[0] == id ? 0 : nil) : ids.firstIndex(of: id)
    }

    /// The slot attributes of the unit's `rank`th item, with the dragged frame and zIndex.
    func dragged(_ slot: LayoutAttributes, rank: Int) -> LayoutAttributes {
        var attributes = slot
        attributes.frame = Rect(
            x: center.x - slot.frame.width / 2, y: center.y - slot.frame.height / 2, width: slot.frame.width,
            height: slot.frame.height)
        attributes.zIndex = zIndex + rank
        return attributes
    }

    /// `slots` (a strategy's answer for `rect`) with the unit's slots taken out and their
    /// dragged attributes in (after the others), where they meet `rect`.
    ///
    /// - Complexity: O(k r) for the k slots, plus one O(log n) lookup per dragged item whose
    ///   slot is elsewhere.
    func replacingSlots(
        in slots: [LayoutAttributes], within rect: Rect, strategy: any LayoutStrategy, model: CollectionModel
    ) -> [LayoutAttributes] {
        var result = [LayoutAttributes]()
        result.reserveCapacity(slots.count + ids.count)
        var drawn = [LayoutAttributes?](repeating: nil, count: ids.count)
        for slot in slots {
            if slot.kind == .cell, let rank = rank(of: slot.id) {
                drawn[rank] = dragged(slot, rank: rank)
            } else {
                result.append(slot)
            }
        }
        for (rank, id) in ids.enumerated() {
            // A slot elsewhere: the dragged frame may still be here.
            guard let attributes = drawn[rank] ?? strategy.attributes(forItem: id, model: model).map({ dragged($0, rank: rank) }) else {
                continue
            }
            if attributes.frame.intersects(rect) || Self.isPoint(attributes.frame, inside: rect) { result.append(attributes) }
        }
        return result
    }

    /// A zero-size frame strictly inside `rect` counts as in it, as strategies' queries count it.
    private static func isPoint(_ frame: Rect, inside rect: Rect) -> Bool {
        frame.width == 0 && frame.height == 0 && frame.minX > rect.minX && frame.minX < rect.maxX && frame.minY > rect.minY
            && frame.minY < rect.maxY
    }
}

/// How fast a drag near the viewport's edge asks the client to scroll (`View.updateMove`).
public enum AutoScroll {
    /// The band along each end of the viewport (along the scroll axis) where a drag scrolls:
    /// 64 points, or a quarter of the viewport when that is less.
    public static let edgeBand = 64.0
    /// Points per second at the viewport's edge (and beyond it).
    public static let maximumSpeed = 1000.0

    /// The scroll velocity for a finger at `point` (viewport coordinates): along the scroll axis
    /// only, `maximumSpeed × depth / band` where depth is how far into the band the finger is
    /// (capped at the band), negative at the leading end, positive at the trailing end, and 0
    /// where the content cannot scroll further that way.
    static func velocity(at point: Point, in strategy: any LayoutStrategy) -> Point {
        let axis = strategy.scrollAxis
        let viewport = strategy.viewport
        let extent = axis.main(of: viewport.size)
        let band = min(edgeBand, extent / 4)
        guard band > 0 else { return .zero }
        let position = axis.main(of: point)
        let offset = axis.main(of: viewport.offset)
        let lowest = -axis.logical(viewport.contentInsets).mainLeading
        let highest = Layout.farthestOffset(in: strategy)
        var speed = 0.0
        if position < band, offset > lowest {
            speed = -maximumSpeed * min(1, (band - position) / band)
        } else if position > extent - band, offset < highest {
            speed = maximumSpeed * min(1, (position - (extent - band)) / band)
        }
        return axis == .vertical ? Point(x: 0, y: speed) : Point(x: speed, y: 0)
    }
}

extension Layout {
    /// The drop slot whose frame is nearest `point` (content coordinates): a visible cell, or
    /// the header or footer of a section that holds nothing but the moving `unit` (`count`
    /// items, now in `section`): it stands for the section's first position, so a drag can fill
    /// an empty section and stays there while over it; distance from the point to the
    /// frame (0 inside), ties to the earlier position (`dropPosition`). Frames only, so every
    /// strategy (plugins included) answers the same way.
    ///
    /// The search looks in a square around the point that starts at `reach` and grows fourfold
    /// until it holds a candidate no farther than its half-width (nothing outside could be
    /// nearer) or covers the content.
    ///
    /// - Complexity: O(log n + k) for the k slots in the last square.
    func nearestSlot(to point: Point, reach: Double, unit: (section: Int, count: Int)) -> LayoutAttributes? {
        let content = Rect(origin: .zero, size: contentSize)
        var half = max(reach, 1)
        while true {
            let square = Rect(x: point.x - half, y: point.y - half, width: 2 * half, height: 2 * half)
            var best: (distance: Double, position: ItemIndexPath, slot: LayoutAttributes)?
            for slot in strategy.elements(in: square, model: model) where !slot.isHidden {
                guard let position = dropPosition(of: slot, unit: unit) else { continue }
                let distance = Self.distance(from: point, to: slot.frame)
                if let current = best {
                    if distance > current.distance { continue }
                    if distance == current.distance, !(position < current.position) { continue }
                }
                best = (distance, position, slot)
            }
            if let best, best.distance <= half { return best.slot }
            if square.contains(content) { return best?.slot }
            half *= 4
        }
    }

    /// Where a drop on `slot` would land, for ordering ties: a cell's own position; the header
    /// or footer of a section empty but for the moving `unit`, the section's first; nil for
    /// anything else (a supplementary of a section with other items: its cells are the slots).
    func dropPosition(of slot: LayoutAttributes, unit: (section: Int, count: Int)) -> ItemIndexPath? {
        if slot.kind == .cell { return slot.indexPath }
        // A section's own elements (headers, footers, backgrounds); an item's badge is not a slot.
        guard slot.item == nil else { return nil }
        let others = model.sections[slot.section].count - (slot.section == unit.section ? unit.count : 0)
        return others == 0 ? ItemIndexPath(section: slot.section, item: 0) : nil
    }

    static func distance(from point: Point, to frame: Rect) -> Double {
        let dx = max(frame.minX - point.x, 0, point.x - frame.maxX)
        let dy = max(frame.minY - point.y, 0, point.y - frame.maxY)
        return (dx * dx + dy * dy).squareRoot()
    }

    /// Whether `point` comes before the centre of `frame` in reading order, compared along the
    /// axis on which it lies farther from the centre relative to the frame's extent there (ties
    /// across): along the scroll axis lines follow one another (down, or across the reading
    /// direction when horizontal); across it the reading direction runs (left to right, or right
    /// to left when `rightToLeft`). So a full-width row of a list splits at its middle line and a
    /// grid cell at its middle column, and a finger beside a cell's line compares by lines.
    func precedes(_ point: Point, centreOf frame: Rect, rightToLeft: Bool) -> Bool {
        let axis = strategy.scrollAxis
        let main = axis.mainRange(of: frame)
        let cross = axis.crossRange(of: frame)
        // A horizontal view's lines run right to left when the view reads right to left.
        let mainForward = axis == .horizontal && rightToLeft ? -1.0 : 1.0
        let crossForward = axis == .vertical && rightToLeft ? -1.0 : 1.0
        let alongMain = (axis.main(of: point) - (main.min + main.max) / 2) * mainForward
        let alongCross = (axis.cross(of: point) - (cross.min + cross.max) / 2) * crossForward
        let tiny = 1e-9
        if abs(alongMain) / max(main.max - main.min, tiny) > abs(alongCross) / max(cross.max - cross.min, tiny) {
            return alongMain < 0
        }
        return alongCross < 0
    }
}
