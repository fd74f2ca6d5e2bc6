import Dispatch
import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import Synchronization

/// What `view.list` and `daemon.status` read about a view without waiting for its queue.
struct ViewSummary: Sendable {
    var strategy: String
    var epoch: Int
    var itemCount: Int
}

/// One named view, its subscribers and its serial executor (`queue`).
///
/// Everything but `summary` is confined to `queue`: requests for one view run in arrival
/// order, and requests for different views run in parallel.
final class ViewHost: @unchecked Sendable {
    let name: String
    let queue: ViewExecutor
    /// Internal rather than private only for the staged commit (`ViewHost+Staging.swift`).
    let view: View
    /// Subscription ids and their connections, in subscription order.
    private(set) var subscribers: [(subscription: Int, connection: ConnectionID)] = []
    /// Set by `view.delete`; requests already queued then find no view.
    private(set) var isDeleted = false
    let summary: Mutex<ViewSummary>
    private let itemBudget: ItemBudget
    /// When the health probe still in this view's queue was sent (uptime in ns), 0 when none
    /// is outstanding (`LayoutService.probeViews`).
    let probeSent = Atomic<UInt64>(0)

    init(name: String, view: View, itemBudget: ItemBudget) {
        self.name = name
        self.view = view
        self.itemBudget = itemBudget
        // Serial; queued work drains on Dispatch's overcommitting pool (`ViewExecutor`).
        queue = ViewExecutor(label: "layoutd.view")
        summary = Mutex(ViewSummary(strategy: view.strategyName, epoch: view.epoch, itemCount: view.model.numberOfItems))
    }

    // MARK: On the queue

    var notFound: WireError {
        WireError(name: "ViewNotFound", message: "no view named '\(name)'", data: ["view": .string(name)])
    }

