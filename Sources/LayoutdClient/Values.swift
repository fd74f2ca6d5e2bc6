import LayoutGeometry
import LayoutProtocol

// The protocol's result and event objects as Swift values (protocol/views.md, mutations.md,
// subscriptions.md), read from the parsed line: no Codable, no Foundation. Every value keeps
// the object it was read from (`json`), so a field this version does not model is still there.

/// Why a value could not be read from what the daemon sent.
public struct DecodingFailure: Error, CustomStringConvertible, Sendable {
    public var description: String
}

/// Reads the protocol's compact forms out of a parsed object.
struct Fields {
    let object: JSONObject
    let context: String

    init(_ value: JSONValue?, _ context: String) throws(DecodingFailure) {
        guard let object = value?.objectValue else { throw DecodingFailure(description: "\(context): not an object") }
        self.object = object
        self.context = context
    }

    func fail(_ key: String) -> DecodingFailure { DecodingFailure(description: "\(context).\(key): missing or of the wrong type") }

    func string(_ key: String) throws(DecodingFailure) -> String {
        guard let value = object[key]?.stringValue else { throw fail(key) }
        return value
    }

    func number(_ key: String) throws(DecodingFailure) -> Double {
        guard let value = object[key]?.numberValue else { throw fail(key) }
        return value
    }

    func integer(_ key: String) throws(DecodingFailure) -> Int {
        guard let value = object[key]?.integerValue else { throw fail(key) }
        return value
    }

    func point(_ key: String) throws(DecodingFailure) -> Point { try WireDecode.point(object[key], "\(context).\(key)") }

    func size(_ key: String) throws(DecodingFailure) -> Size { try WireDecode.size(object[key], "\(context).\(key)") }

    func rect(_ key: String) throws(DecodingFailure) -> Rect { try WireDecode.rect(object[key], "\(context).\(key)") }

    func array(_ key: String) throws(DecodingFailure) -> [JSONValue] {
        guard let value = object[key]?.arrayValue else { throw fail(key) }
        return value
    }

    func strings(_ key: String) throws(DecodingFailure) -> [String]? {
        guard let values = object[key]?.arrayValue else { return nil }
        var result = [String]()
        for value in values {
            guard let string = value.stringValue else { throw fail(key) }
            result.append(string)
        }
        return result
    }
}

/// What kind of element: a cell, a section's header or footer, or a kind a layout names
/// (compositional's backgrounds, badges, other boundary items).
public struct ElementKind: RawRepresentable, Hashable, Sendable, Comparable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let cell = ElementKind(rawValue: "cell")
    public static let header = ElementKind(rawValue: "header")
    public static let footer = ElementKind(rawValue: "footer")

    /// The daemon's order: cells, headers, footers, then other kinds by name.
    public static func < (lhs: ElementKind, rhs: ElementKind) -> Bool {
        func rank(_ kind: ElementKind) -> Int { ["cell": 0, "header": 1, "footer": 2][kind.rawValue] ?? 3 }
        return (rank(lhs), lhs.rawValue) < (rank(rhs), rhs.rawValue)
    }
}

/// An element's identity in a window: `(kind, id)`, the id an item's (cells) or a section's.
public struct ElementKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var kind: ElementKind
    public var id: String

    public init(kind: ElementKind, id: String) {
        self.kind = kind
        self.id = id
    }

    /// The daemon's order: by kind (cell, header, footer, others by name), then by id.
    public static func < (lhs: ElementKey, rhs: ElementKey) -> Bool {
        lhs.kind != rhs.kind ? lhs.kind < rhs.kind : lhs.id < rhs.id
    }

    public var description: String { "\(kind.rawValue):\(id)" }

    init(_ value: JSONValue, _ context: String) throws(DecodingFailure) {
        let fields = try Fields(value, context)
        let name = try fields.string("kind")
        guard !name.isEmpty else { throw fields.fail("kind") }
        self.init(kind: ElementKind(rawValue: name), id: try fields.string("id"))
    }
}

/// An affine transform applied about the centre of an element's frame (`CGAffineTransform`).
public struct Transform: Hashable, Sendable {
    public var a, b, c, d, tx, ty: Double

    public static let identity = Transform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        (self.a, self.b, self.c, self.d, self.tx, self.ty) = (a, b, c, d, tx, ty)
    }
}

/// One element's layout (protocol/views.md, "The attributes object").
public struct Attributes: Hashable, Sendable {
    public var id: String
    public var kind: ElementKind
    public var section: Int
    /// The item's index in its section; nil for headers and footers.
    public var item: Int?
    public var frame: Rect
    public var zIndex: Int
    public var alpha: Double
    public var hidden: Bool
    public var transform: Transform
    /// Named numbers for the client to apply (ultravisual's `coverAlpha`, ...).
    public var effects: [String: Double]

