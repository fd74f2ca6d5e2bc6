import LayoutEngine
import LayoutGeometry
import LayoutProtocol

/// Identifies a client connection to the service (the server numbers them).
public typealias ConnectionID = Int

/// A line for one connection: a reply or an event.
public struct Delivery: Hashable, Sendable {
    public var connection: ConnectionID
    public var line: [UInt8]
}

/// Limits the service enforces, each refusal a `LimitExceeded` error.
public struct ServiceLimits: Hashable, Sendable {
    public var maximumViews: Int
    public var view: ViewLimits
    /// Reported by `daemon.hello`; the server enforces it on lines.
    public var maximumLineLength: Int

    public init(maximumViews: Int = 256, view: ViewLimits = ViewLimits(), maximumLineLength: Int = 1 << 20) {
        self.maximumViews = maximumViews
        self.view = view
        self.maximumLineLength = maximumLineLength
    }
}

/// The daemon's logic without a transport: request lines in, reply and event lines out.
///
/// Named views, every method of `MethodCatalog`, subscriptions (a snapshot first, then
/// `view.invalidated` events with a gapless per-connection `seq`), optimistic concurrency
/// (`ifEpoch`) and counters. A refused request changes nothing. Not thread-safe: the server
/// confines a service to one queue.
public final class LayoutService {
    public let registry: StrategyRegistry
    public let limits: ServiceLimits
    public let serverName: String
    private(set) var views: [String: View] = [:]
    private var subscriptions: [Int: (connection: ConnectionID, view: String)] = [:]
    private var nextSubscription = 1
    private var nextSeq: [ConnectionID: Int] = [:]
    public private(set) var requestsServed = 0
    public private(set) var errorsReturned = 0

    public init(registry: StrategyRegistry = .builtIn, limits: ServiceLimits = ServiceLimits(), serverName: String = "layoutd") {
        self.registry = registry
        self.limits = limits
        self.serverName = serverName
    }

    // MARK: Requests

    /// Handles one request line from `connection`.
    ///
    /// - Returns: the reply (unless the request was a notification) followed by the events
    ///   the request caused, in the order they must be written.
    public func handle(line: some Collection<UInt8>, from connection: ConnectionID) -> [Delivery] {
        let request: Request
        do {
            request = try Request.decode(line)
        } catch {
            errorsReturned += 1
            return [Delivery(connection: connection, line: Envelope.error(id: error.id, error.error))]
        }
        return handle(request, from: connection)
    }

    public func handle(_ request: Request, from connection: ConnectionID) -> [Delivery] {
        requestsServed += 1
        var events = [Delivery]()
        let reply: [UInt8]?
        do {
            let result = try dispatch(request, connection: connection, events: &events)
            reply = request.id.map { Envelope.result(id: $0, result) }
        } catch {
            errorsReturned += 1
            events = []
            reply = request.id.map { Envelope.error(id: $0, error) }
        }
        var deliveries = reply.map { [Delivery(connection: connection, line: $0)] } ?? []
        deliveries += events
        return deliveries
    }

    /// Forgets a connection's subscriptions and sequence numbers.
    public func disconnect(_ connection: ConnectionID) {
        subscriptions = subscriptions.filter { $0.value.connection != connection }
        nextSeq[connection] = nil
    }

    /// Every view's name, sorted.
    public var viewNames: [String] { views.keys.sorted() }

    // MARK: Dispatch

    private func dispatch(_ request: Request, connection: ConnectionID, events: inout [Delivery]) throws(WireError) -> JSONValue {
        var params = ParamsReader(request.params)
        let result: JSONValue
        switch request.method {
        case "daemon.hello": result = try hello(&params)
        case "daemon.describe": result = describe()
        case "daemon.status": result = status()
        case "daemon.sync": result = .object([:])
        case "strategy.list": result = .object(["strategies": .array(registry.descriptors.map(WireMapping.descriptor))])
        case "view.create": result = try create(&params)
        case "view.delete": result = try delete(&params, events: &events)
        case "view.list": result = list()
        case "view.get":
            let name = try params.string("view")
            result = WireMapping.snapshot(try view(name), name: name)
        case "view.query":
            let name = try params.string("view")
            let rect = try params.rect("rect")
            guard rect.isFinite, rect.width >= 0, rect.height >= 0 else { throw .invalidParams("params.rect", "must be finite with a non-negative size") }
            let elements = try view(name).layout.elements(in: rect).sorted { $0.key < $1.key }
            result = .object(["elements": .array(elements.map(WireMapping.attributes))])
        case "view.item":
            let name = try params.string("view")
            let id = try params.string("id")
            guard let attributes = try view(name).layout.attributes(forItem: id) else {
                throw LayoutError.itemNotFound(id).wire
            }
            result = .object(["attributes": WireMapping.attributes(attributes)])
        case "view.subscribe": result = try subscribe(&params, connection: connection)
        case "view.unsubscribe":
            let id = try params.integer("subscription")
            try params.finish()
            guard let subscription = subscriptions[id], subscription.connection == connection else {
                throw .invalidParams("params.subscription", "is not a subscription of this connection")
            }
            subscriptions[id] = nil
            result = .object([:])
        case _ where Self.mutations.contains(request.method):
            result = try mutate(request.method, &params, connection: connection, events: &events)
        default:
            throw .methodNotFound(request.method)
        }
        // Methods with effects finish reading before they act; this catches the rest.
        try params.finish()
        return result
    }