    /// Carries out a read or mutation. Must run on `queue`.
    ///
    /// - Parameter registry: the strategies a `view.setStrategy` may switch to (the daemon's
    ///   current ones, which a reload may have grown since the view was created); read only by
    ///   that method, so other requests take no lock for it.
    /// - Returns: the encoded result and the events for subscribers.
    func perform(
        _ method: String, _ params: inout ParamsReader, connection: ConnectionID, registry: () -> StrategyRegistry,
        newSubscription: () throws(WireError) -> Int
    ) throws(WireError) -> (result: [UInt8], events: [Event]) {
        guard !isDeleted else { throw notFound }
        switch method {
        case "view.get":
            try params.finish()
            return (snapshot(), [])
        case "view.query":
            return (try query(&params), [])
        case "view.item":
            let id = try params.string("id")
            try params.finish()
            guard let attributes = view.layout.attributes(forItem: id) else { throw LayoutError.itemNotFound(id).wire }
            return (JSONWriter.encode(.object(["attributes": WireMapping.attributes(attributes)])), [])
        case "view.subscribe":
            try params.finish()
            let id = try newSubscription()
            subscribers.append((id, connection))
            var result = JSONWriter(capacity: 64)
            result.write(raw: #"{"subscription":"#)
            result.write(Double(id))
            result.write(raw: #","snapshot":"#)
            result.write(encoded: snapshot())
            result.append(UInt8(ascii: "}"))
            return (result.finish(), [])
        default:
            let (result, applied) = try mutate(method, &params, registry: registry)
            // A dry run changed nothing, so there is nothing to tell subscribers.
            guard applied else { return (result, []) }
            return (result, invalidated(result))
        }
    }

    /// After a mutation was applied (on `queue`): the summary `view.list` reads, brought up
    /// to date.
    func refreshSummary() {
        summary.withLock { $0 = ViewSummary(strategy: view.strategyName, epoch: view.epoch, itemCount: view.model.numberOfItems) }
    }

    /// The `view.invalidated` event of an applied mutation for every subscriber, its params the
    /// reply's encoded result.
    func invalidated(_ result: [UInt8]) -> [Event] {
        subscribers.map { Event(connection: $0.connection, name: "view.invalidated", subscription: $0.subscription, params: result) }
    }

    /// `view.query`: one page of the elements intersecting `rect`, in key order: at most
    /// `limit` (by default and at most `maximumWindowElements`) of those after the key `after`,
    /// with `next` (the last key of the page) when more remain. Concatenated, the pages are the
    /// unpaged result (of the view as it is when each page is read).
    ///
    /// - Complexity: O(log n + k log k) for the k elements in `rect`, whatever the page.
    private func query(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let rect = try params.rect("rect")
        let maximum = view.limits.maximumWindowElements
        let limit = try params.optionalInteger("limit") ?? maximum
        var after: ElementKey?
        if var cursor = try params.optionalObject("after") { after = try WireMapping.key(&cursor) }
        try params.finish()
        guard rect.isFinite, rect.width >= 0, rect.height >= 0 else { throw .invalidParams("params.rect", "must be finite with a non-negative size") }
        guard limit >= 1 else { throw .invalidParams("params.limit", "must be at least 1") }
        guard limit <= maximum else { throw LayoutError.limitExceeded(limit: "query elements", maximum: maximum).wire }
        var remaining = view.layout.elements(in: rect)
        if let after { remaining.removeAll { !(after < $0.key) } }
        remaining.sort { $0.key < $1.key }
        let page = remaining.prefix(limit)
        // Which of these cells are selected: what a picture of the region highlights.
        let selected = page.filter { $0.kind == .cell && view.model.isSelected($0.id) }.map { JSONValue.string($0.id) }
        var writer = JSONWriter(capacity: 256 + 160 * page.count)
        writer.append(UInt8(ascii: "{"))
        writer.writeKey("elements", first: true)
        WireMapping.write(page, into: &writer)
        writer.writeKey("selected", first: false)
        writer.write(.array(selected))
        if remaining.count > limit, let last = page.last {
            writer.writeKey("next", first: false)
            writer.write(WireMapping.key(last.key))
        }
        writer.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// Items the view holds, all of them taken from the daemon's budget. Must run on `queue`.
    var itemCount: Int { view.model.numberOfItems }

    /// The state `view.get` returns (also the `snapshot` of subscriptions and resyncs).
    func snapshot() -> [UInt8] { WireMapping.encodedSnapshot(view, name: name) }

    /// Removes a subscription; false when it is not this connection's. Must run on `queue`.
    func unsubscribe(_ subscription: Int, connection: ConnectionID) -> Bool {
        guard let index = subscribers.firstIndex(where: { $0.subscription == subscription && $0.connection == connection }) else { return false }
        subscribers.remove(at: index)
        return true
    }

    /// Forgets a closed connection's subscriptions. Must run on `queue`.
    func drop(connection: ConnectionID) {
        subscribers.removeAll { $0.connection == connection }
    }

    /// Marks the view deleted and tells its subscribers. Must run on `queue`.
    func delete() -> [Event] {
        isDeleted = true
        let params = JSONWriter.encode(.object(["view": .string(name)]))
        defer { subscribers = [] }
        return subscribers.map { Event(connection: $0.connection, name: "view.deleted", subscription: $0.subscription, params: params) }
    }

    /// The most items a batch can add: every kind of growth (inserted items and sections, and
    /// reloaded sections that hold more items than before), reserved before the batch runs.
    /// Deletions are not netted out: the batch may still be refused after reserving.
    static func growth(of updates: [BatchUpdate], in model: CollectionModel) -> Int {
        updates.reduce(0) { total, update in
            switch update {
            case .insertItems(let items, _, _): total + items.count
            case .insertSections(let sections, _): total + sections.reduce(0) { $0 + $1.items.count }
            case .reloadSections(let sections):
                total + sections.reduce(0) { $0 + max(0, $1.items.count - (model.numberOfItems(inSection: $1.id) ?? 0)) }
            case .deleteItems, .moveItem, .reloadItems, .deleteSections, .moveSection: total
            }
        }
    }

    /// Every mutating `view.*` method: decode, apply through the view (which validates first).
    ///
    /// With `dryRun`, the same action runs against a copy of the view (`View.copy()`): the
    /// result is byte for byte the one the real call would return, plus `"dryRun":true`,
    /// while the view, its epoch, the item budget and the summary stay as they were and no
    /// event is sent. The items the request could add are still reserved for the duration
    /// (and then all released), so a dry run refused for the budget is refused the same way.
    ///
    /// - Returns: the encoded result, and whether the view changed (false for a dry run).
    /// - Complexity: a dry run costs the real call plus the copy: O(1) for built-in
    ///   strategies, then whatever storage the mutation writes is copied once (O(n) at worst).
    private func mutate(
        _ method: String, _ params: inout ParamsReader, registry: () -> StrategyRegistry
    ) throws(WireError) -> (result: [UInt8], applied: Bool) {
        // The hot methods read their params into the same typed values the byte decoder makes
        // (`HotRequest`), so both paths run one action.
        switch method {
        case "view.scroll": return try mutate(.scroll(ScrollParams(&params)))
        case "view.select": return try mutate(.select(SelectParams(&params)))
        case "view.measure": return try mutate(.measure(MeasureParams(&params)))
        case "view.update": return try mutate(.update(UpdateParams(&params)))
        default: break
        }
        // `view` again (the service read it to find this view), then animated, ifEpoch, dryRun.
        let options = try MutationOptions(&params)
        let (animated, ifEpoch) = (options.animated, options.ifEpoch)
        let model = view.model
        // Decode everything first: a request with a bad or unknown field must change nothing.
        let action: (View) throws(LayoutError) -> Invalidation
        // The most items the request could add, taken from the daemon's budget up front.
        var growth = 0
        switch method {
        case "view.setData":
            let sections = try WireModel.sections(&params, "sections").map(WireMapping.section)
            growth = sections.reduce(0) { $0 + $1.items.count } - model.numberOfItems
            action = { view throws(LayoutError) in try view.replaceData(sections, animated: animated, ifEpoch: ifEpoch) }
        case "view.scrollEnd":
            let proposed = try params.point("proposed")
            let velocity = try params.optionalPoint("velocity") ?? .zero
            action = { view throws(LayoutError) in try view.scrollEnd(proposed: proposed, velocity: velocity, ifEpoch: ifEpoch) }
        case "view.resize":
            let size = try params.size("size")
            action = { view throws(LayoutError) in try view.resize(to: size, animated: animated, ifEpoch: ifEpoch) }
        case "view.configure":
            let changes = try WireMapping.parameters(try params.object("params"))
            action = { view throws(LayoutError) in try view.configure(changes, animated: animated, ifEpoch: ifEpoch) }
        case "view.setStrategy":
            let strategy = try params.string("strategy")
            let parameters = try WireMapping.parameters(try params.optionalObject("params"))
            let strategies = registry()
            action = { view throws(LayoutError) in
                try view.switchStrategy(to: strategy, parameters: parameters, animated: animated, ifEpoch: ifEpoch, registry: strategies)
            }
        case "view.setWindowMargin":
            let margin = try params.number("margin")
            action = { view throws(LayoutError) in try view.setWindowMargin(margin, ifEpoch: ifEpoch) }
        default:
            throw .methodNotFound(method)
        }
        try params.finish()
        return try apply(action, growth: growth, dryRun: options.dryRun)
    }

    /// A hot mutation whose params are read already (by `ParamsReader` or straight from the
    /// line's bytes), carried out. Must run on `queue`.
    func perform(_ hot: HotRequest.Params) throws(WireError) -> (result: [UInt8], events: [Event]) {
        guard !isDeleted else { throw notFound }
        let (result, applied) = try mutate(hot)
        guard applied else { return (result, []) }
        return (result, invalidated(result))
    }

    private func mutate(_ hot: HotRequest.Params) throws(WireError) -> (result: [UInt8], applied: Bool) {
        let action: (View) throws(LayoutError) -> Invalidation
        var growth = 0
        let options: MutationOptions
        switch hot {
        case .scroll(let params):
            options = params.options
            action = { view throws(LayoutError) in try view.scroll(to: params.offset, ifEpoch: options.ifEpoch) }
        case .select(let params):
            options = params.options
            // The wire's modes are the engine's, name for name.
            let mode = SelectionMode(rawValue: params.mode.rawValue)!
            action = { view throws(LayoutError) in
                try view.select(params.ids, mode: mode, animated: options.animated, ifEpoch: options.ifEpoch)
            }
        case .measure(let params):
            options = params.options
            let sizes = params.sizes.map { (id: $0.id, size: $0.size) }
            action = { view throws(LayoutError) in try view.measure(sizes, animated: options.animated, ifEpoch: options.ifEpoch) }
        case .update(let params):
            options = params.options
            let updates = params.updates.map(WireMapping.update)
            growth = Self.growth(of: updates, in: view.model)
            action = { view throws(LayoutError) in try view.performBatch(updates, animated: options.animated, ifEpoch: options.ifEpoch) }
        }
        return try apply(action, growth: growth, dryRun: options.dryRun)
    }

    /// The common tail of every mutation, once its params are all read: reserve the growth,
    /// run the action on the view (or, for a dry run, on a copy), release what was not used.
    private func apply(
        _ action: (View) throws(LayoutError) -> Invalidation, growth: Int, dryRun: Bool
    ) throws(WireError) -> (result: [UInt8], applied: Bool) {
        let countBefore = view.model.numberOfItems
        do {
            try itemBudget.reserve(growth)
        } catch {
            throw error.wire
        }
        let target: View
        let invalidation: Invalidation
        do {
            target = dryRun ? try view.copy() : view
            invalidation = try action(target)
        } catch {
            itemBudget.release(max(growth, 0))
            throw error.wire
        }
        guard !dryRun else {
            itemBudget.release(max(growth, 0))
            return (WireMapping.encodedInvalidation(invalidation, view: name, dryRun: true), false)
        }
        itemBudget.release(max(growth, 0) - (view.model.numberOfItems - countBefore))
        refreshSummary()
        return (WireMapping.encodedInvalidation(invalidation, view: name), true)
    }
}