    public var key: ElementKey { ElementKey(kind: kind, id: id) }

    public init(
        id: String, kind: ElementKind, section: Int, item: Int?, frame: Rect, zIndex: Int = 0, alpha: Double = 1, hidden: Bool = false,
        transform: Transform = .identity, effects: [String: Double] = [:]
    ) {
        (self.id, self.kind, self.section, self.item, self.frame) = (id, kind, section, item, frame)
        (self.zIndex, self.alpha, self.hidden, self.transform, self.effects) = (zIndex, alpha, hidden, transform, effects)
    }

    init(_ value: JSONValue, _ context: String) throws(DecodingFailure) {
        let fields = try Fields(value, context)
        let kindName = try fields.string("kind")
        guard !kindName.isEmpty else { throw fields.fail("kind") }
        let kind = ElementKind(rawValue: kindName)
        var transform = Transform.identity
        if let raw = fields.object["transform"] {
            let t = try Fields(raw, "\(context).transform")
            transform = Transform(a: try t.number("a"), b: try t.number("b"), c: try t.number("c"), d: try t.number("d"), tx: try t.number("tx"), ty: try t.number("ty"))
        }
        var effects = [String: Double]()
        for (name, number) in fields.object["effects"]?.objectValue?.pairs ?? [] {
            guard let number = number.numberValue else { throw fields.fail("effects") }
            effects[name] = number
        }
        self.init(
            id: try fields.string("id"), kind: kind, section: try fields.integer("section"), item: fields.object["item"]?.integerValue,
            frame: try fields.rect("frame"), zIndex: try fields.integer("zIndex"), alpha: try fields.number("alpha"),
            hidden: fields.object["hidden"]?.boolValue ?? false, transform: transform, effects: effects)
    }

    static func list(_ values: [JSONValue], _ context: String) throws(DecodingFailure) -> [Attributes] {
        var result = [Attributes]()
        result.reserveCapacity(values.count)
        for (index, value) in values.enumerated() { result.append(try Attributes(value, "\(context)[\(index)]")) }
        return result
    }
}

/// Content insets, UIKit's adjusted content inset.
public struct Insets: Hashable, Sendable {
    public var top, left, bottom, right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        (self.top, self.left, self.bottom, self.right) = (top, left, bottom, right)
    }
}

/// A view's viewport: size, offset and content insets.
public struct ViewportState: Hashable, Sendable {
    public var size: Size
    public var offset: Point
    public var contentInsets: Insets
}

/// A view's whole state as a client starts from it (protocol/views.md, "The snapshot object").
public struct Snapshot: Sendable {
    public var view: String
    public var strategy: String
    public var epoch: Int
    public var viewport: ViewportState
    public var windowMargin: Double
    public var window: Rect
    public var contentSize: Size
    public var sectionCount: Int
    public var itemCount: Int
    /// Every element in the window, sorted by key.
    public var elements: [Attributes]
    public var windowTruncated: Bool
    /// The object as the daemon sent it (params, anchor, scrollTarget, layoutDirection, ...).
    public var json: JSONObject

    public init(_ value: JSONValue) throws(DecodingFailure) {
        let fields = try Fields(value, "snapshot")
        let viewport = try Fields(fields.object["viewport"], "snapshot.viewport")
        let insets = try Fields(viewport.object["contentInsets"], "snapshot.viewport.contentInsets")
        view = try fields.string("view")
        strategy = try fields.string("strategy")
        epoch = try fields.integer("epoch")
        self.viewport = ViewportState(
            size: Size(width: try viewport.number("width"), height: try viewport.number("height")), offset: try viewport.point("offset"),
            contentInsets: Insets(top: try insets.number("top"), left: try insets.number("left"), bottom: try insets.number("bottom"), right: try insets.number("right")))
        windowMargin = try fields.number("windowMargin")
        window = try fields.rect("window")
        contentSize = try fields.size("contentSize")
        sectionCount = try fields.integer("sectionCount")
        itemCount = try fields.integer("itemCount")
        elements = try Attributes.list(try fields.array("elements"), "snapshot.elements")
        windowTruncated = fields.object["windowTruncated"]?.boolValue ?? false
        json = fields.object
    }
}

/// One element's part of an animation: from, to, and when (protocol/mutations.md, "transition").
public struct TransitionSegment: Hashable, Sendable {
    public var key: ElementKey
    public var from: Attributes
    public var to: Attributes
    public var delay: Double
    public var duration: Double
    /// How progress runs over the segment's time; `linear` when the daemon names none (a
    /// daemon older than the field).
    public var curve: AnimationCurve
}

/// An animation plan: every segment, ordered by delay, then key.
public struct Transition: Hashable, Sendable {
    public var duration: Double
    public var segments: [TransitionSegment]

