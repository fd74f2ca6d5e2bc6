import LayoutGeometry

/// Limits a view enforces, each refusal a `limitExceeded` error that changes nothing.
public struct ViewLimits: Hashable, Sendable {
    public var maximumItems: Int
    /// Items and sections one batch, measurement or selection request may name.
    public var maximumBatchSize: Int

    public init(maximumItems: Int = 2_000_000, maximumBatchSize: Int = 100_000) {
        self.maximumItems = maximumItems
        self.maximumBatchSize = maximumBatchSize
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
    /// Where the view was created from; `switchStrategy` looks names up here unless given another.
    public let registry: StrategyRegistry

    // MARK: Lifecycle

    /// - Throws: `unknownStrategy`, `unknownParameter`, `invalidParameter`, `invalidViewport`,
    ///   model errors, `limitExceeded`.
    public init(
        strategy name: String, parameters: [String: ParameterValue] = [:], sections: [SectionSpec] = [],
        viewport: Viewport, windowMargin: Double = 0, limits: ViewLimits = ViewLimits(),
        registry: StrategyRegistry = .builtIn
    ) throws(LayoutError) {
        try Self.validate(windowMargin: windowMargin)
        let model = try CollectionModel(sections: sections)
        guard model.numberOfItems <= limits.maximumItems else {
            throw .limitExceeded(limit: "items", maximum: limits.maximumItems)
        }
        layout = try Layout(strategy: registry.makeStrategy(named: name, parameters: parameters), model: model, viewport: viewport)
        strategyName = name
        self.windowMargin = windowMargin
        self.limits = limits
        self.registry = registry
    }

    // MARK: Queries

    public var model: CollectionModel { layout.model }

    public var viewport: Viewport { layout.viewport }

    public var parameters: ResolvedParameters { layout.strategy.parameters }

    /// The region a client keeps elements for: the viewport grown by the window margin along
    /// the scroll axis.
    public var window: Rect { viewport.window(margin: windowMargin, axis: layout.strategy.scrollAxis) }

    /// Every element in the window, ordered by key: what a client starts its mirror from.
    public func snapshot() -> [LayoutAttributes] {
        layout.elements(in: window).sorted { $0.key < $1.key }
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
