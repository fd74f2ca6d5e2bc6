import LayoutGeometry
import LayoutProtocol

// What a caller hands the daemon, as Swift values, and every protocol method as a typed call.
// A method this version does not model is `LayoutdConnection.call(_:_:)` with a JSONObject.

func json(_ size: Size) -> JSONValue { .object(["width": .number(size.width), "height": .number(size.height)]) }
func json(_ point: Point) -> JSONValue { .object(["x": .number(point.x), "y": .number(point.y)]) }
func json(_ rect: Rect) -> JSONValue {
    .object(["x": .number(rect.minX), "y": .number(rect.minY), "width": .number(rect.width), "height": .number(rect.height)])
}

/// An item as `view.create` and the data methods take it.
public struct Item: Hashable, Sendable {
    public var id: String
    public var size: Size?
    public var estimatedSize: Size?
    public var selectedSize: Size?

    public init(_ id: String, size: Size? = nil, estimatedSize: Size? = nil, selectedSize: Size? = nil) {
        (self.id, self.size, self.estimatedSize, self.selectedSize) = (id, size, estimatedSize, selectedSize)
    }

    var json: JSONValue {
        var object: JSONObject = ["id": .string(id)]
        if let size { object["size"] = LayoutdClient.json(size) }
        if let estimatedSize { object["estimatedSize"] = LayoutdClient.json(estimatedSize) }
        if let selectedSize { object["selectedSize"] = LayoutdClient.json(selectedSize) }
        return .object(object)
    }
}

/// A section with its items and optional header and footer sizes.
public struct Section: Hashable, Sendable {
    public var id: String
    public var items: [Item]
    public var headerSize: Size?
    public var footerSize: Size?

    public init(_ id: String, items: [Item], headerSize: Size? = nil, footerSize: Size? = nil) {
        (self.id, self.items, self.headerSize, self.footerSize) = (id, items, headerSize, footerSize)
    }

    var json: JSONValue {
        var object: JSONObject = ["id": .string(id), "items": .array(items.map(\.json))]
        if let headerSize { object["headerSize"] = LayoutdClient.json(headerSize) }
        if let footerSize { object["footerSize"] = LayoutdClient.json(footerSize) }
        return .object(object)
    }
}

/// One change of an atomic `view.update` batch, positions final (protocol/mutations.md).
public enum Update: Hashable, Sendable {
    case insertItems([Item], section: String, at: Int)
    case deleteItems([String])
    case moveItem(String, section: String, at: Int)
    case reloadItems([Item])
    case insertSections([Section], at: Int)
    case deleteSections([String])
    case moveSection(String, at: Int)
    case reloadSections([Section])

    var json: JSONValue {
        switch self {
        case .insertItems(let items, let section, let at):
            .object(["op": .string("insertItems"), "section": .string(section), "at": .number(Double(at)), "items": .array(items.map(\.json))])
        case .deleteItems(let ids): .object(["op": .string("deleteItems"), "ids": .array(ids.map(JSONValue.string))])
        case .moveItem(let id, let section, let at): .object(["op": .string("moveItem"), "id": .string(id), "section": .string(section), "at": .number(Double(at))])
        case .reloadItems(let items): .object(["op": .string("reloadItems"), "items": .array(items.map(\.json))])
        case .insertSections(let sections, let at): .object(["op": .string("insertSections"), "at": .number(Double(at)), "sections": .array(sections.map(\.json))])
        case .deleteSections(let ids): .object(["op": .string("deleteSections"), "ids": .array(ids.map(JSONValue.string))])
        case .moveSection(let id, let at): .object(["op": .string("moveSection"), "id": .string(id), "at": .number(Double(at))])
        case .reloadSections(let sections): .object(["op": .string("reloadSections"), "sections": .array(sections.map(\.json))])
        }
    }
}

/// The options every mutation takes (protocol/mutations.md, "Common parameters").
public struct MutationOptions: Sendable {
    public var animated: Bool?
    public var ifEpoch: Int?
    /// An anchor policy as the protocol writes it: a name, or `{"id", "kind"?, "edge"?, "offset"?}`.
    public var anchor: JSONValue?
    public var dryRun: Bool?