    init(_ value: JSONValue) throws(DecodingFailure) {
        let fields = try Fields(value, "transition")
        duration = try fields.number("duration")
        segments = []
        for (index, raw) in try fields.array("segments").enumerated() {
            let context = "transition.segments[\(index)]"
            let segment = try Fields(raw, context)
            segments.append(
                TransitionSegment(
                    key: try ElementKey(raw, context), from: try Attributes(segment.object["from"] ?? .null, context + ".from"),
                    to: try Attributes(segment.object["to"] ?? .null, context + ".to"), delay: try segment.number("delay"),
                    duration: try segment.number("duration"), curve: try Self.curve(segment, context)))
        }
    }
}

extension Transition {
    /// A segment's `curve`, by name; an unknown name is a decoding failure (the protocol lists them all).
    static func curve(_ segment: Fields, _ context: String) throws(DecodingFailure) -> AnimationCurve {
        guard let name = segment.object["curve"]?.stringValue else { return .linear }
        guard let curve = AnimationCurve(rawValue: name) else {
            throw DecodingFailure(description: "\(context).curve: unknown curve \(name)")
        }
        return curve
    }
}

/// What one applied mutation changed in the window (protocol/mutations.md, "The invalidation object").
public struct Invalidation: Sendable {
    public var view: String
    public var epoch: Int
    public var contentSize: Size
    public var contentOffset: Point
    public var window: Rect
    public var entered: [Attributes]
    public var changed: [Attributes]
    public var left: [ElementKey]
    public var windowTruncated: Bool
    public var anchor: String?
    public var anchorPolicy: String?
    public var targetContentOffset: Point?
    public var transition: Transition?
    public var prefetch: [String]?
    public var needsMeasure: [String]?
    public var dryRun: Bool
    /// The object as the daemon sent it (context, changes, and fields newer than this client).
    public var json: JSONObject

    public init(_ value: JSONValue) throws(DecodingFailure) {
        let fields = try Fields(value, "invalidation")
        view = try fields.string("view")
        epoch = try fields.integer("epoch")
        contentSize = try fields.size("contentSize")
        contentOffset = try fields.point("contentOffset")
        window = try fields.rect("window")
        entered = try Attributes.list(try fields.array("entered"), "invalidation.entered")
        changed = try Attributes.list(try fields.array("changed"), "invalidation.changed")
        left = []
        for (index, raw) in try fields.array("left").enumerated() { left.append(try ElementKey(raw, "invalidation.left[\(index)]")) }
        windowTruncated = fields.object["windowTruncated"]?.boolValue ?? false
        anchor = fields.object["anchor"]?.stringValue
        anchorPolicy = fields.object["anchorPolicy"]?.stringValue
        targetContentOffset = fields.object["targetContentOffset"] != nil ? try fields.point("targetContentOffset") : nil
        transition = try fields.object["transition"].map { value throws(DecodingFailure) in try Transition(value) }
        prefetch = try fields.strings("prefetch")
        needsMeasure = try fields.strings("needsMeasure")
        dryRun = fields.object["dryRun"]?.boolValue ?? false
        json = fields.object
    }
}

/// An event line (protocol/subscriptions.md).
public enum Event: Sendable {
    case invalidated(subscription: Int, Invalidation)
    case resync(subscription: Int, skipped: Int, Snapshot)
    case deleted(subscription: Int, view: String)
    case shutdown(JSONObject)
    /// The connection's `seq` skipped: events were lost, every mirror must start again.
    case gap(expected: Int, received: Int)
    /// An event this client does not model (clients must ignore unknown events).
    case other(name: String, subscription: Int?, params: JSONObject)

    /// The subscription the event is for, when it is for one.
    public var subscription: Int? {
        switch self {
        case .invalidated(let id, _), .resync(let id, _, _), .deleted(let id, _): id
        case .other(_, let id, _): id
        case .shutdown, .gap: nil
        }
    }

    init(_ message: JSONObject) throws(DecodingFailure) {
        let name = message["event"]?.stringValue ?? ""
        let subscription = message["subscription"]?.integerValue
        let params = message["params"] ?? .object([:])
        switch (name, subscription) {
        case ("view.invalidated", let id?): self = .invalidated(subscription: id, try Invalidation(params))
        case ("view.resync", let id?):
            let fields = try Fields(params, "view.resync")
            self = .resync(subscription: id, skipped: fields.object["skipped"]?.integerValue ?? 0, try Snapshot(fields.object["snapshot"] ?? .null))
        case ("view.deleted", let id?): self = .deleted(subscription: id, view: params["view"]?.stringValue ?? "")
        case ("daemon.shutdown", _): self = .shutdown(params.objectValue ?? [:])
        default: self = .other(name: name, subscription: subscription, params: params.objectValue ?? [:])
        }
    }
}
