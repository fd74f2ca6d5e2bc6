import LayoutGeometry

/// Which way a view's content reads across: left to right, or right to left.
public enum LayoutDirection: String, Hashable, Sendable, CaseIterable {
    case ltr, rtl
}

/// Any strategy laid out right to left: the inner strategy lays out left to right, and every
/// frame, offset, inset, velocity and transform crossing this wrapper is mirrored across the
/// content's width, as UIKit's `flipsHorizontallyInOppositeLayoutDirection` mirrors a layout.
/// So every strategy, plugins included, gets right-to-left once, here, and everything built on
/// frames (windows, deltas, anchors, transitions, hit testing, neighbours, scrollTo) works
/// unchanged in the mirrored coordinates.
///
/// Mirroring across the inner content width W: a frame's x becomes W − (x + width); a viewport
/// offset's x becomes W − viewport width − x (so the visible rect mirrors); the left and right
/// insets swap; a velocity's x and a transform's off-diagonal terms and x translation change
/// sign. Mirroring twice is the identity, as long as W stays.
public final class MirroredStrategy: LayoutStrategy {
    public let inner: any LayoutStrategy
    /// The last viewport given, with the inner viewport and width it became: read back as it
    /// was given while those stand, so an offset a client sets is the offset it reads (a
    /// mirror there and back would round).
    private var given: (outer: Viewport, inner: Viewport, width: Double)?

    public init(_ inner: any LayoutStrategy) {
        self.inner = inner
    }

    /// The strategy `strategy` is when laid out in `direction`.
    public static func wrapping(_ strategy: any LayoutStrategy, in direction: LayoutDirection) -> any LayoutStrategy {
        let base = (strategy as? MirroredStrategy)?.inner ?? strategy
        return direction == .rtl ? MirroredStrategy(base) : base
    }

    // MARK: Mirroring

    private var width: Double { inner.contentSize.width }

    private func mirror(_ rect: Rect) -> Rect {
        Rect(x: width - rect.maxX, y: rect.minY, width: rect.width, height: rect.height)
    }

    private func mirror(_ attributes: LayoutAttributes) -> LayoutAttributes {
        var mirrored = attributes
        mirrored.frame = mirror(attributes.frame)
        if !attributes.transform.isIdentity {
            let t = attributes.transform
            mirrored.transform = Transform2D(a: t.a, b: -t.b, c: -t.c, d: t.d, tx: -t.tx, ty: t.ty)
        }
        return mirrored
    }

    private func mirror(offset: Point, viewportWidth: Double) -> Point {
        Point(x: width - viewportWidth - offset.x, y: offset.y)
    }

    private func mirror(_ viewport: Viewport) -> Viewport {
        var mirrored = viewport
        mirrored.offset = mirror(offset: viewport.offset, viewportWidth: viewport.size.width)
        mirrored.contentInsets = EdgeInsets(
            top: viewport.contentInsets.top, left: viewport.contentInsets.right, bottom: viewport.contentInsets.bottom,
            right: viewport.contentInsets.left)
        mirrored.safeAreaInsets = swapSides(viewport.safeAreaInsets)
        mirrored.layoutMargins = swapSides(viewport.layoutMargins)
        return mirrored
    }

    private func swapSides(_ insets: EdgeInsets) -> EdgeInsets {
        EdgeInsets(top: insets.top, left: insets.right, bottom: insets.bottom, right: insets.left)
    }

    private func mirror(_ segment: TransitionSegment) -> TransitionSegment {
        var mirrored = segment
        mirrored.from = mirror(segment.from)
        mirrored.to = mirror(segment.to)
        return mirrored
    }

    /// `rect` in the other space (left to right ↔ mirrored): the mirror is its own inverse.
    func crossMirror(_ rect: Rect) -> Rect { mirror(rect) }

    /// `offset` in the other space, for the current viewport width.
    func crossMirror(offset: Point) -> Point { mirror(offset: offset, viewportWidth: inner.viewport.size.width) }

    // MARK: LayoutStrategy

