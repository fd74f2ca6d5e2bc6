import LayoutEngine
import LayoutProtocol

/// Where the I/O core may carry out a request.
///
/// The rule: `inline` when the request's cost is bounded whatever the view holds (lookups of
/// O(log n), or work proportional to the window, which holds at most `maximumWindowElements`
/// elements); `offload` when it may touch every item or more (new data, a batch, a full
/// layout for a new size, strategy, parameters or window margin, a daemon-wide scan) or is not
/// the service's to bound (reading the configuration). `ViewExecutor` guards the inline class
/// further: a view whose inline work ran long runs it on the pool until it is quick again,
/// and a view laid out by a plugin never runs on an I/O thread.
public enum ExecutionClass: String, Sendable {
    case inline
    case offload
}

/// How a request completes: with its encoded result or its refusal, and the events it caused.
/// Called exactly once, on whatever thread finished the work.
typealias Finish = @Sendable (Result<[UInt8], WireError>, [Event]) -> Void

/// A view method's result and the events it caused for subscribers.
typealias ViewReply = (result: [UInt8], events: [Event])

/// What a view method's handler is given besides its params.
struct ViewCall {
    let connection: ConnectionID
    /// The daemon's strategies now, which a reload may have grown since the view was created
    /// (`view.setStrategy` reads it; no other method takes the lock).
    let registry: () -> StrategyRegistry
    /// Takes one of the connection's subscription slots and numbers it (`view.subscribe`).
    let newSubscription: () throws(WireError) -> Int
}

/// Who carries out a method, and so what its handler is given.
enum MethodHandler: Sendable {
    /// Daemon-wide, answered on the submitting thread: the encoded result.
    case daemon(@Sendable (LayoutService, inout ParamsReader) throws(WireError) -> [UInt8])
    /// One view's read or mutation. The service reads `view` and finds the view first (so a
    /// missing view is the error whatever else is wrong), then runs the handler on the view's
    /// executor (`ViewHost.perform`).
    case view(@Sendable (ViewHost, inout ParamsReader, ViewCall) throws(WireError) -> ViewReply)
    /// Completes through `Finish`, at once or later on another thread: staged uploads, the
    /// barrier, `view.delete` and `view.unsubscribe`, which reach views in their own ways.
    case deferred(@Sendable (LayoutService, inout ParamsReader, ConnectionID, @escaping Finish) throws(WireError) -> Void)
}

/// One method as the service carries it out: its name, where it runs and its handler. What it
/// is for clients (summary, parameters, whether it mutates) is `MethodCatalog`'s, in
/// LayoutProtocol; its schemas are `protocol/schemas/methods/<name>.params.json` and
/// `.result.json` (`SchemaCatalog`). The table and the catalog hold the same methods in the same
/// order (`MethodTableTests`).
public struct ServiceMethod: Sendable {
    public let name: String
    /// For a view method, where the executor runs it; for any other, where `submit` may run:
    /// an `offload` method's `submit` is called off the I/O threads by the transport.
    public let execution: ExecutionClass
    let handler: MethodHandler

    /// Whether `submit` returns at once on the caller's thread for this method: it runs
    /// inline, or it is a view's method, which `submit` only hands to the view's executor.
    public var submitsQuickly: Bool {
        if case .view = handler { return true }
        return execution == .inline
    }

    /// Whether the method works on an existing view that the service finds before anything else.
    public var needsView: Bool {
        if case .view = handler { return true }
        return false
    }
}

