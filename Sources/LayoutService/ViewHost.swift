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

/// A subscription: its id and the connection that holds it.
struct Subscriber: Sendable, Equatable {
    let subscription: Int
    let connection: ConnectionID
}

/// One named view, its subscribers and its serial executor (`queue`).
///
/// Everything but `summary` and `subscribers` is confined to `queue`: requests for one view run
/// in arrival order, and requests for different views run in parallel.
final class ViewHost: @unchecked Sendable {
    let name: String
    let queue: ViewExecutor
    /// Internal rather than private only for the staged commit (`ViewHost+Staging.swift`).
    let view: View
    /// The view's subscriptions, in subscription order: the one record of them. Changed only on
    /// `queue` (so a view's events and its subscriptions change in one order); read by the
    /// service from any thread to find the view a subscription watches.
    let subscribers = Mutex<[Subscriber]>([])
    /// Set by `view.delete`; requests already queued then find no view.
    private(set) var isDeleted = false
    /// Snapshots of exports whose later parts are still to be read, by number
    /// (`ViewExport.swift`).
    var exports: [Int: ExportSnapshot] = [:]
    var nextExport = 1
    let summary: Mutex<ViewSummary>
    private let itemBudget: ItemBudget
    /// The line cap in effect (`max-line-length`, which a reload may change): the most bytes
    /// of ids an invalidation lists (`WireMapping.listsIDs`).
    let lineLength: @Sendable () -> Int
    /// When the health probe still in this view's queue was sent (uptime in ns), 0 when none
    /// is outstanding (`LayoutService.probeViews`).
    let probeSent = Atomic<UInt64>(0)

    init(name: String, view: View, itemBudget: ItemBudget, lineLength: @escaping @Sendable () -> Int) {
        self.name = name
        self.view = view
        self.itemBudget = itemBudget
        self.lineLength = lineLength
        // Serial; queued work drains on Dispatch's overcommitting pool (`ViewExecutor`).
        queue = ViewExecutor(label: "layoutd.view")
        summary = Mutex(ViewSummary(strategy: view.strategyName, epoch: view.epoch, itemCount: view.model.numberOfItems))
    }

    // MARK: On the queue

    var notFound: WireError {
        WireError(name: "ViewNotFound", message: "no view named '\(name)'", data: ["view": .string(name)])
    }

    /// Carries out a view method of the table (`Methods`). Must run on `queue`.
    func perform(
        _ handler: (ViewHost, inout ParamsReader, ViewCall) throws(WireError) -> ViewReply, _ params: inout ParamsReader, _ call: ViewCall
    ) throws(WireError) -> ViewReply {
        guard !isDeleted else { throw notFound }
        return try handler(self, &params, call)
    }

    /// A hot mutation whose params the byte decoder read (`HotRequest`), carried out. Must run
    /// on `queue`.
    func perform(_ hot: HotRequest.Params) throws(WireError) -> ViewReply {
        guard !isDeleted else { throw notFound }
        return try mutate(hot)
    }

    /// After a mutation was applied (on `queue`): the summary `view.list` reads, brought up
    /// to date.
    func refreshSummary() {
        summary.withLock { $0 = ViewSummary(strategy: view.strategyName, epoch: view.epoch, itemCount: view.model.numberOfItems) }
    }

    /// The `view.invalidated` event of an applied mutation for every subscriber, its params the
    /// reply's encoded result; when the mutation ended an interactive transition back, each
    /// subscriber's `view.transitionInterrupted` first.
    func invalidated(_ result: [UInt8], _ invalidation: Invalidation) -> [Event] {
        let interruption = invalidation.interruptedTransition.map { WireMapping.encodedInterruption($0, view: name, epoch: invalidation.epoch) }
        return subscribers.withLock { subscribers in
            var events = [Event]()
            events.reserveCapacity(subscribers.count * (interruption == nil ? 1 : 2))
            for subscriber in subscribers {
                if let interruption {
                    events.append(
                        Event(connection: subscriber.connection, name: "view.transitionInterrupted", subscription: subscriber.subscription, params: interruption))
                }
                events.append(Event(connection: subscriber.connection, name: "view.invalidated", subscription: subscriber.subscription, params: result))
            }
            return events
        }
    }

