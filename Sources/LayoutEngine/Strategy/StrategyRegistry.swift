/// Maps strategy names to factories and published parameter descriptions, remembering where
/// each came from, and the plugins that were refused.
///
/// Built-in strategies register at start (`StrategyRegistry.builtIn`); a native strategy written
/// later registers the same way, with `register(_:)`, and a plugin loader with
/// `register(descriptor:origin:factory:)`.
public struct StrategyRegistry: Sendable {
    /// Builds a strategy from resolved parameters, or refuses them (`invalidParameter`).
    public typealias Factory = @Sendable (ResolvedParameters) throws(LayoutError) -> any LayoutStrategy

    /// A registered strategy as `strategy.list` publishes it.
    public struct Entry: Sendable {
        public var descriptor: StrategyDescriptor
        public var origin: StrategyOrigin
        var make: Factory
    }

    private var entries: [String: Entry] = [:]

    /// Plugins that were refused, in the order they were tried.
    public private(set) var refusals: [StrategyRefusal] = []

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
            try registry.register(CompositionalLayout.self)
        } catch {
            preconditionFailure("\(error)")
        }
        return registry
    }

    // MARK: Registration

    /// - Throws: `duplicateStrategy` when the name is taken.
    public mutating func register<S: NativeStrategy>(_ type: S.Type, origin: StrategyOrigin = .builtIn) throws(LayoutError) {
        try register(descriptor: S.descriptor, origin: origin) { (parameters) throws(LayoutError) in
            try S.validate(parameters)
            return S(parameters: parameters)
        }
    }

    /// Registers a strategy whose type is not known statically (plugins).
    ///
    /// - Throws: `duplicateStrategy` when the name is taken.
    public mutating func register(
        descriptor: StrategyDescriptor, origin: StrategyOrigin, factory: @escaping Factory
    ) throws(LayoutError) {
        guard entries[descriptor.name] == nil else { throw .duplicateStrategy(descriptor.name) }
        entries[descriptor.name] = Entry(descriptor: descriptor, origin: origin, make: factory)
    }

    /// Records a plugin that was not registered, and why.
    public mutating func recordRefusal(_ refusal: StrategyRefusal) {
        refusals.append(refusal)
    }

    /// Forgets the refusals (a reload tries those files again).
    public mutating func clearRefusals() {
        refusals.removeAll()
    }

    // MARK: Lookup

    /// Every registered strategy, by name.
    public var descriptors: [StrategyDescriptor] { registered.map(\.descriptor) }

    /// Every registered strategy with its origin, by name.
    public var registered: [Entry] {
        entries.values.sorted { $0.descriptor.name < $1.descriptor.name }
    }

    public func descriptor(named name: String) -> StrategyDescriptor? { entries[name]?.descriptor }

    public func origin(of name: String) -> StrategyOrigin? { entries[name]?.origin }

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

/// Where a registered strategy came from.
public enum StrategyOrigin: Hashable, Sendable, CustomStringConvertible {
    /// Compiled into layoutd.
    case builtIn
    /// Loaded from the plugin at this path.
    case plugin(path: String)

    /// `built-in`, or the plugin's path: how `strategy.list` and the log name it.
    public var description: String {
        switch self {
        case .builtIn: "built-in"
        case .plugin(let path): path
        }
    }
}

/// A plugin file that registered nothing (or not everything), and the reason.
public struct StrategyRefusal: Error, Hashable, Sendable {
    /// The strategy's name when the plugin got far enough to say it; else the file's name
    /// without directory and extension.
    public var name: String
    public var path: String
    public var reason: String

    public init(name: String, path: String, reason: String) {
        self.name = name
        self.path = path
        self.reason = reason
    }
}