    public var descriptor: StrategyDescriptor { inner.descriptor }
    public var parameters: ResolvedParameters { inner.parameters }
    public var scrollAxis: Axis { inner.scrollAxis }
    public var defaultItemSize: Size { inner.defaultItemSize }
    public var estimatesDefaultSize: Bool { inner.estimatesDefaultSize }
    public var transformOverhang: Double { inner.transformOverhang }
    /// Mirroring moves frames across, not along, a vertical scroll axis, so there the inner
    /// change start holds; along a horizontal one it would turn into an end: the whole window
    /// is diffed.
    public var changeStart: Double? { inner.scrollAxis == .vertical ? inner.changeStart : nil }
    public var contentSize: Size { inner.contentSize }
    public var viewport: Viewport {
        let current = inner.viewport
        if let given, given.inner == current, Self.stands(width, given.width) { return given.outer }
        return mirror(current)
    }

    /// Whether the content width is still the one an offset was given at: equal, or apart by
    /// the rounding of sums that went down and back up (an interactive move takes an item out
    /// and puts it back in: a horizontal flow's width is a sum of columns), which must not move
    /// an offset the client set.
    private static func stands(_ width: Double, _ givenWidth: Double) -> Bool {
        width == givenWidth || abs(width - givenWidth) <= 1e-12 * max(abs(width), abs(givenWidth))
    }

    public func reconfigured(with parameters: ResolvedParameters) throws(LayoutError) -> any LayoutStrategy {
        MirroredStrategy(try inner.reconfigured(with: parameters))
    }

    public func copy(model: CollectionModel) throws(LayoutError) -> any LayoutStrategy {
        let copy = MirroredStrategy(try inner.copy(model: model))
        copy.given = given
        return copy
    }

    /// The offset's mirror depends on the content width the layout produces, so a change of
    /// width (a new viewport width for a vertical flow) is followed by the offset read again.
    public func prepare(model: CollectionModel, viewport: Viewport) {
        let guess = mirror(viewport)
        inner.prepare(model: model, viewport: guess)
        let exact = mirror(viewport)
        if exact != guess { _ = inner.updateViewport(exact, model: model) }
        given = (viewport, inner.viewport, width)
    }