    // MARK: Reads

    /// `view.query`: one page of the elements intersecting `rect`, in key order: at most
    /// `limit` (by default and at most `maximumWindowElements`) of those after the key `after`,
    /// with `next` (the last key of the page) when more remain. Concatenated, the pages are the
    /// unpaged result (of the view as it is when each page is read).
    ///
    /// - Complexity: O(log n + k log k) for the k elements in `rect`, whatever the page.
    func query(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
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

    /// `view.selection`: a page of the selected items in data order, with the selection's
    /// size and the view's epoch (a client reading page after page sees whether it changed).
    func selection(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let maximum = view.limits.maximumWindowElements
        let limit = try params.optionalInteger("limit") ?? maximum
        let after = try params.optionalString("after")
        try params.finish()
        guard limit >= 1 else { throw .invalidParams("params.limit", "must be at least 1") }
        guard limit <= maximum else { throw LayoutError.limitExceeded(limit: "selection ids", maximum: maximum).wire }
        let page: (ids: [String], more: Bool)
        do {
            page = try view.model.selectedItems(after: after, limit: limit)
        } catch {
            throw error.wire
        }
        var result: JSONObject = [
            "ids": .array(page.ids.map(JSONValue.string)), "count": .number(Double(view.model.selection.count)),
            "epoch": .number(Double(view.epoch)),
        ]
        if page.more, let last = page.ids.last { result["next"] = .string(last) }
        return JSONWriter.encode(.object(result))
    }

    /// `view.item`: one cell's attributes.
    func item(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let id = try params.string("id")
        try params.finish()
        guard let attributes = view.layout.attributes(forItem: id) else { throw LayoutError.itemNotFound(id).wire }
        return JSONWriter.encode(.object(["attributes": WireMapping.attributes(attributes)]))
    }

    /// `view.hitTest`: the topmost element at a point, or null.
    func hitTest(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let point = try params.point("point")
        var kinds: Set<ElementKind>?
        if params.has("kinds") {
            guard let names = params.optionalValue("kinds")?.arrayValue, !names.isEmpty else {
                throw .invalidParams("params.kinds", "must be a non-empty array of element kind names")
            }
            var named = Set<ElementKind>()
            for (index, name) in names.enumerated() {
                guard let kind = name.stringValue, WireAnchor.isKindName(kind) else {
                    throw .invalidParams("params.kinds[\(index)]", "must be an element kind name of 1 to 64 bytes")
                }
                named.insert(ElementKind(rawValue: kind))
            }
            kinds = named
        }
        try params.finish()
        guard point.isFinite else { throw .invalidParams("params.point", "must be finite") }
        return Self.element(view.layout.hitTest(point, kinds: kinds))
    }

    /// `view.neighbor`: the item a keyboard moves to, or null at the content's edge.
    func neighbor(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let id = try params.string("id")
        let name = try params.string("direction")
        try params.finish()
        guard let direction = NeighborDirection(rawValue: name) else {
            throw .invalidParams("params.direction", "must be up, down, left, right, next or previous")
        }
        do {
            return Self.element(try view.layout.neighbor(of: id, direction: direction))
        } catch {
            throw error.wire
        }
    }

    /// `{"element": attributes}`, or `{"element": null}`.
    private static func element(_ attributes: LayoutAttributes?) -> [UInt8] {
        JSONWriter.encode(.object(["element": attributes.map(WireMapping.attributes) ?? .null]))
    }

    /// `view.subscribe`: a new subscription of the caller's connection and the snapshot its
    /// events start from.
    func subscribe(_ call: ViewCall) throws(WireError) -> [UInt8] {
        let id = try call.newSubscription()
        subscribers.withLock { $0.append(Subscriber(subscription: id, connection: call.connection)) }
        var result = JSONWriter(capacity: 64)
        result.write(raw: #"{"subscription":"#)
        result.write(Double(id))
        result.write(raw: #","snapshot":"#)
        result.write(encoded: snapshot())
        result.append(UInt8(ascii: "}"))
        return result.finish()
    }

    /// Items the view holds, all of them taken from the daemon's budget. Must run on `queue`.
    var itemCount: Int { view.model.numberOfItems }

    /// The state `view.get` returns (also the `snapshot` of subscriptions and resyncs).
    func snapshot() -> [UInt8] { WireMapping.encodedSnapshot(view, name: name) }

    /// Removes a subscription; false when it is not this connection's. Must run on `queue`.
    func unsubscribe(_ subscription: Int, connection: ConnectionID) -> Bool {
        subscribers.withLock { subscribers in
            guard let index = subscribers.firstIndex(of: Subscriber(subscription: subscription, connection: connection)) else { return false }
            subscribers.remove(at: index)
            return true
        }
    }

    /// Forgets a closed connection's subscriptions. Must run on `queue`.
    func drop(connection: ConnectionID) {
        subscribers.withLock { $0.removeAll { $0.connection == connection } }
    }

    /// Whether `connection` holds `subscription` on this view; from any thread.
    func holds(_ subscription: Int, connection: ConnectionID) -> Bool {
        subscribers.withLock { $0.contains(Subscriber(subscription: subscription, connection: connection)) }
    }

    /// Marks the view deleted and tells its subscribers. Must run on `queue`.
    func delete() -> [Event] {
        isDeleted = true
        let params = JSONWriter.encode(.object(["view": .string(name)]))
        let ended = subscribers.withLock { subscribers in
            defer { subscribers = [] }
            return subscribers
        }
        return ended.map { Event(connection: $0.connection, name: "view.deleted", subscription: $0.subscription, params: params) }
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

    // MARK: Mutations

    /// What a mutating method does once its params are read: the most items it could add
    /// (taken from the daemon's budget up front) and the action on the view.
    struct Mutation {
        var growth = 0
        let action: (View) throws(LayoutError) -> Invalidation
        /// Reads the `prefetch` ids off the view once the action ran (`view.scroll` with a
        /// velocity).
        var prefetch: ((View) -> [String])?
    }

    /// A general (not hot) mutation: reads `view` again (the service read it to find this view),
    /// then animated, ifEpoch and dryRun, then the method's own params (`read`), all before
    /// anything changes, so a request with a bad or unknown field changes nothing.
    ///
    /// With `dryRun`, the same action runs against a copy of the view (`View.copy()`): the
    /// result is byte for byte the one the real call would return, plus `"dryRun":true`,
    /// while the view, its epoch, the item budget and the summary stay as they were and no
    /// event is sent. The items the request could add are still reserved for the duration
    /// (and then all released), so a dry run refused for the budget is refused the same way.
    ///
    /// - Complexity: a dry run costs the real call plus the copy: O(1) for built-in
    ///   strategies, then whatever storage the mutation writes is copied once (O(n) at worst).
    func mutate(
        _ params: inout ParamsReader, _ read: (inout ParamsReader, MutationOptions) throws(WireError) -> Mutation
    ) throws(WireError) -> ViewReply {
        let options = try MutationOptions(&params)
        let mutation = try read(&params, options)
        try params.finish()
        return try apply(mutation, dryRun: options.dryRun)
    }

    func setData(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let sections = try WireModel.sections(&params, "sections").map(WireMapping.section)
            return Mutation(growth: sections.reduce(0) { $0 + $1.items.count } - view.model.numberOfItems) { view throws(LayoutError) in
                try view.replaceData(sections, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        }
    }

    func scrollEnd(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let proposed = try params.point("proposed")
            let velocity = try params.optionalPoint("velocity") ?? .zero
            return Mutation { view throws(LayoutError) in try view.scrollEnd(proposed: proposed, velocity: velocity, ifEpoch: options.ifEpoch) }
        }
    }

    func resize(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let size = try params.size("size")
            let margins = try WireMargins.read(&params)
            return Mutation { view throws(LayoutError) in
                try view.resize(
                    to: size, safeAreaInsets: margins.safeAreaInsets, layoutMargins: margins.layoutMargins,
                    readableWidth: margins.readableWidth, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        }
    }

    /// `view.scrollSection`: an orthogonal section's own offset.
    func scrollSection(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let section = try params.string("section")
            let offset = try params.number("offset")
            return Mutation { view throws(LayoutError) in try view.scrollSection(section, to: offset, ifEpoch: options.ifEpoch) }
        }
    }

    /// `view.scrollSectionEnd`: where an orthogonal section comes to rest (its snapping).
    func scrollSectionEnd(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let section = try params.string("section")
            let proposed = try params.optionalNumber("proposed")
            let velocity = try params.optionalNumber("velocity") ?? 0
            return Mutation { view throws(LayoutError) in
                try view.scrollSectionEnd(section, proposed: proposed, velocity: velocity, ifEpoch: options.ifEpoch)
            }
        }
    }

    func configure(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let changes = try WireMapping.parameters(try params.object("params"))
            return Mutation { view throws(LayoutError) in
                try view.configure(changes, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        }
    }

    /// - Parameter registry: the daemon's strategies now (a reload may have added some).
    func setStrategy(_ params: inout ParamsReader, registry: () -> StrategyRegistry) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let strategy = try params.string("strategy")
            let parameters = try WireMapping.parameters(try params.optionalObject("params"))
            let strategies = registry()
            return Mutation { view throws(LayoutError) in
                try view.switchStrategy(
                    to: strategy, parameters: parameters, animated: options.animated, ifEpoch: options.ifEpoch, registry: strategies,
                    anchor: options.policy)
            }
        }
    }

    /// `view.scrollTo`: an element placed exactly, and kept there while the content settles.
    func scrollTo(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let id = try params.string("id")
            let kindName = try params.optionalString("kind") ?? "cell"
            let alignName = try params.optionalString("align") ?? "start"
            let offset = try params.optionalNumber("offset") ?? 0
            guard WireAnchor.isKindName(kindName) else { throw .invalidParams("params.kind", "must be an element kind name of 1 to 64 bytes") }
            let kind = ElementKind(rawValue: kindName)
            guard let align = ScrollAlignment(rawValue: alignName) else {
                throw .invalidParams("params.align", "must be start, center, end or nearest")
            }
            return Mutation { view throws(LayoutError) in
                try view.scrollTo(ElementKey(kind: kind, id: id), align: align, offset: offset, ifEpoch: options.ifEpoch)
            }
        }
    }

    /// `view.setAnchor`: the view's anchor policy.
    func setAnchor(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (_, options) throws(WireError) in
            // The common `anchor` field is this method's own value.
            guard let wire = options.anchor else { throw .invalidParams("params.anchor", "is required") }
            return Mutation { view throws(LayoutError) in try view.setAnchor(WireMapping.anchor(wire), ifEpoch: options.ifEpoch) }
        }
    }