    public init(animated: Bool? = nil, ifEpoch: Int? = nil, anchor: JSONValue? = nil, dryRun: Bool? = nil) {
        (self.animated, self.ifEpoch, self.anchor, self.dryRun) = (animated, ifEpoch, anchor, dryRun)
    }

    public static let none = MutationOptions()

    func adding(to params: JSONObject) -> JSONObject {
        var params = params
        if let animated { params["animated"] = .bool(animated) }
        if let ifEpoch { params["ifEpoch"] = .number(Double(ifEpoch)) }
        if let anchor { params["anchor"] = anchor }
        if let dryRun { params["dryRun"] = .bool(dryRun) }
        return params
    }
}

extension LayoutdConnection {
    func decoded<T>(_ result: JSONValue, _ read: (JSONValue) throws(DecodingFailure) -> T) throws(LayoutdError) -> T {
        do {
            return try read(result)
        } catch {
            throw .malformed(error.description)
        }
    }

    /// A mutating method: its invalidation.
    public func mutate(_ method: String, view: String, _ params: JSONObject = [:], options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        var params = options.adding(to: params)
        params["view"] = .string(view)
        return try decoded(try await call(method, params)) { value throws(DecodingFailure) in try Invalidation(value) }
    }

    // MARK: Daemon

    /// `daemon.hello`: versions and limits.
    public func hello() async throws(LayoutdError) -> JSONObject { try await call("daemon.hello").objectValue ?? [:] }

    /// `strategy.list`: every strategy's descriptor, plugins included.
    public func strategies() async throws(LayoutdError) -> [JSONValue] { try await call("strategy.list")["strategies"]?.arrayValue ?? [] }

    // MARK: Views

    /// `view.create`: a new view; its snapshot at epoch 0.
    public func createView(
        _ view: String, strategy: String, params: JSONObject = [:], viewport: Size, offset: Point? = nil, sections: [Section],
        windowMargin: Double? = nil, anchor: JSONValue? = nil, layoutDirection: String? = nil
    ) async throws(LayoutdError) -> Snapshot {
        var viewportObject: JSONObject = ["width": .number(viewport.width), "height": .number(viewport.height)]
        if let offset { viewportObject["offset"] = json(offset) }
        var request: JSONObject = [
            "view": .string(view), "strategy": .string(strategy), "params": .object(params), "viewport": .object(viewportObject),
            "sections": .array(sections.map(\.json)),
        ]
        if let windowMargin { request["windowMargin"] = .number(windowMargin) }
        if let anchor { request["anchor"] = anchor }
        if let layoutDirection { request["layoutDirection"] = .string(layoutDirection) }
        return try decoded(try await call("view.create", request)) { value throws(DecodingFailure) in try Snapshot(value) }
    }

    /// `view.get`: the view's snapshot.
    public func snapshot(_ view: String) async throws(LayoutdError) -> Snapshot {
        try decoded(try await call("view.get", ["view": .string(view)])) { value throws(DecodingFailure) in try Snapshot(value) }
    }

    /// `view.query`: every element whose frame meets `rect`.
    public func query(_ view: String, rect: Rect) async throws(LayoutdError) -> [Attributes] {
        let result = try await call("view.query", ["view": .string(view), "rect": json(rect)])
        return try decoded(result) { value throws(DecodingFailure) in try Attributes.list(value["elements"]?.arrayValue ?? [], "elements") }
    }

    /// `view.hitTest`: the topmost element at `point`, or nil.
    public func hitTest(_ view: String, point: Point, kinds: [ElementKind]? = nil) async throws(LayoutdError) -> Attributes? {
        var params: JSONObject = ["view": .string(view), "point": json(point)]
        if let kinds { params["kinds"] = .array(kinds.map { .string($0.rawValue) }) }
        let result = try await call("view.hitTest", params)
        guard let element = result["element"], element != .null else { return nil }
        return try decoded(element) { value throws(DecodingFailure) in try Attributes(value, "element") }
    }

    /// `view.neighbor`: the item a keyboard moves to from `id` (`up`, `down`, `left`, `right`,
    /// `next`, `previous`), or nil.
    public func neighbor(_ view: String, of id: String, direction: String) async throws(LayoutdError) -> Attributes? {
        let result = try await call("view.neighbor", ["view": .string(view), "id": .string(id), "direction": .string(direction)])
        guard let element = result["element"], element != .null else { return nil }
        return try decoded(element) { value throws(DecodingFailure) in try Attributes(value, "element") }
    }

