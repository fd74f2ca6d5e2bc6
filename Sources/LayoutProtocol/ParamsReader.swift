import LayoutGeometry

/// Reads a params object strictly: each key must have the type asked for, and `finish()`
/// refuses keys nobody asked for (a misspelt parameter is an error, not a silent default).
/// Errors are `InvalidParams` with the path of the offending value (`params.items[3].size`).
public struct ParamsReader: Sendable {
    public let object: JSONObject
    public let path: String
    private var read = Set<String>()
    /// `sections` read from the line's bytes (`Request.sections`), which `object` lacks: what
    /// `WireModel.sections(_:"sections")` returns without reading `object`.
    private var decodedSections: [WireSection]?

    public init(_ object: JSONObject, path: String = "params") {
        self.object = object
        self.path = path
    }

    /// A request's params, with the sections its decoder read already.
    public init(_ request: Request) {
        self.init(request.params)
        decodedSections = request.sections
    }

    /// A request's params, its decoded sections moved into the reader (`request` is left
    /// without them): the reader then holds the only reference, and a load's wire model is
    /// freed as soon as the method has read it, not when the request goes.
    public init(taking request: inout Request) {
        self.init(request.params)
        decodedSections = request.sections
        request.sections = nil
    }

    public func has(_ key: String) -> Bool { object[key] != nil || key == "sections" && decodedSections != nil }

    /// The sections decoded with the request, once (the reader lets go of them, so the caller
    /// holds the only copy of its own), when `key` is `sections` and there are any.
    mutating func takeDecodedSections(_ key: String) -> [WireSection]? {
        guard key == "sections", let sections = decodedSections else { return nil }
        decodedSections = nil
        return sections
    }

    private func at(_ key: String) -> String { "\(path).\(key)" }

    private mutating func take(_ key: String) -> JSONValue? {
        read.insert(key)
        if case .null? = object[key] { return nil }
        return object[key]
    }

    private mutating func need(_ key: String) throws(WireError) -> JSONValue {
        guard let value = take(key) else { throw .invalidParams(at(key), "is required") }
        return value
    }

    // MARK: Scalars

    public mutating func string(_ key: String) throws(WireError) -> String {
        guard let value = try need(key).stringValue else { throw .invalidParams(at(key), "must be a string") }
        return value
    }

    public mutating func optionalString(_ key: String) throws(WireError) -> String? {
        guard let value = take(key) else { return nil }
        guard let text = value.stringValue else { throw .invalidParams(at(key), "must be a string") }
        return text
    }

    public mutating func integer(_ key: String) throws(WireError) -> Int {
        guard let value = try need(key).integerValue else { throw .invalidParams(at(key), "must be an integer") }
        return value
    }

    public mutating func optionalInteger(_ key: String) throws(WireError) -> Int? {
        guard let value = take(key) else { return nil }
        guard let integer = value.integerValue else { throw .invalidParams(at(key), "must be an integer") }
        return integer
    }

    public mutating func number(_ key: String) throws(WireError) -> Double {
        guard let value = try need(key).numberValue else { throw .invalidParams(at(key), "must be a number") }
        return value
    }

    public mutating func optionalNumber(_ key: String) throws(WireError) -> Double? {
        guard let value = take(key) else { return nil }
        guard let number = value.numberValue else { throw .invalidParams(at(key), "must be a number") }
        return number
    }

    public mutating func bool(_ key: String) throws(WireError) -> Bool {
        guard let value = try need(key).boolValue else { throw .invalidParams(at(key), "must be true or false") }
        return value
    }

    public mutating func optionalBool(_ key: String) throws(WireError) -> Bool? {
        guard let value = take(key) else { return nil }
        guard let flag = value.boolValue else { throw .invalidParams(at(key), "must be true or false") }
        return flag
    }

    public mutating func stringArray(_ key: String) throws(WireError) -> [String] {
        guard let array = try need(key).arrayValue else { throw .invalidParams(at(key), "must be an array of strings") }
        var strings = [String]()
        for (index, element) in array.enumerated() {
            guard let text = element.stringValue else { throw .invalidParams("\(at(key))[\(index)]", "must be a string") }
            strings.append(text)
        }
        return strings
    }

    /// The raw value, for parameters whose type depends on something else (strategy parameters).
    public mutating func optionalValue(_ key: String) -> JSONValue? { take(key) }

    // MARK: Nested

    public mutating func object(_ key: String) throws(WireError) -> ParamsReader {
        guard let object = try need(key).objectValue else { throw .invalidParams(at(key), "must be an object") }
        return ParamsReader(object, path: at(key))
    }

    public mutating func optionalObject(_ key: String) throws(WireError) -> ParamsReader? {
        guard let value = take(key) else { return nil }
        guard let object = value.objectValue else { throw .invalidParams(at(key), "must be an object") }
        return ParamsReader(object, path: at(key))
    }

    /// An array of objects, each with its own reader (path `key[i]`).
    public mutating func objects(_ key: String) throws(WireError) -> [ParamsReader] {
        guard let array = try need(key).arrayValue else { throw .invalidParams(at(key), "must be an array of objects") }
        var readers = [ParamsReader]()
        readers.reserveCapacity(array.count)
        for (index, element) in array.enumerated() {
            guard let object = element.objectValue else { throw .invalidParams("\(at(key))[\(index)]", "must be an object") }
            readers.append(ParamsReader(object, path: "\(at(key))[\(index)]"))
        }
        return readers
    }

    // MARK: Geometry

    /// `{"width": w, "height": h}`.
    public mutating func size(_ key: String) throws(WireError) -> Size {
        var reader = try object(key)
        return try reader.readSize()
    }

    public mutating func optionalSize(_ key: String) throws(WireError) -> Size? {
        guard var reader = try optionalObject(key) else { return nil }
        return try reader.readSize()
    }

    /// `{"x": x, "y": y}`.
    public mutating func point(_ key: String) throws(WireError) -> Point {
        var reader = try object(key)
        let point = Point(x: try reader.number("x"), y: try reader.number("y"))
        try reader.finish()
        return point
    }

    public mutating func optionalPoint(_ key: String) throws(WireError) -> Point? {
        guard var reader = try optionalObject(key) else { return nil }
        let point = Point(x: try reader.number("x"), y: try reader.number("y"))
        try reader.finish()
        return point
    }

    /// `{"x", "y", "width", "height"}`.
    public mutating func rect(_ key: String) throws(WireError) -> Rect {
        var reader = try object(key)
        let rect = Rect(
            x: try reader.number("x"), y: try reader.number("y"), width: try reader.number("width"),
            height: try reader.number("height"))
        try reader.finish()
        return rect
    }

    /// `{"top", "left", "bottom", "right"}`, each defaulting to 0.
    public mutating func optionalInsets(_ key: String) throws(WireError) -> EdgeInsets? {
        guard var reader = try optionalObject(key) else { return nil }
        let insets = EdgeInsets(
            top: try reader.optionalNumber("top") ?? 0, left: try reader.optionalNumber("left") ?? 0,
            bottom: try reader.optionalNumber("bottom") ?? 0, right: try reader.optionalNumber("right") ?? 0)
        try reader.finish()
        return insets
    }

    mutating func readSize() throws(WireError) -> Size {
        let size = Size(width: try number("width"), height: try number("height"))
        try finish()
        return size
    }

    /// Refuses keys nobody read.
    public func finish() throws(WireError) {
        for key in object.keys where !read.contains(key) {
            throw .invalidParams(at(key), "is not a known field")
        }
    }
}
