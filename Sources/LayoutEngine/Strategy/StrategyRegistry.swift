/// Maps strategy names to factories and published parameter descriptions.
///
/// Built-in strategies register at start (`StrategyRegistry.builtIn`); a strategy written later
/// registers the same way, with `register(_:)`.
public struct StrategyRegistry: Sendable {
    /// Builds a strategy from resolved parameters, or refuses them (`invalidParameter`).
    public typealias Factory = @Sendable (ResolvedParameters) throws(LayoutError) -> any LayoutStrategy

    private struct Entry: Sendable {
        var descriptor: StrategyDescriptor
        var make: Factory
    }

    private var entries: [String: Entry] = [:]

    public init() {}

    /// A registry holding every strategy that ships with layoutd.
    public static var builtIn: StrategyRegistry {
        var registry = StrategyRegistry()
        // Built-in names are distinct by construction; a clash is a programming error.
        do {
            try registry.register(FlowLayout.self)
            try registry.register(CollapsibleLayout.self)
            try registry.register(UltravisualLayout.self)
            try registry.register(DisplayLayout.self)
        } catch {
            preconditionFailure("\(error)")
        }
        return registry
    }

    // MARK: Registration

    /// - Throws: `duplicateStrategy` when the name is taken.
    public mutating func register<S: LayoutStrategy>(_ type: S.Type) throws(LayoutError) {
        try register(descriptor: S.descriptor) { (parameters) throws(LayoutError) in
            try S.validate(parameters)
            return S(parameters: parameters)
        }
    }

    /// Registers a strategy whose type is not known statically (plugins).
    public mutating func register(descriptor: StrategyDescriptor, factory: @escaping Factory) throws(LayoutError) {
        guard entries[descriptor.name] == nil else { throw .duplicateStrategy(descriptor.name) }
        entries[descriptor.name] = Entry(descriptor: descriptor, make: factory)
    }

    // MARK: Lookup

    /// Every registered strategy, by name.
    public var descriptors: [StrategyDescriptor] {
        entries.values.map(\.descriptor).sorted { $0.name < $1.name }
    }

    public func descriptor(named name: String) -> StrategyDescriptor? { entries[name]?.descriptor }

    /// Validates `parameters` against the strategy's description and builds an instance.
    ///
    /// - Throws: `unknownStrategy`, `unknownParameter` or `invalidParameter`.
    public func makeStrategy(
        named name: String, parameters: [String: ParameterValue] = [:]
    ) throws(LayoutError) -> any LayoutStrategy {
        guard let entry = entries[name] else { throw .unknownStrategy(name) }
        return try entry.make(try entry.descriptor.resolve(parameters))
    }
}
