import LayoutGeometry

/// Limits a view enforces, each refusal a `limitExceeded` error that changes nothing.
public struct ViewLimits: Hashable, Sendable {
    public var maximumItems: Int
    /// Items and sections one batch, measurement or selection request may name.
    public var maximumBatchSize: Int
    /// Elements a window holds (see `View.windowContents()`): the bound on what a snapshot or
    /// an invalidation carries, whatever the viewport and margin. Not a refusal: a larger
    /// window is cut to the elements nearest the viewport.
    public var maximumWindowElements: Int

    public init(maximumItems: Int = 2_000_000, maximumBatchSize: Int = 50_000, maximumWindowElements: Int = 20_000) {
        self.maximumItems = maximumItems
        self.maximumBatchSize = maximumBatchSize
        self.maximumWindowElements = maximumWindowElements
    }
}

/// A layout as a client sees it over time: model, viewport, strategy (name and parameters),
/// window margin and epoch. Every mutation is validated whole before anything changes and
/// returns an `Invalidation`: exactly what changed in the client's window.
///
/// Data mutations keep the first visible item where it is on screen, so a change above the
/// window (an insertion, a measured size, an expanding item) never makes the content jump.
public final class View {
    public internal(set) var epoch = 0
    public let layout: Layout
    public internal(set) var strategyName: String
    public internal(set) var windowMargin: Double
    public let limits: ViewLimits
    /// What mutations keep still on screen unless a request names another (`setAnchor`).
    public internal(set) var anchorPolicy: AnchorPolicy
    /// Set by `scrollTo`: the target's edge and where it belongs, the anchor of every later
    /// mutation (unless one names its own) until the client scrolls by itself.
    public internal(set) var scrollTarget: AnchorPolicy?
    /// Right to left mirrors every strategy's frames across the content width
    /// (`MirroredStrategy`).
    public internal(set) var layoutDirection: LayoutDirection
    /// The window the last mutation left, while the layout has not changed since (see
    /// `View+Delta.swift`): the "before" of the next delta, so it is not queried again.
    var lastWindow: WindowRecord?
    /// The gesture in progress (`View+Transition.swift`): an interactive transition, or none.
    public internal(set) var gesture: Gesture = .idle
    /// An interactive move in progress, if any (`View+Move.swift`).
    public internal(set) var moveState = MoveState.idle

    // MARK: Lifecycle

    /// - Throws: `unknownStrategy`, `unknownParameter`, `invalidParameter`, `invalidViewport`,
    ///   model errors, `limitExceeded`.
    /// - Parameter registry: where `name` is looked up. The view does not keep it: the owner of
    ///   the registry (the daemon's service, which a reload may give new plugins) passes it again
    ///   to `switchStrategy`.
    public convenience init(
        strategy name: String, parameters: [String: ParameterValue] = [:], sections: [SectionSpec] = [],
        viewport: Viewport, windowMargin: Double = 0, limits: ViewLimits = ViewLimits(),
        registry: StrategyRegistry = .builtIn, anchor: AnchorPolicy = .firstVisible, layoutDirection: LayoutDirection = .ltr
    ) throws(LayoutError) {
        try self.init(
            model: try CollectionModel(sections: sections), strategy: name, parameters: parameters, viewport: viewport,
            windowMargin: windowMargin, limits: limits, registry: registry, layoutDirection: layoutDirection)
        // A horizontal view that reads right to left starts at its right end, where its first
        // items are: the offset given counts from there, as it would left to right from the left.
        if layoutDirection == .rtl, layout.strategy.scrollAxis == .horizontal {
            var start = layout.viewport
            start.offset = ReadingSpace(layout.strategy).screen(offset: viewport.offset)
            try layout.setViewport(start)
        }
        anchorPolicy = anchor
        try validate(anchor)
    }

