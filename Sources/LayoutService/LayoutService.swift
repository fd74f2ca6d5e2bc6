import Dispatch
import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import Synchronization

/// Limits the service enforces, each refusal a `LimitExceeded` error.
public struct ServiceLimits: Hashable, Sendable {
    public var maximumViews: Int
    public var view: ViewLimits
    /// Items all views together may hold: the bound on the daemon's memory.
    public var maximumTotalItems: Int
    /// Reported by `daemon.hello`; the server enforces it on lines.
    public var maximumLineLength: Int
    /// Subscriptions one connection may hold: each costs every mutation of its view an event.
    public var maximumSubscriptions: Int
    /// Staged uploads one connection may hold open (`view.stage.begin`): each holds items the
    /// daemon's budget counts until it ends, and a client needs one per view it loads.
    public var maximumUploads: Int

    public init(
        maximumViews: Int = 256, view: ViewLimits = ViewLimits(), maximumTotalItems: Int = 5_000_000, maximumLineLength: Int = 1 << 20,
        maximumSubscriptions: Int = 256, maximumUploads: Int = 4
    ) {
        self.maximumViews = maximumViews
        self.view = view
        self.maximumTotalItems = maximumTotalItems
        self.maximumLineLength = maximumLineLength
        self.maximumSubscriptions = maximumSubscriptions
        self.maximumUploads = maximumUploads
    }

    /// The defaults, which the daemon's settings (`ServerSettings`) start from.
    public static let standard = ServiceLimits()
}

/// What the transport that owns a service adds to it: its counters, configuration reloads and
/// the line cap it enforces now. `LayoutServer` conforms; a service without one (tests, the
/// fuzzer) answers with its own values.
public protocol DaemonControl: AnyObject, Sendable {
    /// What the transport counts for `daemon.status` (uptime, generation, connections, memory).
    func transportStatus() -> TransportStatus
    /// Re-reads the configuration for `daemon.reload`: what changed, or why not.
    func reloadConfiguration() -> Result<ReloadResult, WireError>
    /// The longest request line the transport accepts now (a reload may change it), which
    /// `daemon.hello` reports.
    var maximumLineLength: Int { get }
}

/// The daemon's logic without a transport: requests in, replies and events out.
///
/// Named views, every method of `MethodCatalog`, subscriptions (a snapshot first, then
/// `view.invalidated` events), optimistic concurrency (`ifEpoch`) and counters. A refused
/// request changes nothing.
///
/// Thread-safe. Each view lives on its own serial executor (`ViewHost.queue`, a
/// `ViewExecutor`), so requests for one view run in the order they were submitted and different
/// views use different cores. `submit` calls its completion inside the view's executor, and
/// the events in an outcome must be handed to their connections before that call returns, so
/// that every subscriber sees a view's events in epoch order.
public final class LayoutService: Sendable {
    /// The strategies views are created with; a reload that loads plugins replaces it.
    public var registry: StrategyRegistry { currentRegistry.withLock { $0 } }
    private let currentRegistry: Mutex<StrategyRegistry>
    public let limits: ServiceLimits
    public let serverName: String
    /// Weak: the control owns the service. Set once, by `attach`.
    private let controlReference = Mutex(ControlReference())

    private struct ControlReference {
        weak var control: (any DaemonControl)?
    }

    private var control: (any DaemonControl)? { controlReference.withLock { $0.control } }

    /// The longest request line accepted now: the transport's, which a reload may change, or
    /// the limits' for a service no transport controls.
    var lineLength: Int { control?.maximumLineLength ?? limits.maximumLineLength }

    /// The views by name, and the subscription slots connections hold. Which subscriptions
    /// exist, and which view each watches, is the hosts' own record (`ViewHost.subscribers`);
    /// the directory only counts slots, as the item budget counts items, so that
    /// `maximumSubscriptions` holds exactly while one connection subscribes to several views at
    /// once.
    struct Directory {
        var views: [String: ViewHost] = [:]
        var nextSubscription = 1
        /// Subscription slots each connection holds (what `maximumSubscriptions` caps).
        var slotsHeld: [ConnectionID: Int] = [:]
        /// Sequencers of the synchronous `handle(line:from:)`; the server numbers its own.
        var sequencers: [ConnectionID: EventSequencer] = [:]