    /// `view.setLayoutDirection`: left to right or right to left, the anchor kept.
    func setLayoutDirection(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let direction = try LayoutService.layoutDirection(try params.string("layoutDirection"))
            return Mutation { view throws(LayoutError) in
                try view.setLayoutDirection(direction, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        }
    }

    /// `view.beginMove`: starts dragging an item (`View.beginMove`).
    func beginMove(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let id = try params.string("id")
            let point = try params.optionalPoint("point")
            if let point, !point.isFinite { throw .invalidParams("params.point", "must be finite") }
            return Mutation { view throws(LayoutError) in try view.beginMove(id, at: point, ifEpoch: options.ifEpoch) }
        }
    }

    /// `view.updateMove`: the finger's new place, in viewport coordinates.
    func updateMove(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let point = try params.point("point")
            guard point.isFinite else { throw .invalidParams("params.point", "must be finite") }
            return Mutation { view throws(LayoutError) in try view.updateMove(to: point, ifEpoch: options.ifEpoch) }
        }
    }

    /// `view.endMove`: drop (commit) or cancel. The result always carries the transition into
    /// place: the drop is what the client animates, whatever `animated` says.
    func endMove(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            guard let commit = try params.optionalBool("commit") else { throw .invalidParams("params.commit", "is required") }
            return Mutation { view throws(LayoutError) in try view.endMove(commit: commit, animated: true, ifEpoch: options.ifEpoch) }
        }
    }

    func setWindowMargin(_ params: inout ParamsReader) throws(WireError) -> ViewReply {
        try mutate(&params) { (params, options) throws(WireError) in
            let margin = try params.number("margin")
            return Mutation { view throws(LayoutError) in try view.setWindowMargin(margin, ifEpoch: options.ifEpoch) }
        }
    }

    /// A hot mutation whose params are read already (by `ParamsReader` or straight from the
    /// line's bytes): both paths run this one action.
    func mutate(_ hot: HotRequest.Params) throws(WireError) -> ViewReply {
        let mutation: Mutation
        let options: MutationOptions
        switch hot {
        case .scroll(let params):
            try params.validate()
            options = params.options
            mutation = Mutation(
                action: { view throws(LayoutError) in try view.scroll(to: params.offset, ifEpoch: options.ifEpoch) },
                prefetch: params.velocity.map { velocity in
                    let horizon = params.horizon ?? ScrollParams.defaultHorizon
                    return { view in
                        view.layout.prefetch(window: view.window, velocity: velocity, horizon: horizon, maximum: view.limits.maximumWindowElements)
                    }
                })
        case .select(let params):
            options = params.options
            // The wire's modes are the engine's, name for name.
            let mode = SelectionMode(rawValue: params.mode.rawValue)!
            mutation = Mutation { view throws(LayoutError) in
                try view.select(params.ids, mode: mode, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        case .measure(let params):
            options = params.options
            // Cells are items; every other kind names a supplementary element (self-sizing).
            let sizes = params.sizes.filter { $0.kind == "cell" }.map { (id: $0.id, size: $0.size) }
            let supplementary = params.sizes.filter { $0.kind != "cell" }.map {
                (key: ElementKey(kind: ElementKind(rawValue: $0.kind), id: $0.id), size: $0.size)
            }
            mutation = Mutation { view throws(LayoutError) in
                try view.measure(
                    sizes, supplementary: supplementary, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        case .update(let params):
            options = params.options
            let updates = params.updates.map(WireMapping.update)
            mutation = Mutation(growth: Self.growth(of: updates, in: view.model)) { view throws(LayoutError) in
                try view.performBatch(updates, animated: options.animated, ifEpoch: options.ifEpoch, anchor: options.policy)
            }
        }
        return try apply(mutation, dryRun: options.dryRun)
    }

    /// The common tail of every mutation, once its params are all read: reserve the growth,
    /// run the action on the view (or, for a dry run, on a copy), release what was not used.
    /// An applied mutation's reply is also every subscriber's `view.invalidated` event; a dry
    /// run changed nothing, so there is nothing to tell them.
    private func apply(_ mutation: Mutation, dryRun: Bool) throws(WireError) -> ViewReply {
        let growth = mutation.growth
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
            invalidation = try mutation.action(target)
        } catch {
            itemBudget.release(max(growth, 0))
            throw error.wire
        }
        let prefetch = mutation.prefetch?(target)
        guard !dryRun else {
            itemBudget.release(max(growth, 0))
            return (WireMapping.encodedInvalidation(invalidation, view: name, prefetch: prefetch, dryRun: true, listedIDBytes: lineLength), [])
        }
        itemBudget.release(max(growth, 0) - (view.model.numberOfItems - countBefore))
        refreshSummary()
        // Data replaced by less (a setData or update that deletes many items) is freed with
        // this block's invalidation and old model.
        FreedMemory.release(items: countBefore - view.model.numberOfItems, after: queue)
        let result = WireMapping.encodedInvalidation(invalidation, view: name, prefetch: prefetch, listedIDBytes: lineLength)
        return (result, invalidated(result, invalidation))
    }
}
