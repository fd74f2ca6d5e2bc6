import LayoutGeometry

/// An edge of an element along the scroll axis (for a vertical view: top, middle, bottom).
public enum AnchorEdge: String, Hashable, Sendable, CaseIterable {
    case start, center, end
}

/// What a change keeps still on screen (protocol/mutations.md, "Anchors").
public enum AnchorPolicy: Hashable, Sendable {
    /// The first visible cell's start edge stays where it is on screen: the default, and what
    /// UIKit and most lists do.
    case firstVisible
    /// The last visible cell's end edge stays where it is on screen.
    case lastVisible
    /// The distance from the viewport's end to the content's end stays the same: a view
    /// scrolled to the end stays at the end when items are appended or grow (chat, logs).
    case end
    /// The offset stays (clamped to the new content).
    case none
    /// `edge` of the element `key` sits `offset` points past the viewport's leading edge, or,
    /// with no offset, where it is now.
    case element(ElementKey, edge: AnchorEdge, offset: Double?)

    /// The policy's name on the wire.
    public var name: String {
        switch self {
        case .firstVisible: "firstVisible"
        case .lastVisible: "lastVisible"
        case .end: "end"
        case .none: "none"
        case .element: "item"
        }
    }
}

/// Where to put an element with `Layout.scrollPlacement(for:align:offset:)`.
public enum ScrollAlignment: String, Hashable, Sendable, CaseIterable {
    /// The element's start edge at the visible area's start (below the leading inset).
    case start
    case center
    /// The element's end edge at the visible area's end.
    case end
    /// The least scroll that shows the whole element (start when it is larger than the area);
    /// none when it is fully visible.
    case nearest
}

/// An anchor as it was before a change: what `Layout.offset(restoring:in:)` puts back.
public struct AnchorCapture: Hashable, Sendable {
    enum Hold: Hashable, Sendable {
        /// `edge` of `key` was `distance` points past the viewport's leading edge.
        case element(ElementKey, AnchorEdge, distance: Double)
        /// The viewport's end was `distance` points before the farthest resting offset.
        case endDistance(Double)
        case offset
    }

    let hold: Hold
    let axis: Axis
    let offset: Point
    public let policy: AnchorPolicy

    /// The element kept in place (the reply's `anchor`), when the policy holds one.
    public var anchorID: String? {
        if case .element(let key, _, _) = hold { return key.id }
        return nil
    }
}

extension Layout {
    /// The last visible cell: the highest index path among cells intersecting the viewport.
    public var lastVisibleItem: LayoutAttributes? {
        elements(in: viewport.bounds).filter { $0.kind == .cell }.max { $0.indexPath! < $1.indexPath! }
    }

    /// The anchor `policy` names, as the layout is now. A policy whose visible cell there is
    /// none of, or whose element is gone, keeps the offset instead.
    ///
    /// - Parameter known: `firstVisibleItem`, when the caller has it already (read off a
    ///   recorded window), so it is not queried again.
    public func captureAnchor(_ policy: AnchorPolicy, firstVisible known: LayoutAttributes?? = nil) -> AnchorCapture {
        let space = ReadingSpace(strategy)
        let axis = strategy.scrollAxis
        let leading = axis.main(of: space.viewport.offset)
        func hold(_ attributes: LayoutAttributes?, _ edge: AnchorEdge, offset: Double? = nil) -> AnchorCapture.Hold {
            guard let attributes else { return .offset }
            let point = Self.edge(edge, of: space.reading(attributes.frame), axis: axis)
            return .element(attributes.key, edge, distance: offset ?? point - leading)
        }
        let held: AnchorCapture.Hold = switch policy {
        case .firstVisible: hold(known ?? firstVisibleItem, .start)
        case .lastVisible: hold(lastVisibleItem, .end)
        case .end: .endDistance(Self.farthestOffset(in: strategy) - leading)
        case .none: .offset
        case .element(let key, let edge, let offset): hold(attributes(for: key), edge, offset: offset)
        }
        return AnchorCapture(hold: held, axis: axis, offset: space.viewport.offset, policy: policy)
    }