    /// The methods that change a view and notify its subscribers.
    static let mutations: Set<String> = [
        "view.setData", "view.update", "view.measure", "view.select", "view.scroll", "view.scrollEnd", "view.resize",
        "view.configure", "view.setStrategy", "view.setWindowMargin",
    ]

    private func view(_ name: String) throws(WireError) -> View {
        guard let view = views[name] else {
            throw WireError(name: "ViewNotFound", message: "no view named '\(name)'", data: ["view": .string(name)])
        }
        return view
    }

    // MARK: Daemon

    private func hello(_ params: inout ParamsReader) throws(WireError) -> JSONValue {
        var offered = MethodCatalog.protocolVersions
        if params.has("protocol") {
            guard let list = params.optionalValue("protocol")?.arrayValue, list.allSatisfy({ $0.integerValue != nil }) else {
                throw .invalidParams("params.protocol", "must be an array of integers")
            }
            offered = list.compactMap(\.integerValue)
        }
        guard let version = offered.filter(MethodCatalog.protocolVersions.contains).max() else {
            throw WireError(
                name: "UnsupportedVersion", message: "this daemon speaks protocol \(MethodCatalog.protocolVersions)",
                data: ["supported": .array(MethodCatalog.protocolVersions.map { .number(Double($0)) })])
        }
        return .object([
            "protocol": .number(Double(version)), "server": .string(serverName),
            "limits": .object([
                "maximumLineLength": .number(Double(limits.maximumLineLength)),
                "maximumViews": .number(Double(limits.maximumViews)),
                "maximumItemsPerView": .number(Double(limits.view.maximumItems)),
                "maximumBatchSize": .number(Double(limits.view.maximumBatchSize)),
            ]),
        ])
    }

    private func describe() -> JSONValue {
        .object([
            "protocol": .array(MethodCatalog.protocolVersions.map { .number(Double($0)) }),
            "methods": .array(MethodCatalog.methods.map { method in
                .object([
                    "name": .string(method.name), "summary": .string(method.summary),
                    "params": .array(method.parameters.map { parameter in
                        .object([
                            "name": .string(parameter.name), "type": .string(parameter.type),
                            "required": .bool(parameter.required), "summary": .string(parameter.summary),
                        ])
                    }),
                    "result": .string(method.result),
                ])
            }),
            "errors": .array(ErrorCatalog.entries.map { entry in
                .object(["name": .string(entry.name), "code": .number(Double(entry.code)), "meaning": .string(entry.meaning)])
            }),
            "events": .array([.string("view.invalidated"), .string("view.deleted")]),
            "strategies": .array(registry.descriptors.map(WireMapping.descriptor)),
        ])
    }

    private func status() -> JSONValue {
        .object([
            "views": .number(Double(views.count)), "items": .number(Double(views.values.reduce(0) { $0 + $1.model.numberOfItems })),
            "subscriptions": .number(Double(subscriptions.count)),
            "requests": .number(Double(requestsServed)), "errors": .number(Double(errorsReturned)),
        ])
    }

    // MARK: Views

    private func create(_ params: inout ParamsReader) throws(WireError) -> JSONValue {
        let name = try params.string("view")
        guard !name.isEmpty, name.utf8.count <= 256 else { throw .invalidParams("params.view", "must be 1 to 256 bytes") }
        guard views[name] == nil else {
            throw WireError(name: "ViewExists", message: "a view named '\(name)' exists", data: ["view": .string(name)])
        }
        guard views.count < limits.maximumViews else {
            throw LayoutError.limitExceeded(limit: "views", maximum: limits.maximumViews).wire
        }
        let strategy = try params.string("strategy")
        let parameters = try WireMapping.parameters(try params.optionalObject("params"))
        var viewportReader = try params.object("viewport")
        let viewport = Viewport(
            size: Size(width: try viewportReader.number("width"), height: try viewportReader.number("height")),
            offset: try viewportReader.optionalPoint("offset") ?? .zero,
            contentInsets: try viewportReader.optionalInsets("contentInsets") ?? .zero)
        try viewportReader.finish()
        let margin = try params.optionalNumber("windowMargin") ?? 0
        var sections = [SectionSpec]()
        if params.has("sections") { sections = try WireModel.sections(&params, "sections").map(WireMapping.section) }
        try params.finish()
        do {
            let view = try View(
                strategy: strategy, parameters: parameters, sections: sections, viewport: viewport, windowMargin: margin,
                limits: limits.view, registry: registry)
            views[name] = view
            return WireMapping.snapshot(view, name: name)
        } catch {
            throw error.wire
        }
    }

