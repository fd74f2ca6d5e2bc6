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

/// How the service routes a method: which part of it carries the method out.
enum MethodRoute: Sendable {
    /// Daemon-wide, answered on the submitting thread (`LayoutService.daemonMethod`).
    case daemon
    /// One view's read or mutation, on the view's executor (`ViewHost.perform`).
    case view
    /// A staged upload (`LayoutService.stage`).
    case staging
    /// `daemon.sync`: a barrier through every view.
    case barrier
    /// `view.delete`: the name taken at once, the view ended on its executor.
    case delete
    /// `view.unsubscribe`: through the executor of the view the subscription watches.
    case unsubscribe
}

/// One method as the service carries it out. What it is for clients (summary, parameters,
/// whether it mutates) is `MethodCatalog`'s, in LayoutProtocol; its schemas are
/// `protocol/schemas/methods/<name>.params.json` and `.result.json` (`SchemaCatalog`). The
/// table and the catalog hold the same methods in the same order (`MethodTableTests`).
public struct ServiceMethod: Sendable {
    public let name: String
    let route: MethodRoute
    public let execution: ExecutionClass

    /// Whether `submit` returns at once on the caller's thread for this method: it runs
    /// inline, or it only hands its work to a view's executor or a barrier. The transport runs
    /// every other method's `submit` off its I/O threads.
    public var submitsQuickly: Bool {
        switch route {
        case .view, .delete, .unsubscribe, .barrier: true
        case .daemon, .staging: execution == .inline
        }
    }
}

/// Every method of the protocol, once, in `MethodCatalog`'s order: what routing, the I/O
/// core's placement and the consistency tests read.
public enum Methods {
    public static let all: [ServiceMethod] = [
        method("daemon.hello", .daemon, .inline),
        method("daemon.describe", .daemon, .offload),
        method("daemon.status", .daemon, .inline),
        method("daemon.sync", .barrier, .inline),
        method("daemon.reload", .daemon, .offload),
        method("strategy.list", .daemon, .inline),
        method("view.create", .daemon, .offload),
        method("view.delete", .delete, .offload),
        method("view.list", .daemon, .inline),
        method("view.get", .view, .inline),
        method("view.setData", .view, .offload),
        method("view.update", .view, .offload),
        method("view.measure", .view, .inline),
        method("view.select", .view, .inline),
        method("view.scroll", .view, .inline),
        method("view.scrollEnd", .view, .inline),
        method("view.resize", .view, .offload),
        method("view.configure", .view, .offload),
        method("view.setStrategy", .view, .offload),
        method("view.setWindowMargin", .view, .offload),
        method("view.stage.begin", .staging, .offload),
        method("view.stage.append", .staging, .offload),
        method("view.stage.commit", .staging, .offload),
        method("view.stage.abort", .staging, .offload),
        method("view.query", .view, .inline),
        method("view.item", .view, .inline),
        method("view.subscribe", .view, .inline),
        method("view.unsubscribe", .unsubscribe, .inline),
    ]

    private static func method(_ name: String, _ route: MethodRoute, _ execution: ExecutionClass) -> ServiceMethod {
        ServiceMethod(name: name, route: route, execution: execution)
    }

    /// The table by name.
    public static let named: [String: ServiceMethod] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