        /// A new subscription id for `connection`, or `LimitExceeded` (`subscriptions`) when the
        /// connection holds `maximum` already.
        mutating func takeSlot(for connection: ConnectionID, maximum: Int) throws(WireError) -> Int {
            guard slotsHeld[connection, default: 0] < maximum else {
                throw LayoutError.limitExceeded(limit: "subscriptions", maximum: maximum).wire
            }
            let id = nextSubscription
            nextSubscription += 1
            slotsHeld[connection, default: 0] += 1
            return id
        }

        /// Gives back a slot of a subscription that ended (a closed connection's are all gone).
        mutating func releaseSlot(of connection: ConnectionID) {
            guard let held = slotsHeld[connection] else { return }
            slotsHeld[connection] = held > 1 ? held - 1 : nil
        }
    }

    let directory = Mutex(Directory())
    let itemBudget: ItemBudget
    /// Open staged uploads (`view.stage.*`).
    let staging: StagingArea
    /// Open imports (`view.import` of an export in several parts).
    let imports: ImportArea
    private let requestCount = Atomic<Int>(0)
    private let errorCount = Atomic<Int>(0)

    public init(
        registry: StrategyRegistry = .builtIn, limits: ServiceLimits = ServiceLimits(), serverName: String = "layoutd"
    ) {
        currentRegistry = Mutex(registry)
        self.limits = limits
        self.serverName = serverName
        itemBudget = ItemBudget(maximum: limits.maximumTotalItems)
        staging = StagingArea(itemBudget: itemBudget, limits: limits)
        imports = ImportArea(itemBudget: itemBudget, limits: limits)
    }

    /// The transport that owns this service: `daemon.status`, `daemon.reload` and
    /// `daemon.hello` ask it (held weakly).
    public func attach(control: any DaemonControl) {
        controlReference.withLock { $0.control = control }
    }

    /// Views created from now on, and strategy switches, use `registry` (a reload loaded
    /// plugins). Strategies already in use stay as they are.
    public func replaceRegistry(_ registry: StrategyRegistry) {
        currentRegistry.withLock { $0 = registry }
    }

    public var requestsServed: Int { requestCount.load(ordering: .relaxed) }
    public var errorsReturned: Int { errorCount.load(ordering: .relaxed) }

    /// Every view's name, sorted.
    public var viewNames: [String] { directory.withLock { $0.views.keys.sorted() } }

    // MARK: Requests

    /// Decodes a request line and submits it; an undecodable line is answered at once.
    public func submit(line: consuming some Collection<UInt8>, from connection: ConnectionID, completion: @escaping @Sendable (Outcome) -> Void) {
        let length = line.count
        // The line goes to the decoder, which lets go of it before the request runs: a caller
        // that handed its line over (`consuming`) has it freed before a large load builds its view.
        let decoded = DecodedLine(consume line)
        // A staged append's parts live on in the upload until its commit trims.
        let trims = decoded.method != "view.stage.append"
        // Handed over, not lent: a load's decoded sections are then held by the request's
        // reader alone, and freed as soon as the method has built its model from them.
        submit(consume decoded, from: connection, completion: completion)
        // The request's tree is freed once this returns, unless a view's executor still holds it.
        if trims { FreedMemory.release(afterLineOf: length) }
    }

    /// Submits a line as `DecodedLine` read it: the hot mutation, the request, or the refusal.
    public func submit(_ decoded: consuming DecodedLine, from connection: ConnectionID, completion: @escaping @Sendable (Outcome) -> Void) {
        switch consume decoded {
        case .hot(let hot): submit(hot, from: connection, completion: completion)
        case .request(let request): submit(request, from: connection, completion: completion)
        case .refused(let failure): refuse(failure, completion: completion)
        }
    }

    /// Answers a line that is not a request (`Request.decode` refused it) at once.
    public func refuse(_ failure: RequestFailure, completion: @escaping @Sendable (Outcome) -> Void) {
        requestCount.add(1, ordering: .relaxed)
        errorCount.add(1, ordering: .relaxed)
        completion(Outcome(reply: Envelope.error(id: failure.id, failure.error), events: [], error: failure.error.name))
    }

