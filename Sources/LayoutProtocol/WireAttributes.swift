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
    /// `JSONValue` tree: a scroll reply carries about a hundred of these. One reservation for
    /// the whole element, constant keys as pre-made byte runs, numbers without `String`.
    ///
    /// - Complexity: O(length of the id, kind and effect names).
    public mutating func write(_ attributes: WireAttributes) {
        withSpace(WireAttributes.maximumEncodedLength(attributes)) { attributes.write(at: $0) }
    }

    /// `{"x","y","width","height"}`, as `JSONValue.rect` writes it.
    public mutating func write(rect: Rect) {
        withSpace(JSONGeometry.rectLength) { JSONGeometry.write(rect: rect, at: $0) }
    }

    /// `{"width","height"}`, as `JSONValue.size` writes it.
    public mutating func write(size: Size) {
        withSpace(JSONGeometry.sizeLength) { JSONGeometry.write(size: size, at: $0) }
    }

    /// `{"x","y"}`, as `JSONValue.point` writes it.
    public mutating func write(point: Point) {
        withSpace(JSONGeometry.pointLength) { JSONGeometry.write(point: point, at: $0) }
    }

    /// `{"top","left","bottom","right"}`, as `JSONValue.insets` writes it.
    public mutating func write(insets: EdgeInsets) {
        withSpace(4 * JSONNumber.maximumLength + 40) { out in
            var out = JSONRaw.write(#"{"top":"#, at: out)
            out = JSONNumber.write(insets.top, at: out)
            out = JSONRaw.write(#","left":"#, at: out)
            out = JSONNumber.write(insets.left, at: out)
            out = JSONRaw.write(#","bottom":"#, at: out)
            out = JSONNumber.write(insets.bottom, at: out)
            out = JSONRaw.write(#","right":"#, at: out)
            out = JSONNumber.write(insets.right, at: out)
            return JSONRaw.write("}", at: out)
        }
    }
}

/// Geometry written at a pointer inside a reservation (`JSONWriter.withSpace`), as
/// `JSONValue.rect`, `.size` and `.point` write it: the one form of each, for the writer's own
/// `write(rect:)`, `write(size:)`, `write(point:)` and for records that reserve once for many
/// values (an element's attributes, an invalidation's fixed parts).
public enum JSONGeometry {
    /// The most bytes each form takes.
    public static let rectLength = 4 * JSONNumber.maximumLength + 32
    public static let sizeLength = 2 * JSONNumber.maximumLength + 24
    public static let pointLength = 2 * JSONNumber.maximumLength + 16

    @inline(__always)
    public static func write(rect: Rect, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = JSONRaw.write(#"{"x":"#, at: out)
        out = JSONNumber.write(rect.minX, at: out)
        out = JSONRaw.write(#","y":"#, at: out)
        out = JSONNumber.write(rect.minY, at: out)
        out = JSONRaw.write(#","width":"#, at: out)
        out = JSONNumber.write(rect.width, at: out)
        out = JSONRaw.write(#","height":"#, at: out)
        out = JSONNumber.write(rect.height, at: out)
        return JSONRaw.write("}", at: out)
    }

    @inline(__always)
    public static func write(size: Size, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = JSONRaw.write(#"{"width":"#, at: out)
        out = JSONNumber.write(size.width, at: out)
        out = JSONRaw.write(#","height":"#, at: out)
        out = JSONNumber.write(size.height, at: out)
        return JSONRaw.write("}", at: out)
    }

    @inline(__always)
    public static func write(point: Point, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = JSONRaw.write(#"{"x":"#, at: out)
        out = JSONNumber.write(point.x, at: out)
        out = JSONRaw.write(#","y":"#, at: out)
        out = JSONNumber.write(point.y, at: out)
        return JSONRaw.write("}", at: out)
    }
}

extension WireAttributes {
    /// The most bytes `write(at:)` can take for `attributes`.
    @inline(__always)
    static func maximumEncodedLength(_ attributes: WireAttributes) -> Int {
        var length = 200 + 8 * JSONNumber.maximumLength + JSONString.maximumLength(attributes.id) + JSONString.maximumLength(attributes.kind)
        if !attributes.transform.isIdentity { length += 64 + 6 * JSONNumber.maximumLength }
        for (name, _) in attributes.effects { length += 2 + JSONString.maximumLength(name) + JSONNumber.maximumLength }
        return length
    }

    @inline(__always)
    func write(at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = JSONRaw.write(#"{"id":"#, at: out)
        out = JSONString.write(id, at: out)
        out = JSONRaw.write(#","kind":"#, at: out)
        out = JSONString.write(kind, at: out)
        out = JSONRaw.write(#","section":"#, at: out)
        out = JSONNumber.write(integer: Int64(section), at: out)
        if let item {
            out = JSONRaw.write(#","item":"#, at: out)
            out = JSONNumber.write(integer: Int64(item), at: out)
        }
        out = JSONRaw.write(#","frame":"#, at: out)
        out = JSONGeometry.write(rect: frame, at: out)
        out = JSONRaw.write(#","zIndex":"#, at: out)
        out = JSONNumber.write(integer: Int64(zIndex), at: out)
        out = JSONRaw.write(#","alpha":"#, at: out)
        out = JSONNumber.write(alpha, at: out)
        out = JSONRaw.write(hidden ? #","hidden":true"# : #","hidden":false"#, at: out)
        if !transform.isIdentity {
            out = JSONRaw.write(#","transform":{"a":"#, at: out)
            out = JSONNumber.write(transform.a, at: out)
            out = JSONRaw.write(#","b":"#, at: out)
            out = JSONNumber.write(transform.b, at: out)
            out = JSONRaw.write(#","c":"#, at: out)
            out = JSONNumber.write(transform.c, at: out)
            out = JSONRaw.write(#","d":"#, at: out)
            out = JSONNumber.write(transform.d, at: out)
            out = JSONRaw.write(#","tx":"#, at: out)
            out = JSONNumber.write(transform.tx, at: out)
            out = JSONRaw.write(#","ty":"#, at: out)
            out = JSONNumber.write(transform.ty, at: out)
            out = JSONRaw.write("}", at: out)
        }
        if !effects.isEmpty {
            // Sorted by key, as the tree form's sorted object was; the pairs themselves, so no
            // name is hashed and looked up again (ultravisual: three an attribute, issue 41).
            out = JSONRaw.write(#","effects":{"#, at: out)
            // Sorted in a buffer on the stack (a few effects an element: no array on the heap
            // for each one, issue 41).
            out = withUnsafeTemporaryAllocation(of: (key: String, value: Double).self, capacity: effects.count) { pairs in
                let count = pairs.initialize(fromContentsOf: effects)
                // Insertion sort in place: a handful of names (the standard sort's set-up cost
                // more than the sorting).
                for next in 1..<max(count, 1) {
                    var slot = next
                    while slot > 0, pairs[slot].key < pairs[slot - 1].key {
                        pairs.swapAt(slot, slot - 1)
                        slot -= 1
                    }
                }
                var out = out
                for index in 0..<count {
                    if index > 0 { out = JSONRaw.write(",", at: out) }
                    out = JSONString.write(pairs[index].key, at: out)
                    out = JSONRaw.write(":", at: out)
                    out = JSONNumber.write(pairs[index].value, at: out)
                }
                pairs.baseAddress!.deinitialize(count: count)
                return out
            }
            out = JSONRaw.write("}", at: out)
        }
        return JSONRaw.write("}", at: out)
    }
}
