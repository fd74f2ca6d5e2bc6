import LayoutGeometry

/// An element's attributes as the wire carries them:
/// `{"id", "kind", "section", "item"?, "frame": {x, y, width, height}, "zIndex", "alpha",
/// "hidden", "transform"?, "effects"?}`. `item` is absent for headers and footers,
/// `transform` when it is the identity, `effects` when there are none (keys sorted).
public struct WireAttributes: Hashable, Sendable {
    public var id: String
    public var kind: String
    public var section: Int
    public var item: Int?
    public var frame: Rect
    public var zIndex: Int
    public var alpha: Double
    public var hidden: Bool
    public var transform: Transform2D
    public var effects: [String: Double]

    public init(
        id: String, kind: String, section: Int, item: Int?, frame: Rect, zIndex: Int = 0, alpha: Double = 1,
        hidden: Bool = false, transform: Transform2D = .identity, effects: [String: Double] = [:]
    ) {
        self.id = id
        self.kind = kind
        self.section = section
        self.item = item
        self.frame = frame
        self.zIndex = zIndex
        self.alpha = alpha
        self.hidden = hidden
        self.transform = transform
        self.effects = effects
    }
}

extension JSONValue {
    /// `{"x", "y", "width", "height"}`.
    public static func rect(_ rect: Rect) -> JSONValue {
        .object(["x": .number(rect.minX), "y": .number(rect.minY), "width": .number(rect.width), "height": .number(rect.height)])
    }

    /// `{"width", "height"}`.
    public static func size(_ size: Size) -> JSONValue {
        .object(["width": .number(size.width), "height": .number(size.height)])
    }

    /// `{"x", "y"}`.
    public static func point(_ point: Point) -> JSONValue {
        .object(["x": .number(point.x), "y": .number(point.y)])
    }

    /// `{"top", "left", "bottom", "right"}`.
    public static func insets(_ insets: EdgeInsets) -> JSONValue {
        .object([
            "top": .number(insets.top), "left": .number(insets.left), "bottom": .number(insets.bottom),
            "right": .number(insets.right),
        ])
    }
}

extension WireAttributes {
    public var json: JSONValue {
        var object: JSONObject = ["id": .string(id), "kind": .string(kind), "section": .number(Double(section))]
        if let item { object["item"] = .number(Double(item)) }
        object["frame"] = .rect(frame)
        object["zIndex"] = .number(Double(zIndex))
        object["alpha"] = .number(alpha)
        object["hidden"] = .bool(hidden)
        if !transform.isIdentity {
            object["transform"] = .object([
                "a": .number(transform.a), "b": .number(transform.b), "c": .number(transform.c), "d": .number(transform.d),
                "tx": .number(transform.tx), "ty": .number(transform.ty),
            ])
        }
        if !effects.isEmpty {
            var sorted = JSONObject()
            for key in effects.keys.sorted() { sorted[key] = .number(effects[key]!) }
            object["effects"] = .object(sorted)
        }
        return .object(object)
    }
}

extension JSONWriter {
    /// Writes `attributes` exactly as `attributes.json` would be written, without building the
    /// `JSONValue` tree first: a scroll reply carries about a hundred of these, and the tree
    /// (an ordered object per element and per frame) cost microseconds each.
    public mutating func write(_ attributes: WireAttributes) {
        append(UInt8(ascii: "{"))
        writeKey("id", first: true)
        write(attributes.id)
        writeKey("kind", first: false)
        write(attributes.kind)
        writeKey("section", first: false)
        writeInteger(Int64(attributes.section))
        if let item = attributes.item {
            writeKey("item", first: false)
            writeInteger(Int64(item))
        }
        writeKey("frame", first: false)
        write(rect: attributes.frame)
        writeKey("zIndex", first: false)
        writeInteger(Int64(attributes.zIndex))
        writeKey("alpha", first: false)
        write(attributes.alpha)
        writeKey("hidden", first: false)
        write(.bool(attributes.hidden))
        if !attributes.transform.isIdentity || !attributes.effects.isEmpty {
            // Rare (ultravisual's effects, transitions' transforms): the general path keeps
            // their formatting in one place.
            if case .object(let object) = attributes.json {
                for key in ["transform", "effects"] {
                    if let value = object[key] {
                        writeKey(key, first: false)
                        write(value)
                    }
                }
            }
        }
        append(UInt8(ascii: "}"))
    }

    /// `{"x","y","width","height"}`, as `JSONValue.rect` writes it.
    public mutating func write(rect: Rect) {
        append(UInt8(ascii: "{"))
        writeKey("x", first: true)
        write(rect.minX)
        writeKey("y", first: false)
        write(rect.minY)
        writeKey("width", first: false)
        write(rect.width)
        writeKey("height", first: false)
        write(rect.height)
        append(UInt8(ascii: "}"))
    }
}