    /// Carries out `request` for `connection` and calls `completion` exactly once with the
    /// reply and the events it caused. Daemon-wide methods, and inline methods (`Methods`)
    /// whose view is idle, complete before `submit` returns, on the caller's thread; other view methods,
    /// `daemon.sync`, `view.delete` and `view.unsubscribe` complete later, on a pool thread
    /// running the view's executor or another thread. `submit` never blocks its thread.
    public func submit(_ request: consuming Request, from connection: ConnectionID, completion: @escaping @Sendable (Outcome) -> Void) {
        requestCount.add(1, ordering: .relaxed)
        let finish = finisher(id: request.id, method: request.method, view: request.params["view"]?.stringValue, completion: completion)
        var params = ParamsReader(taking: &request)
        do throws(WireError) {
            guard let method = Methods.named[request.method] else { throw .methodNotFound(request.method) }
            switch method.handler {
            case .daemon(let handler):
                finish(.success(try handler(self, &params)), [])
            case .deferred(let handler):
                try handler(self, &params, connection, finish)
            case .view(let handler):
                let host = try host(named: try params.string("view"))
                // Never waits for the view: a cheap method runs here and now when the view is
                // idle (on the caller's I/O thread, no hand-off), anything else queues and runs
                // on a pool thread (`ViewExecutor`). A thread blocked behind a view's queued
                // work once left no thread to run it: the soak caught every connection stalling.
                host.queue.run(inline: runsInline(method, on: host)) { [self, params] in
                    var params = params
                    let call = ViewCall(connection: connection, registry: { self.registry }) { () throws(WireError) -> Int in
                        try self.directory.withLock { (directory) throws(WireError) -> Int in
                            try directory.takeSlot(for: connection, maximum: self.limits.maximumSubscriptions)
                        }
                    }
                    do throws(WireError) {
                        let (result, events) = try host.perform(handler, &params, call)
                        finish(.success(result), events)
                    } catch {
                        finish(.failure(error), [])
                    }
                }
            }
        } catch {
            finish(.failure(error), [])
        }
    }

    /// Carries out a hot mutation decoded straight from its line (`HotRequest.decode`): what
    /// `submit(_: Request, ...)` does for the same request, without its params read again.
    public func submit(_ hot: HotRequest, from connection: ConnectionID, completion: @escaping @Sendable (Outcome) -> Void) {
        requestCount.add(1, ordering: .relaxed)
        let name = hot.options.view
        let finish = finisher(id: hot.id, method: hot.method, view: name, completion: completion)
        guard let host = directory.withLock({ $0.views[name] }), let method = Methods.named[hot.method] else {
            return finish(.failure(Self.viewNotFound(name)), [])
        }
        host.queue.run(inline: runsInline(method, on: host)) {
            do throws(WireError) {
                let (result, events) = try host.perform(hot.params)
                finish(.success(result), events)
            } catch {
                finish(.failure(error), [])
            }
        }
    }

    /// How a request completes: its reply (none for a notification) built around the encoded
    /// result or the refusal, with the request's method and view for the logs.
    private func finisher(id: RequestID?, method: String, view: String?, completion: @escaping @Sendable (Outcome) -> Void) -> Finish {
        { [self] result, events in
            switch result {
            case .success(let encoded):
                completion(Outcome(reply: id.map { Envelope.result(id: $0, encoded: encoded) }, events: events, method: method, view: view))
            case .failure(let error):
                errorCount.add(1, ordering: .relaxed)
                completion(Outcome(reply: id.map { Envelope.error(id: $0, error) }, events: [], method: method, view: view, error: error.name))
            }
        }
    }

    /// Whether a request for `host` may run on the caller's (I/O) thread when the view is
    /// free. A plugin's layout is code we do not know the cost of: never on an I/O thread.
    private func runsInline(_ method: ServiceMethod, on host: ViewHost) -> Bool {
        method.execution == .inline && registry.origin(of: host.summary.withLock { $0.strategy }) == .builtIn
    }

    /// Whether `submit` of `method` returns at once on the caller's thread (the table's
    /// `ServiceMethod.submitsQuickly`); an unknown method is refused at once.
    public static func submitsQuickly(_ method: String) -> Bool {
        Methods.named[method]?.submitsQuickly ?? true
    }