    /// The offset that puts `capture`'s anchor back where it was, in `strategy` (this layout's
    /// after a change, or the one a switch moves to, already prepared), clamped to the valid
    /// range along the scroll axis. Across it the offset is kept when the axis is the same, else
    /// 0. An offset that is kept (the policy `none`, or an anchor element that is gone) keeps
    /// both of its components.
    static func offset(restoring capture: AnchorCapture, in strategy: any LayoutStrategy, model: CollectionModel) -> Point {
        let space = ReadingSpace(strategy)
        let reading = space.strategy
        let axis = strategy.scrollAxis
        let main: Double
        switch capture.hold {
        case .element(let key, let edge, let distance):
            guard let moved = attributes(for: key, in: reading, model: model) else {
                return space.screen(offset: clampedReading(capture.offset, in: reading))
            }
            // Where cells move with the offset, the strategy says where this one lands.
            main = key.kind == .cell ? reading.offset(placing: key.id, edge: edge, at: distance, model: model)
                ?? Self.edge(edge, of: moved.frame, axis: axis) - distance : Self.edge(edge, of: moved.frame, axis: axis) - distance
        case .endDistance(let distance):
            main = farthestOffset(in: strategy) - distance
        case .offset:
            return space.screen(offset: clampedReading(capture.offset, in: reading))
        }
        let cross = capture.axis == axis ? axis.cross(of: capture.offset) : 0
        return space.screen(offset: clampedReading(axis == .vertical ? Point(x: cross, y: main) : Point(x: main, y: cross), in: reading))
    }

    /// Where `align` puts `frame`: the content offset (clamped to the valid range; the
    /// cross-axis offset kept), and the edge of the frame it aligns with the distance that edge
    /// belongs at from the viewport's leading edge (unclamped: where it goes once the content
    /// allows). `offset` moves the element inward from the aligned edge (toward the trailing end
    /// for `center`). The visible area is the viewport less its content insets; `nearest`
    /// resolves to `start`, `end`, or, for an element fully visible already, its start edge
    /// where it is.
    public func scrollPlacement(for frame: Rect, align: ScrollAlignment, offset: Double = 0) -> (offset: Point, edge: AnchorEdge, distance: Double) {
        let space = ReadingSpace(strategy)
        let frame = space.reading(frame)
        let viewport = space.viewport
        let axis = strategy.scrollAxis
        let insets = axis.logical(viewport.contentInsets)
        let extent = axis.main(of: viewport.size)
        let current = axis.main(of: viewport.offset)
        let range = axis.mainRange(of: frame)
        var resolved = align
        if align == .nearest {
            let visible = (min: current + insets.mainLeading, max: current + extent - insets.mainTrailing)
            if range.min - offset < visible.min || range.max - range.min > visible.max - visible.min {
                resolved = .start
            } else if range.max + offset > visible.max {
                resolved = .end
            }
        }
        let (edge, distance): (AnchorEdge, Double) = switch resolved {
        case .start: (.start, insets.mainLeading + offset)
        case .end: (.end, extent - insets.mainTrailing - offset)
        case .center: (.center, (extent + insets.mainLeading - insets.mainTrailing) / 2 + offset)
        case .nearest: (.start, range.min - current)
        }
        let main = Self.edge(edge, of: frame, axis: axis) - distance
        let point = axis == .vertical ? Point(x: viewport.offset.x, y: main) : Point(x: main, y: viewport.offset.y)
        return (space.screen(offset: Self.clampedReading(point, in: space.strategy)), edge, distance)
    }

