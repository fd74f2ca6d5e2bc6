import LayoutGeometry

// Typed params of the hot mutations (`view.scroll`, `view.select`, `view.measure`,
// `view.update`). Each has two decoders that must agree: `init(_: inout ParamsReader)` (the
// general path: exactly the reads, defaults and error messages `ViewHost.mutate` makes, in
// its order) and the byte decoder in `HotRequest.swift`, which reads the request line itself
// and gives up (nil) on anything it cannot accept for certain. `HotRequestTests` and the
// `hot` fuzz target hold them to that.

/// What every mutation reads: `view`, then `animated` (default false), `ifEpoch` (an
/// integer or absent), `dryRun` (default false), `anchor` (absent: the view's policy). `null`
/// counts as absent for the optional ones.
public struct MutationOptions: Hashable, Sendable {
    public var view: String
    public var animated: Bool
    public var ifEpoch: Int?
    public var dryRun: Bool
    /// The request's own anchor policy; nil: the view's (or a `scrollTo` target in force).
    public var anchor: WireAnchor?

    public init(view: String, animated: Bool = false, ifEpoch: Int? = nil, dryRun: Bool = false, anchor: WireAnchor? = nil) {
        self.view = view
        self.animated = animated
        self.ifEpoch = ifEpoch
        self.dryRun = dryRun
        self.anchor = anchor
    }

    /// Reads `view`, `animated`, `ifEpoch`, `dryRun` and `anchor`, in that order (the service
    /// reads `view` before it looks the view up, the rest on the view's queue).
    public init(_ reader: inout ParamsReader) throws(WireError) {
        view = try reader.string("view")
        animated = try reader.optionalBool("animated") ?? false
        ifEpoch = try reader.optionalInteger("ifEpoch")
        dryRun = try reader.optionalBool("dryRun") ?? false
        anchor = try WireAnchor.read(&reader)
    }
}

/// `view.scroll`: `{view, offset: {x, y}, animated?, ifEpoch?, dryRun?}`.
public struct ScrollParams: Hashable, Sendable {
    public var options: MutationOptions
    public var offset: Point
    /// How fast the client is scrolling (points per second): asks for `prefetch` in the reply.
    public var velocity: Point?
    /// How far ahead `prefetch` looks, in seconds (default `defaultHorizon`).
    public var horizon: Double?

    /// 250 ms: what an image takes to arrive over a slow network, about.
    public static let defaultHorizon = 0.25
    /// The longest horizon a request may ask for.
    public static let maximumHorizon = 5.0

    public init(options: MutationOptions, offset: Point, velocity: Point? = nil, horizon: Double? = nil) {
        self.options = options
        self.offset = offset
        self.velocity = velocity
        self.horizon = horizon
    }

    public init(_ reader: inout ParamsReader) throws(WireError) {
        options = try MutationOptions(&reader)
        offset = try reader.point("offset")
        velocity = try reader.optionalPoint("velocity")
        horizon = try reader.optionalNumber("horizon")
        try reader.finish()
    }

    /// Checks what the types alone do not: a horizon only with a velocity, and in range.
    public func validate() throws(WireError) {
        guard let horizon else { return }
        guard velocity != nil else { throw .invalidParams("params.horizon", "needs velocity") }
        guard horizon > 0, horizon <= Self.maximumHorizon else {
            throw .invalidParams("params.horizon", "must be more than 0 and at most \(Int(Self.maximumHorizon)) seconds")
        }
    }
}

/// `view.select`'s modes, as the wire names them (the engine's `SelectionMode` has the same
/// raw values).
public enum SelectMode: String, Hashable, Sendable, CaseIterable {
    case set, add, remove, toggle
}

/// `view.select`: `{view, ids: [...], mode?: set|add|remove|toggle (default set), ...}`.
public struct SelectParams: Hashable, Sendable {
    public var options: MutationOptions
    public var ids: [String]
    public var mode: SelectMode

    public init(options: MutationOptions, ids: [String], mode: SelectMode = .set) {
        self.options = options
        self.ids = ids
        self.mode = mode
    }

    public init(_ reader: inout ParamsReader) throws(WireError) {
        options = try MutationOptions(&reader)
        ids = try reader.stringArray("ids")
        let modeName = try reader.optionalString("mode") ?? "set"
        guard let mode = SelectMode(rawValue: modeName) else {
            throw .invalidParams("params.mode", "must be set, add, remove or toggle")
        }
        self.mode = mode
        try reader.finish()
    }
}

/// `view.measure`: `{view, sizes: [{kind?, id, size: {width, height}}], ...}`.
public struct MeasureParams: Hashable, Sendable {
    public struct Entry: Hashable, Sendable {
        /// What `id` names: `cell` (an item, the default) or a supplementary element's kind.
        public var kind: String
        public var id: String
        public var size: Size

        public init(kind: String = "cell", id: String, size: Size) {
            self.kind = kind
            self.id = id
            self.size = size
        }
    }

    public var options: MutationOptions
    public var sizes: [Entry]

    public init(options: MutationOptions, sizes: [Entry]) {
        self.options = options
        self.sizes = sizes
    }

    public init(_ reader: inout ParamsReader) throws(WireError) {
        options = try MutationOptions(&reader)
        var sizes = [Entry]()
        for var entry in try reader.objects("sizes") {
            let kind = try entry.optionalString("kind") ?? "cell"
            sizes.append(Entry(kind: kind, id: try entry.string("id"), size: try entry.size("size")))
            try entry.finish()
        }
        self.sizes = sizes
        try reader.finish()
    }
}

/// `view.update`: `{view, updates: [WireUpdate], ...}`.
public struct UpdateParams: Hashable, Sendable {
    public var options: MutationOptions
    public var updates: [WireUpdate]

    public init(options: MutationOptions, updates: [WireUpdate]) {
        self.options = options
        self.updates = updates
    }

    public init(_ reader: inout ParamsReader) throws(WireError) {
        options = try MutationOptions(&reader)
        updates = try WireModel.updates(&reader, "updates")
        try reader.finish()
    }
}