/// Every method of the protocol, once, in `MethodCatalog`'s order: what routing, the I/O
/// core's placement and the consistency tests read. A new method is an entry here, its
/// handler, its schemas and its `MethodCatalog` entry (with its docs in protocol/).
public enum Methods {
    public static let all: [ServiceMethod] = [
        daemon("daemon.hello", .inline) { service, params throws(WireError) in try service.hello(&params) },
        daemon("daemon.describe", .offload) { service, _ in service.describe() },
        daemon("daemon.status", .inline) { service, _ in service.status() },
        deferred("daemon.sync", .inline) { service, params, _, finish throws(WireError) in
            try params.finish()
            service.barrier { finish(.success(emptyObject), []) }
        },
        encodedDaemon("daemon.reload", .offload) { service, params throws(WireError) in
            // Checked before the configuration is read: a refused request changes nothing.
            try params.finish()
            return JSONWriter.encode(try service.reload())
        },
        daemon("strategy.list", .inline) { service, _ in .object(["strategies": WireMapping.strategies(service.registry)]) },
        encodedDaemon("view.create", .offload) { service, params throws(WireError) in try service.create(&params) },
        // Inline: it takes the name and hands the rest to the view's executor.
        deferred("view.delete", .inline) { service, params, _, finish throws(WireError) in try service.delete(&params, finish: finish) },
        daemon("view.list", .inline) { service, _ in service.list() },
        view("view.get", .inline) { host, params, _ throws(WireError) in
            try params.finish()
            return (host.snapshot(), [])
        },
        view("view.setData", .offload) { host, params, _ throws(WireError) in try host.setData(&params) },
        view("view.update", .offload) { host, params, _ throws(WireError) in try host.mutate(.update(UpdateParams(&params))) },
        view("view.measure", .inline) { host, params, _ throws(WireError) in try host.mutate(.measure(MeasureParams(&params))) },
        view("view.select", .inline) { host, params, _ throws(WireError) in try host.mutate(.select(SelectParams(&params))) },
        view("view.scroll", .inline) { host, params, _ throws(WireError) in try host.mutate(.scroll(ScrollParams(&params))) },
        view("view.scrollEnd", .inline) { host, params, _ throws(WireError) in try host.scrollEnd(&params) },
        // Inline: one section's offset, then the window delta from its start.
        view("view.scrollSection", .inline) { host, params, _ throws(WireError) in try host.scrollSection(&params) },
        view("view.scrollSectionEnd", .inline) { host, params, _ throws(WireError) in try host.scrollSectionEnd(&params) },
        view("view.scrollTo", .inline) { host, params, _ throws(WireError) in try host.scrollTo(&params) },
        view("view.resize", .offload) { host, params, _ throws(WireError) in try host.resize(&params) },
        view("view.configure", .offload) { host, params, _ throws(WireError) in try host.configure(&params) },
        view("view.setStrategy", .offload) { host, params, call throws(WireError) in try host.setStrategy(&params, registry: call.registry) },
        view("view.setWindowMargin", .offload) { host, params, _ throws(WireError) in try host.setWindowMargin(&params) },
        view("view.setAnchor", .inline) { host, params, _ throws(WireError) in try host.setAnchor(&params) },
        view("view.setLayoutDirection", .offload) { host, params, _ throws(WireError) in try host.setLayoutDirection(&params) },
        // Inline: O(log n + k) for the slots near the finger and the window, plus one model move.
        view("view.beginMove", .inline) { host, params, _ throws(WireError) in try host.beginMove(&params) },
        view("view.updateMove", .inline) { host, params, _ throws(WireError) in try host.updateMove(&params) },
        view("view.endMove", .inline) { host, params, _ throws(WireError) in try host.endMove(&params) },
        // A full prepare of the target: offloaded; scrubbing and ending cost the window.
        view("view.beginTransition", .offload) { host, params, call throws(WireError) in
            try host.beginTransition(&params, registry: call.registry)
        },
        view("view.updateTransition", .inline) { host, params, _ throws(WireError) in try host.updateTransition(&params) },
        view("view.endTransition", .inline) { host, params, _ throws(WireError) in try host.endTransition(&params) },
        deferred("view.stage.begin", .offload) { service, params, connection, finish throws(WireError) in
            finish(.success(try service.stageBegin(&params, connection: connection)), [])
        },
        deferred("view.stage.append", .offload) { service, params, connection, finish throws(WireError) in
            finish(.success(try service.stageAppend(&params, connection: connection)), [])
        },
        deferred("view.stage.commit", .offload) { service, params, connection, finish throws(WireError) in
            try service.stageCommit(&params, connection: connection, finish: finish)
        },
        deferred("view.stage.abort", .offload) { service, params, connection, finish throws(WireError) in
            try service.stageAbort(&params, connection: connection)
            finish(.success(emptyObject), [])
        },
        // Offloaded: a part writes up to maximumBatchSize items.
        view("view.export", .offload) { host, params, _ throws(WireError) in (try host.export(&params), []) },
        deferred("view.import", .offload) { service, params, connection, finish throws(WireError) in
            finish(.success(try service.importView(&params, connection: connection)), [])
        },
        view("view.query", .inline) { host, params, _ throws(WireError) in (try host.query(&params), []) },
        view("view.item", .inline) { host, params, _ throws(WireError) in (try host.item(&params), []) },
        // Offloaded: a page may walk every item (a large selection) or sort every selected one.
        view("view.selection", .offload) { host, params, _ throws(WireError) in (try host.selection(&params), []) },
        view("view.hitTest", .inline) { host, params, _ throws(WireError) in (try host.hitTest(&params), []) },
        view("view.neighbor", .inline) { host, params, _ throws(WireError) in (try host.neighbor(&params), []) },
        view("view.subscribe", .inline) { host, params, call throws(WireError) in
            try params.finish()
            return (try host.subscribe(call), [])
        },
        deferred("view.unsubscribe", .inline) { service, params, connection, finish throws(WireError) in
            try service.unsubscribe(&params, connection: connection, finish: finish)
        },
    ]

    /// The table by name.
    public static let named: [String: ServiceMethod] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })

    /// `{}`: the result of methods that only confirm.
    static let emptyObject = JSONWriter.encode(.object([:]))

    /// A daemon-wide method whose result is a tree; its params are all read once it returns.
    private static func daemon(
        _ name: String, _ execution: ExecutionClass,
        _ body: @escaping @Sendable (LayoutService, inout ParamsReader) throws(WireError) -> JSONValue
    ) -> ServiceMethod {
        encodedDaemon(name, execution) { service, params throws(WireError) in
            let result = try body(service, &params)
            try params.finish()
            return JSONWriter.encode(result)
        }
    }

    /// A daemon-wide method that writes its result itself (and checks its params' end).
    private static func encodedDaemon(
        _ name: String, _ execution: ExecutionClass,
        _ body: @escaping @Sendable (LayoutService, inout ParamsReader) throws(WireError) -> [UInt8]
    ) -> ServiceMethod {
        ServiceMethod(name: name, execution: execution, handler: .daemon(body))
    }

    private static func view(
        _ name: String, _ execution: ExecutionClass,
        _ body: @escaping @Sendable (ViewHost, inout ParamsReader, ViewCall) throws(WireError) -> ViewReply
    ) -> ServiceMethod {
        ServiceMethod(name: name, execution: execution, handler: .view(body))
    }

    private static func deferred(
        _ name: String, _ execution: ExecutionClass,
        _ body: @escaping @Sendable (LayoutService, inout ParamsReader, ConnectionID, @escaping Finish) throws(WireError) -> Void
    ) -> ServiceMethod {
        ServiceMethod(name: name, execution: execution, handler: .deferred(body))
    }
}