    /// Handles one line and waits for it: the reply, then the events it caused, numbered per
    /// connection. For tests and tools; the server uses `submit`.
    public func handle(line: some Collection<UInt8>, from connection: ConnectionID) -> [Delivery] {
        let box = Mutex<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        submit(line: line, from: connection) { outcome in
            box.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        let outcome = box.withLock { $0! }
        var deliveries = outcome.reply.map { [Delivery(connection: connection, line: $0)] } ?? []
        directory.withLock { directory in
            for event in outcome.events {
                deliveries.append(Delivery(connection: event.connection, line: directory.sequencers[event.connection, default: EventSequencer()].line(for: event)))
            }
        }
        return deliveries
    }

    /// Forgets a closed connection's subscriptions and discards its staged uploads. Call it
    /// once no request of the connection is still running.
    public func disconnect(_ connection: ConnectionID) {
        FreedMemory.release(items: staging.discard(connection: connection) + imports.discard(connection: connection))
        let hosts = directory.withLock { directory in
            directory.slotsHeld[connection] = nil
            directory.sequencers[connection] = nil
            return directory.views.values.filter { host in host.subscribers.withLock { $0.contains { $0.connection == connection } } }
        }
        for host in hosts {
            host.queue.async { host.drop(connection: connection) }
        }
    }

    /// Calls `completion` (on a global queue) once every view has finished the work that was
    /// submitted before this call, and so handed out its events.
    public func barrier(_ completion: @escaping @Sendable () -> Void) {
        let hosts = directory.withLock { Array($0.views.values) }
        let group = DispatchGroup()
        for host in hosts {
            group.enter()
            host.queue.async { group.leave() }
        }
        group.notify(queue: Self.completions, execute: completion)
    }

    /// Where barriers complete: a serial queue of ours rather than the global pool.
    private static let completions = DispatchQueue(label: "layoutd.barrier", qos: .userInitiated)

    /// The watchdog's probe: sends a no-op through the queue of every view that has none
    /// outstanding, and returns how long the oldest one still waiting has waited (0 when
    /// every view answered its last probe), with that view's name. Call from one queue only.
    public func probeViews() -> (seconds: Double, view: String?) {
        let hosts = directory.withLock { Array($0.views.values) }
        let now = DispatchTime.now().uptimeNanoseconds
        var oldest: (age: UInt64, view: String?) = (0, nil)
        for host in hosts {
            let sent = host.probeSent.load(ordering: .acquiring)
            if sent == 0 {
                host.probeSent.store(now, ordering: .releasing)
                host.queue.async { host.probeSent.store(0, ordering: .releasing) }
            } else if now &- sent > oldest.age {
                oldest = (now &- sent, host.name)
            }
        }
        return (Double(oldest.age) / 1e9, oldest.view)
    }

    /// The current snapshot of the view a subscription watches, for a subscriber that fell
    /// behind: `{view, skipped, snapshot}` as the params of a `view.resync` event, on the
    /// view's queue; nil when the subscription ended.
    public func resync(subscription: Int, connection: ConnectionID, skipped: Int, completion: @escaping @Sendable (Event?) -> Void) {
        guard let host = host(watching: subscription, of: connection) else { return completion(nil) }
        host.queue.async {
            guard !host.isDeleted, host.holds(subscription, connection: connection) else { return completion(nil) }
            var params = JSONWriter(capacity: 64)
            params.write(raw: #"{"view":"#)
            params.write(host.name)
            params.write(raw: #","skipped":"#)
            params.write(Double(skipped))
            params.write(raw: #","snapshot":"#)
            params.write(encoded: host.snapshot())
            params.append(UInt8(ascii: "}"))
            completion(Event(connection: connection, name: "view.resync", subscription: subscription, params: params.finish()))
        }
    }

    /// The view named `name`, or `ViewNotFound`.
    func host(named name: String) throws(WireError) -> ViewHost {
        guard let host = directory.withLock({ $0.views[name] }) else { throw Self.viewNotFound(name) }
        return host
    }

    /// The view whose subscribers include `subscription` of `connection`, if any.
    ///
    /// - Complexity: O(views + their subscriptions); called per unsubscribe and resync only.
    private func host(watching subscription: Int, of connection: ConnectionID) -> ViewHost? {
        directory.withLock { $0.views.values.first { $0.holds(subscription, connection: connection) } }
    }

    static func viewNotFound(_ name: String) -> WireError {
        WireError(name: "ViewNotFound", message: "no view named '\(name)'", data: ["view": .string(name)])
    }

    // MARK: Daemon-wide methods

    /// `view.delete`: the name is free at once; the view ends on its executor, after the work
    /// queued before, and its subscribers get `view.deleted`.
    func delete(_ params: inout ParamsReader, finish: @escaping Finish) throws(WireError) {
        let name = try params.string("view")
        try params.finish()
        // Handed over, not held: this thread keeps no reference, so the view's data is freed
        // by the executor's block (not by an I/O thread, after the block, when the block ran
        // before `async` returned here), and the trim asked for behind it finds it freed.
        let handoff = try directory.withLock { (directory) throws(WireError) -> ViewHandoff in
            guard let host = directory.views.removeValue(forKey: name) else { throw Self.viewNotFound(name) }
            return ViewHandoff(host)
        }
        let queue = handoff.queue
        queue.async { [self] in
            guard let host = handoff.take() else { return }
            let items = host.itemCount
            itemBudget.release(items)
            let events = host.delete()
            directory.withLock { directory in
                for event in events { directory.releaseSlot(of: event.connection) }
            }
            finish(.success(Methods.emptyObject), events)
            FreedMemory.release(items: items, after: queue)
        }
    }

    /// `view.unsubscribe`: through the executor of the view the subscription watches, so that
    /// the events of requests queued before it still arrive.
    func unsubscribe(_ params: inout ParamsReader, connection: ConnectionID, finish: @escaping Finish) throws(WireError) {
        let id = try params.integer("subscription")
        try params.finish()
        let notOurs = WireError.invalidParams("params.subscription", "is not a subscription of this connection")
        guard let host = host(watching: id, of: connection) else { throw notOurs }
        host.queue.async { [self] in
            guard host.unsubscribe(id, connection: connection) else { return finish(.failure(notOurs), []) }
            directory.withLock { $0.releaseSlot(of: connection) }
            finish(.success(Methods.emptyObject), [])
        }
    }

    func reload() throws(WireError) -> JSONValue {
        (try (control?.reloadConfiguration() ?? Self.unconfigured).get()).json
    }

    /// `daemon.reload` of a service no transport controls: nothing to read, nothing changed.
    private static let unconfigured: Result<ReloadResult, WireError> = .success(ReloadResult(generation: 0))

    func hello(_ params: inout ParamsReader) throws(WireError) -> JSONValue {
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
        var reported: JSONObject = [
            "maximumLineLength": .number(Double(limits.maximumLineLength)),
            "maximumViews": .number(Double(limits.maximumViews)),
            "maximumItemsPerView": .number(Double(limits.view.maximumItems)),
            "maximumTotalItems": .number(Double(limits.maximumTotalItems)),
            "maximumBatchSize": .number(Double(limits.view.maximumBatchSize)),
            "maximumWindowElements": .number(Double(limits.view.maximumWindowElements)),
            "maximumUploads": .number(Double(limits.maximumUploads)),
        ]
        if let control { reported["maximumLineLength"] = .number(Double(control.maximumLineLength)) }
        return .object([
            "protocol": .number(Double(version)), "server": .string(serverName), "version": .string(Release.version),
            "limits": .object(reported),
        ])
    }

    /// The published schemas, parsed once: `paramsSchema` and `resultSchema` of each method,
    /// each event's schema, and the shared documents their `$ref`s point into.
    private static let schemas: [String: JSONValue] = {
        var parsed = [String: JSONValue]()
        for (path, text) in SchemaCatalog.documents {
            parsed[path] = try? JSONParser.parse(Array(text.utf8))
        }
        return parsed
    }()

    func describe() -> JSONValue {
        let schemas = Self.schemas
        var shared = JSONObject()
        for path in schemas.keys.sorted() where !path.contains("/") { shared[path] = schemas[path] }
        var events = JSONObject()
        for name in MethodCatalog.events { events[name] = schemas["events/\(name).json"] ?? .null }
        return .object([
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
                    "result": .string(method.result), "mutates": .bool(method.mutates),
                    "errors": .array(method.errors.map(JSONValue.string)), "events": .array(method.events.map(JSONValue.string)),
                    "doc": .string(method.doc),
                    "paramsSchema": schemas["methods/\(method.name).params.json"] ?? .null,
                    "resultSchema": schemas["methods/\(method.name).result.json"] ?? .null,
                ])
            }),
            "eventSchemas": .object(events),
            "schemas": .object(shared),
            "errors": .array(ErrorCatalog.entries.map { entry in
                .object(["name": .string(entry.name), "code": .number(Double(entry.code)), "meaning": .string(entry.meaning)])
            }),
            "requestErrors": .array(MethodCatalog.requestErrors.map(JSONValue.string)),
            "events": .array(MethodCatalog.events.map { .string($0) }),
            "strategies": WireMapping.strategies(registry),
        ])
    }