    /// Puts `edge` of `key` `distance` points past the viewport's leading edge (reading
    /// coordinates, as `scrollPlacement` gives them) in a strategy whose frames move with the
    /// offset (ultravisual's featured cell, pinned headers): there an offset worked out from the
    /// frame where it was is not where the element lands. A strategy that knows where its cells
    /// land says so (`LayoutStrategy.offset(placing:edge:at:model:)`, exact); otherwise the
    /// offset is refined by the secant method on the element's distance from where it belongs,
    /// at most 24 steps, until it is within 1e-9 points or the clamped range stops it.
    ///
    /// - Complexity: what the strategy's answer costs (O(log n) for ultravisual), or a few
    ///   viewport updates and lookups.
    func settle(_ key: ElementKey, edge: AnchorEdge, distance: Double) throws(LayoutError) {
        let axis = strategy.scrollAxis
        func offset() -> Double { axis.main(of: ReadingSpace(strategy).viewport.offset) }
        /// Scrolls to reading offset `main`, clamped; false when that is where the view is.
        func move(to main: Double) throws(LayoutError) -> Bool {
            let space = ReadingSpace(strategy)
            var reading = space.viewport.offset
            if axis == .vertical { reading.y = main } else { reading.x = main }
            let target = Self.clamped(space.screen(offset: reading), in: strategy)
            guard target != viewport.offset else { return false }
            try scroll(toTarget: target)
            return true
        }
        if key.kind == .cell, let main = strategy.offset(placing: key.id, edge: edge, at: distance, model: model) {
            _ = try move(to: main)
            return
        }
        func miss() -> Double? {
            guard let frame = attributes(for: key)?.frame else { return nil }
            return Self.edge(edge, of: ReadingSpace(strategy).reading(frame), axis: axis) - offset() - distance
        }
        guard var last = miss() else { return }
        var lastOffset = offset()
        // The first step moves by the miss, as if the frames stood still.
        var next = lastOffset + last
        for _ in 0..<24 {
            guard abs(last) > 1e-9 * max(1, abs(lastOffset)), next.isFinite, try move(to: next), let current = miss() else { return }
            let currentOffset = offset()
            let slope = (current - last) / (currentOffset - lastOffset)
            next = slope.isFinite && slope != 0 ? currentOffset - current / slope : currentOffset + current
            (last, lastOffset) = (current, currentOffset)
        }
    }

    /// Cells intersecting `rect` whose sizes are still guesses: a client's estimate not yet
    /// replaced by `view.measure`, or the strategy's estimated default. In reading order.
    public func estimatedItems(in rect: Rect) -> [String] {
        estimatedItems(among: elements(in: rect))
    }

    /// The cells of `elements` whose sizes are still guesses, in reading order.
    func estimatedItems(among elements: [LayoutAttributes]) -> [String] {
        let sections = model.sections
        let defaultIsEstimate = strategy.estimatesDefaultSize
        // Index paths, not attributes, are sorted; each section's sources are read in one walk.
        var cells = elements.indices.filter { elements[$0].kind == .cell && elements[$0].item != nil }
        cells.sort { elements[$0].indexPath! < elements[$1].indexPath! }
        var result = [String]()
        var start = 0
        while start < cells.count {
            let section = elements[cells[start]].section
            var end = start
            while end < cells.count, elements[cells[end]].section == section { end += 1 }
            let run = cells[start..<end]
            if !sections[section].hasOwnSizes {
                // Every item takes the strategy's default.
                if defaultIsEstimate { result += run.map { elements[$0].id } }
            } else {
                let sources = sections[section].sizeSources(ofItems: run.map { elements[$0].item! })
                for (index, source) in zip(run, sources) where source == .estimated || (source == .strategyDefault && defaultIsEstimate) {
                    result.append(elements[index].id)
                }
            }
            start = end
        }
        return result
    }

    /// Where `edge` of `frame` lies along `axis`.
    static func edge(_ edge: AnchorEdge, of frame: Rect, axis: Axis) -> Double {
        let range = axis.mainRange(of: frame)
        return switch edge {
        case .start: range.min
        case .center: (range.min + range.max) / 2
        case .end: range.max
        }
    }

    /// The farthest offset a scroll view can rest at along the scroll axis.
    /// In reading coordinates (`ReadingSpace`): for a right-to-left horizontal view, the left end.
    static func farthestOffset(in strategy: any LayoutStrategy) -> Double {
        let strategy = ReadingSpace(strategy).strategy
        let axis = strategy.scrollAxis
        let insets = axis.logical(strategy.viewport.contentInsets)
        return max(-insets.mainLeading, axis.main(of: strategy.contentSize) + insets.mainTrailing - axis.main(of: strategy.viewport.size))
    }
}