    public func selectionDidChange(_ ids: [String], model: CollectionModel) { inner.selectionDidChange(ids, model: model) }
    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) { inner.sizesDidChange(edits, model: model) }
    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) { inner.dataDidChange(changes, model: model) }

    public func updateViewport(_ viewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let guess = mirror(viewport)
        var invalidation = inner.updateViewport(guess, model: model)
        let exact = mirror(viewport)
        if exact != guess {
            invalidation = inner.updateViewport(exact, model: model)
            if invalidation == .none { invalidation = .offsetDependent }
        }
        given = (viewport, inner.viewport, width)
        return invalidation
    }

    /// Exactly the elements whose mirrored frames meet `rect`: the inner strategy is asked for
    /// a hair more across (a mirrored edge rounds its own way) and the answer is filtered here,
    /// so a query agrees with `Rect.intersects` on the frames it returns, as every strategy's does.
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        let slack = 1e-6 + abs(width) * 1e-12
        return inner.elements(in: mirror(rect).insetBy(dx: -slack, dy: 0), model: model).lazy.map(mirror).filter { $0.frame.intersects(rect) }
    }

    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        inner.attributes(forItem: id, model: model).map(mirror)
    }

    /// Across a vertical scroll axis is x, which mirrors; across a horizontal one is y, which
    /// does not.
    public func cellCrossRange(model: CollectionModel) -> (min: Double, max: Double)? {
        guard let range = inner.cellCrossRange(model: model) else { return nil }
        return inner.scrollAxis == .vertical ? (width - range.max, width - range.min) : range
    }

    /// Asked in reading coordinates (`ReadingSpace`), which are the inner strategy's.
    public func offset(placing id: String, edge: AnchorEdge, at distance: Double, model: CollectionModel) -> Double? {
        inner.offset(placing: id, edge: edge, at: distance, model: model)
    }

    public func attributes(forSupplementary kind: ElementKind, id: String, model: CollectionModel) -> LayoutAttributes? {
        inner.attributes(forSupplementary: kind, id: id, model: model).map(mirror)
    }

    public func targetContentOffset(proposed: Point, velocity: Point) -> Point {
        let viewportWidth = inner.viewport.size.width
        let target = inner.targetContentOffset(
            proposed: mirror(offset: proposed, viewportWidth: viewportWidth), velocity: Point(x: -velocity.x, y: velocity.y))
        return mirror(offset: target, viewportWidth: viewportWidth)
    }

    public func initialAttributes(forAppearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes {
        mirror(inner.initialAttributes(forAppearing: mirror(attributes), model: model))
    }

    public func finalAttributes(forDisappearing attributes: LayoutAttributes, model: CollectionModel) -> LayoutAttributes {
        mirror(inner.finalAttributes(forDisappearing: mirror(attributes), model: model))
    }

    /// The inner strategy plans in its own coordinates, against the strategy before the change
    /// as it is itself (mirrored or not), and the plan is mirrored back. Ends the plan kept
    /// from a move are that move's own attributes, not mirrored twice (which would round), so a
    /// segment still ends exactly where the element is.
    /// Positions do not mirror: the inner strategy's rule holds as it is.
    public func moveTarget(
        proposing proposed: ItemIndexPath, for id: String, at current: ItemIndexPath, model: CollectionModel
    ) -> ItemIndexPath? {
        inner.moveTarget(proposing: proposed, for: id, at: current, model: model)
    }

    public func moveUnit(for id: String, at path: ItemIndexPath, model: CollectionModel) -> Range<Int> {
        inner.moveUnit(for: id, at: path, model: model)
    }

    /// A section offset counts from the section's leading edge in either direction: the
    /// mirrored frames scroll the other way on screen, as a right-to-left carousel does.
    public var supplementaryKinds: [SupplementaryKind] { inner.supplementaryKinds }

    public func sectionScroll(ofSection index: Int, model: CollectionModel) -> SectionScroll? {
        inner.sectionScroll(ofSection: index, model: model)
    }

    public func scrollSection(_ index: Int, to offset: Double, model: CollectionModel) -> Double? {
        let end = inner.scrollSection(index, to: offset, model: model)
        // Mirroring flips x: a horizontal strategy's bands are not the mirror's (as changeStart).
        return inner.scrollAxis == .vertical ? end : nil
    }

    public func targetSectionOffset(section index: Int, proposed: Double, velocity: Double, model: CollectionModel) -> Double {
        inner.targetSectionOffset(section: index, proposed: proposed, velocity: velocity, model: model)
    }

    /// Sizes do not mirror.
    public func measureSupplementary(_ measurements: [(key: ElementKey, size: Size)], tolerance: Double, model: CollectionModel) -> Bool {
        inner.measureSupplementary(measurements, tolerance: tolerance, model: model)
    }

    public var measuredSupplementaries: [(key: ElementKey, size: Size)] { inner.measuredSupplementaries }

    public func planTransition(from previous: any LayoutStrategy, moves: [TransitionSegment], model: CollectionModel) -> Transition {
        let base = (previous as? MirroredStrategy)?.inner ?? previous
        let inward = moves.map(mirror)
        var originals = [LayoutAttributes: LayoutAttributes]()
        for (move, mirrored) in zip(moves, inward) {
            originals[mirrored.from] = move.from
            originals[mirrored.to] = move.to
        }
        var plan = inner.planTransition(from: base, moves: inward, model: model)
        plan.segments = plan.segments.map { segment in
            var outward = segment
            outward.from = originals[segment.from] ?? mirror(segment.from)
            outward.to = originals[segment.to] ?? mirror(segment.to)
            return outward
        }
        return plan
    }
}

/// Where anchors, scroll targets and resting offsets are worked out: in reading coordinates,
/// those of the left-to-right layout a right-to-left one mirrors. So `start` is the leading edge
/// and "the end of the content" its reading end in either direction, and a right-to-left view
/// anchors, clamps and scrolls to an element exactly as the mirror of its left-to-right twin
/// (a short horizontal row rests against the right edge; `end` keeps the distance to the left end).
/// For a left-to-right layout every conversion is the identity.
struct ReadingSpace {
    /// The strategy in reading coordinates: the mirrored one's inner strategy, or itself.
    let strategy: any LayoutStrategy
    private let mirrored: MirroredStrategy?

    init(_ strategy: any LayoutStrategy) {
        mirrored = strategy as? MirroredStrategy
        self.strategy = mirrored?.inner ?? strategy
    }

    /// The viewport in reading coordinates.
    var viewport: Viewport { strategy.viewport }

    /// A frame given on screen, in reading coordinates.
    func reading(_ frame: Rect) -> Rect { mirrored?.crossMirror(frame) ?? frame }

    /// A content offset from screen to reading coordinates and back (the same mirror).
    func reading(offset: Point) -> Point { mirrored?.crossMirror(offset: offset) ?? offset }
    func screen(offset: Point) -> Point { mirrored?.crossMirror(offset: offset) ?? offset }
}