    private func delete(_ params: inout ParamsReader, events: inout [Delivery]) throws(WireError) -> JSONValue {
        let name = try params.string("view")
        try params.finish()
        _ = try view(name)
        views[name] = nil
        for (id, subscription) in subscriptions.sorted(by: { $0.key < $1.key }) where subscription.view == name {
            subscriptions[id] = nil
            events.append(event("view.deleted", subscription: id, connection: subscription.connection, params: .object(["view": .string(name)])))
        }
        return .object([:])
    }

    private func list() -> JSONValue {
        .object([
            "views": .array(viewNames.map { name in
                let view = views[name]!
                return .object([
                    "view": .string(name), "strategy": .string(view.strategyName), "epoch": .number(Double(view.epoch)),
                    "itemCount": .number(Double(view.model.numberOfItems)),
                ])
            })
        ])
    }

    private func subscribe(_ params: inout ParamsReader, connection: ConnectionID) throws(WireError) -> JSONValue {
        let name = try params.string("view")
        try params.finish()
        let view = try view(name)
        let id = nextSubscription
        nextSubscription += 1
        subscriptions[id] = (connection, name)
        return .object(["subscription": .number(Double(id)), "snapshot": WireMapping.snapshot(view, name: name)])
    }

    /// Every mutating `view.*` method: decode, apply through the view (which validates first),
    /// then tell the view's subscribers.
    private func mutate(
        _ method: String, _ params: inout ParamsReader, connection: ConnectionID, events: inout [Delivery]
    ) throws(WireError) -> JSONValue {
        let name = try params.string("view")
        let animated = try params.optionalBool("animated") ?? false
        let ifEpoch = try params.optionalInteger("ifEpoch")
        let view = try view(name)
        // Decode everything first: a request with a bad or unknown field must change nothing.
        let action: () throws(LayoutError) -> Invalidation
        switch method {
        case "view.setData":
            let sections = try WireModel.sections(&params, "sections").map(WireMapping.section)
            action = { () throws(LayoutError) in try view.replaceData(sections, animated: animated, ifEpoch: ifEpoch) }
        case "view.update":
            let updates = try WireModel.updates(&params, "updates").map(WireMapping.update)
            action = { () throws(LayoutError) in try view.performBatch(updates, animated: animated, ifEpoch: ifEpoch) }
        case "view.measure":
            var sizes = [(id: String, size: Size)]()
            for var entry in try params.objects("sizes") {
                sizes.append((try entry.string("id"), try entry.size("size")))
                try entry.finish()
            }
            action = { () throws(LayoutError) in try view.measure(sizes, animated: animated, ifEpoch: ifEpoch) }
        case "view.select":
            let ids = try params.stringArray("ids")
            let modeName = try params.optionalString("mode") ?? "set"
            guard let mode = SelectionMode(rawValue: modeName) else {
                throw .invalidParams("params.mode", "must be set, add, remove or toggle")
            }
            action = { () throws(LayoutError) in try view.select(ids, mode: mode, animated: animated, ifEpoch: ifEpoch) }
        case "view.scroll":
            let offset = try params.point("offset")
            action = { () throws(LayoutError) in try view.scroll(to: offset, ifEpoch: ifEpoch) }
        case "view.scrollEnd":
            let proposed = try params.point("proposed")
            let velocity = try params.optionalPoint("velocity") ?? .zero
            action = { () throws(LayoutError) in try view.scrollEnd(proposed: proposed, velocity: velocity, ifEpoch: ifEpoch) }
        case "view.resize":
            let size = try params.size("size")
            action = { () throws(LayoutError) in try view.resize(to: size, animated: animated, ifEpoch: ifEpoch) }
        case "view.configure":
            let changes = try WireMapping.parameters(try params.object("params"))
            action = { () throws(LayoutError) in try view.configure(changes, animated: animated, ifEpoch: ifEpoch) }
        case "view.setStrategy":
            let strategy = try params.string("strategy")
            let parameters = try WireMapping.parameters(try params.optionalObject("params"))
            action = { () throws(LayoutError) in
                try view.switchStrategy(to: strategy, parameters: parameters, animated: animated, ifEpoch: ifEpoch)
            }
        case "view.setWindowMargin":
            let margin = try params.number("margin")
            action = { () throws(LayoutError) in try view.setWindowMargin(margin, ifEpoch: ifEpoch) }
        default:
            throw .methodNotFound(method)
        }
        try params.finish()
        let invalidation: Invalidation
        do {
            invalidation = try action()
        } catch {
            throw error.wire
        }
        let result = WireMapping.invalidation(invalidation, view: name)
        for (id, subscription) in subscriptions.sorted(by: { $0.key < $1.key }) where subscription.view == name {
            events.append(event("view.invalidated", subscription: id, connection: subscription.connection, params: result))
        }
        return result
    }

    private func event(_ name: String, subscription: Int, connection: ConnectionID, params: JSONValue) -> Delivery {
        let seq = nextSeq[connection, default: 1]
        nextSeq[connection] = seq + 1
        return Delivery(connection: connection, line: Envelope.event(name, subscription: subscription, seq: seq, params: params))
    }
}