    func status() -> JSONValue {
        let hosts = directory.withLock { Array($0.views.values) }
        let summaries = hosts.map { $0.summary.withLock { $0 } }
        let staged = staging.counts
        return DaemonStatus(
            views: hosts.count, items: summaries.reduce(0) { $0 + $1.itemCount },
            subscriptions: hosts.reduce(0) { total, host in total + host.subscribers.withLock { $0.count } },
            openUploads: staged.open, uploadedItems: staged.items, requests: requestsServed, errors: errorsReturned,
            transport: control?.transportStatus()
        ).json
    }

    // MARK: Views

    func create(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let name = try params.string("view")
        guard !name.isEmpty, name.utf8.count <= 256 else { throw .invalidParams("params.view", "must be 1 to 256 bytes") }
        try checkRoom(for: name)
        let strategy = try params.string("strategy")
        let parameters = try WireMapping.parameters(try params.optionalObject("params"))
        var viewportReader = try params.object("viewport")
        let wire = try WireViewport.read(&viewportReader)
        let viewport = Viewport(
            size: wire.size, offset: wire.offset, contentInsets: wire.contentInsets,
            safeAreaInsets: wire.margins.safeAreaInsets ?? .zero, layoutMargins: wire.margins.layoutMargins ?? .zero,
            readableWidth: wire.margins.readableWidth)
        let margin = try params.optionalNumber("windowMargin") ?? 0
        var sections = [SectionSpec]()
        if params.has("sections") { sections = try WireModel.sections(&params, "sections").map(WireMapping.section) }
        let anchor = try WireAnchor.read(&params).map(WireMapping.anchor) ?? .firstVisible
        let direction = try Self.layoutDirection(try params.optionalString("layoutDirection") ?? "ltr")
        try params.finish()
        let itemCount = sections.reduce(0) { $0 + $1.items.count }
        do {
            try itemBudget.reserve(itemCount)
        } catch {
            throw error.wire
        }
        let view: View
        do {
            view = try View(
                strategy: strategy, parameters: parameters, sections: sections, viewport: viewport, windowMargin: margin,
                limits: limits.view, registry: registry, anchor: anchor, layoutDirection: direction)
        } catch {
            itemBudget.release(itemCount)
            throw error.wire
        }
        do throws(WireError) {
            return try adopt(view, named: name).snapshot()
        } catch {
            itemBudget.release(itemCount)
            throw error
        }
    }