    /// `view.delete`.
    public func deleteView(_ view: String) async throws(LayoutdError) { _ = try await call("view.delete", ["view": .string(view)]) }

    /// `view.subscribe`: the subscription's id and the view's snapshot, from which the events
    /// that follow go on.
    public func subscribe(_ view: String) async throws(LayoutdError) -> (subscription: Int, snapshot: Snapshot) {
        let result = try await call("view.subscribe", ["view": .string(view)])
        guard let id = result["subscription"]?.integerValue else { throw .malformed("view.subscribe without subscription") }
        return (id, try decoded(result["snapshot"] ?? .null) { value throws(DecodingFailure) in try Snapshot(value) })
    }

    /// `view.unsubscribe`.
    public func unsubscribe(_ subscription: Int) async throws(LayoutdError) {
        _ = try await call("view.unsubscribe", ["subscription": .number(Double(subscription))])
    }

    // MARK: Mutations

    public func setData(_ view: String, sections: [Section], options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.setData", view: view, ["sections": .array(sections.map(\.json))], options: options)
    }

    public func update(_ view: String, _ updates: [Update], options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.update", view: view, ["updates": .array(updates.map(\.json))], options: options)
    }

    public func measure(_ view: String, _ sizes: [(id: String, size: Size)], options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        let entries = sizes.map { JSONValue.object(["id": .string($0.id), "size": json($0.size)]) }
        return try await mutate("view.measure", view: view, ["sizes": .array(entries)], options: options)
    }

    /// `mode`: `set`, `add`, `remove` or `toggle`.
    public func select(_ view: String, _ ids: [String], mode: String = "set", options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.select", view: view, ["ids": .array(ids.map(JSONValue.string)), "mode": .string(mode)], options: options)
    }

    /// `velocity` (points per second) asks for `prefetch` in the reply.
    public func scroll(_ view: String, to offset: Point, velocity: Point? = nil, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        var params: JSONObject = ["offset": json(offset)]
        if let velocity { params["velocity"] = json(velocity) }
        return try await mutate("view.scroll", view: view, params, options: options)
    }

    public func scrollEnd(_ view: String, proposed: Point, velocity: Point = Point(x: 0, y: 0), options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.scrollEnd", view: view, ["proposed": json(proposed), "velocity": json(velocity)], options: options)
    }

    /// `align`: `start`, `center`, `end` or `nearest`; `kind` names a header or footer by section id.
    public func scrollTo(
        _ view: String, id: String, kind: ElementKind = .cell, align: String = "start", offset: Double = 0, options: MutationOptions = .none
    ) async throws(LayoutdError) -> Invalidation {
        try await mutate(
            "view.scrollTo", view: view, ["id": .string(id), "kind": .string(kind.rawValue), "align": .string(align), "offset": .number(offset)],
            options: options)
    }

    public func resize(_ view: String, to size: Size, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.resize", view: view, ["size": json(size)], options: options)
    }

    public func configure(_ view: String, params: JSONObject, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.configure", view: view, ["params": .object(params)], options: options)
    }

    public func setStrategy(_ view: String, _ strategy: String, params: JSONObject = [:], options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.setStrategy", view: view, ["strategy": .string(strategy), "params": .object(params)], options: options)
    }

    public func setWindowMargin(_ view: String, _ margin: Double, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.setWindowMargin", view: view, ["margin": .number(margin)], options: options)
    }

    /// `anchor`: a policy name or `{"id", "kind"?, "edge"?, "offset"?}`.
    public func setAnchor(_ view: String, _ anchor: JSONValue, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.setAnchor", view: view, ["anchor": anchor], options: options)
    }

    /// `direction`: `ltr` or `rtl`.
    public func setLayoutDirection(_ view: String, _ direction: String, options: MutationOptions = .none) async throws(LayoutdError) -> Invalidation {
        try await mutate("view.setLayoutDirection", view: view, ["layoutDirection": .string(direction)], options: options)
    }
}