    /// A view of `model` with `viewport` exactly as given (in screen coordinates), anchored
    /// at the first visible item: what the public initializers start from.
    init(
        model: CollectionModel, strategy name: String, parameters: [String: ParameterValue], viewport: Viewport,
        windowMargin: Double, limits: ViewLimits, registry: StrategyRegistry, layoutDirection: LayoutDirection
    ) throws(LayoutError) {
        try Self.validate(windowMargin: windowMargin)
        guard model.numberOfItems <= limits.maximumItems else {
            throw .limitExceeded(limit: "items", maximum: limits.maximumItems)
        }
        let strategy = MirroredStrategy.wrapping(try registry.makeStrategy(named: name, parameters: parameters), in: layoutDirection)
        layout = try Layout(strategy: strategy, model: model, viewport: viewport)
        self.layoutDirection = layoutDirection
        strategyName = name
        self.windowMargin = windowMargin
        self.limits = limits
        anchorPolicy = .firstVisible
    }

    /// A view in the same state (epoch, data, selection, viewport, strategy, window margin)
    /// that changes independently: a dry run applies its mutation to a copy, so the result is
    /// exactly the real one and this view is untouched.
    ///
    /// - Complexity: see `Layout.copy()`.
    public func copy() throws(LayoutError) -> View {
        try View(copying: self)
    }

    private init(copying other: View) throws(LayoutError) {
        epoch = other.epoch
        layout = try other.layout.copy()
        strategyName = other.strategyName
        windowMargin = other.windowMargin
        limits = other.limits
        anchorPolicy = other.anchorPolicy
        scrollTarget = other.scrollTarget
        layoutDirection = other.layoutDirection
        lastWindow = other.lastWindow
        switch other.gesture {
        case .idle: gesture = .idle
        case .transition(var transition):
            transition.target = try transition.target.copy(model: other.layout.model)
            gesture = .transition(transition)
        }
        moveState = other.moveState
    }

    // MARK: Queries

    public var model: CollectionModel { layout.model }

    public var viewport: Viewport { layout.viewport }

    public var parameters: ResolvedParameters { layout.strategy.parameters }

    /// The region a client keeps elements for: the viewport grown by the window margin along
    /// the scroll axis.
    public var window: Rect { viewport.window(margin: windowMargin, axis: layout.strategy.scrollAxis) }

    /// The elements in the window, ordered by key: what a client starts its mirror from. At
    /// most `limits.maximumWindowElements`, the ones nearest the viewport when the window rect
    /// holds more (see `Layout.windowContents(in:viewport:maximum:)`).
    ///
    /// - Complexity: O(log n + k log k) for the k elements in the window rect.
    public func windowContents() -> WindowContents {
        layout.windowContents(in: window, viewport: viewport.bounds, maximum: limits.maximumWindowElements)
    }

    /// The elements of `windowContents()`.
    public func snapshot() -> [LayoutAttributes] { windowContents().elements }

    /// An anchor that names an element must name one the view holds; an offset must be finite
    /// and within `LayoutBounds`.
    func validate(_ policy: AnchorPolicy) throws(LayoutError) {
        guard case .element(let key, _, let offset) = policy else { return }
        if let offset, !(offset.isFinite && LayoutBounds.contains(offset)) {
            throw .invalidParameter(parameter: "anchor.offset", reason: "must be finite and at most \(LayoutBounds.maximumText) in magnitude")
        }
        _ = try element(key)
    }

    /// The attributes of element `key`, or the error that names what is missing: the item, the
    /// section, or the section's header or footer.
    func element(_ key: ElementKey) throws(LayoutError) -> LayoutAttributes {
        if let attributes = layout.attributes(for: key) { return attributes }
        if key.kind == .cell { throw .itemNotFound(key.id) }
        // Other kinds belong to a section (headers, footers, backgrounds) or to an item (badges).
        if model.sectionIndex(of: key.id) == nil && !model.contains(item: key.id) { throw .sectionNotFound(key.id) }
        throw .elementNotFound(kind: key.kind.rawValue, id: key.id)
    }

    static func validate(windowMargin: Double) throws(LayoutError) {
        guard windowMargin.isFinite, windowMargin >= 0 else {
            throw .invalidParameter(parameter: "windowMargin", reason: "must be finite and not negative")
        }
        guard LayoutBounds.contains(windowMargin) else {
            throw .invalidParameter(parameter: "windowMargin", reason: "must be at most \(LayoutBounds.maximumText)")
        }
    }
}