    /// Gives a view built outside the lock (a large view takes a while) its name, unless
    /// another connection took the name or the last slot meanwhile. Its items are the
    /// caller's to have reserved (and to release when this throws).
    func adopt(_ view: View, named name: String) throws(WireError) -> ViewHost {
        let host = ViewHost(name: name, view: view, itemBudget: itemBudget) { [weak self] in
            self?.lineLength ?? ServiceLimits.standard.maximumLineLength
        }
        try directory.withLock { (directory) throws(WireError) in
            try Self.checkRoom(for: name, in: directory, limits: limits)
            directory.views[name] = host
        }
        return host
    }

    static func layoutDirection(_ name: String) throws(WireError) -> LayoutDirection {
        guard let direction = LayoutDirection(rawValue: name) else { throw .invalidParams("params.layoutDirection", "must be ltr or rtl") }
        return direction
    }

    func checkRoom(for name: String) throws(WireError) {
        try directory.withLock { (directory) throws(WireError) in try Self.checkRoom(for: name, in: directory, limits: limits) }
    }

    private static func checkRoom(for name: String, in directory: Directory, limits: ServiceLimits) throws(WireError) {
        guard directory.views[name] == nil else {
            throw WireError(name: "ViewExists", message: "a view named '\(name)' exists", data: ["view": .string(name)])
        }
        guard directory.views.count < limits.maximumViews else {
            throw LayoutError.limitExceeded(limit: "views", maximum: limits.maximumViews).wire
        }
    }

    func list() -> JSONValue {
        let hosts = directory.withLock { $0.views.values.sorted { $0.name < $1.name } }
        return .object([
            "views": .array(hosts.map { host in
                let summary = host.summary.withLock { $0 }
                return .object([
                    "view": .string(host.name), "strategy": .string(summary.strategy), "epoch": .number(Double(summary.epoch)),
                    "itemCount": .number(Double(summary.itemCount)),
                ])
            })
        ])
    }
}

/// A deleted view on its way to its executor, which drops the last reference to it: a block
/// that captured the view itself would share that reference with the thread that queued it
/// until `async` returned there.
private final class ViewHandoff: Sendable {
    let queue: ViewExecutor
    private let host: Mutex<ViewHost?>

    init(_ host: ViewHost) {
        queue = host.queue
        self.host = Mutex(host)
    }

    /// The view, once; nil after.
    func take() -> ViewHost? { host.withLock { host in defer { host = nil }; return host } }
}
