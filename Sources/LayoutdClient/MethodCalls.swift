import LayoutGeometry
import LayoutProtocol

// What the generated method types (`Methods.swift`, from protocol/interface.json) stand on: the
// two protocols every method's `Params` and the method itself conform to, the typed calls on
// both connections, and the readers the generated decoders use.

/// A method's request params: encoded in the schema's field order, and readable from a
/// request's params (a transcript replay decodes what it sends through them).
public protocol LayoutdParams: Sendable {
    init(_ value: JSONValue, _ context: String) throws(DecodingFailure)
    var json: JSONObject { get }
}

/// One protocol method as types: its name, its params and its result.
public protocol LayoutdMethod {
    associatedtype Params: LayoutdParams
    associatedtype Result: Sendable
    static var name: String { get }
    /// Whether a success changes a view and moves its epoch (the result is an invalidation).
    static var mutates: Bool { get }
    static func result(_ value: JSONValue) throws(DecodingFailure) -> Result
}

extension LayoutdMethods {
    /// The method of that name, if this client has it.
    public static func named(_ name: String) -> (any LayoutdMethod.Type)? { all.first { $0.name == name } }

    /// Methods this client sends only through `call(_:_:)` with raw params, with the reason.
    /// Empty: every method of the description has its types here (`LayoutdClientTests`'
    /// coverage test holds this to protocol/interface.json).
    public static let rawOnly: [String: String] = [:]
}

extension LayoutdConnection {
    /// Calls `method` with typed params and reads its typed result.
    ///
    /// - Parameter timeout: this call's deadline in seconds; the connection's when nil.
    public func call<Method: LayoutdMethod>(_ method: Method.Type, _ params: Method.Params, timeout: Double? = nil) async throws(LayoutdError) -> Method.Result {
        try decoded(try await call(Method.name, params.json, timeout: timeout)) { value throws(DecodingFailure) in try Method.result(value) }
    }
}

extension BlockingConnection {
    /// Calls `method` with typed params and reads its typed result.
    ///
    /// - Parameter timeout: this call's deadline in seconds; the connection's when nil.
    public func call<Method: LayoutdMethod>(_ method: Method.Type, _ params: Method.Params, timeout: Double? = nil) throws(LayoutdError) -> Method.Result {
        let result = try call(Method.name, params.json, timeout: timeout)
        do {
            return try Method.result(result)
        } catch {
            throw .malformed(error.description)
        }
    }
}

/// Readers of JSON values for the generated decoders: each names the value's place
/// (`context`) in its failure.
public enum WireDecode {
    static func fail(_ context: String, _ expected: String) -> DecodingFailure {
        DecodingFailure(description: "\(context): missing or not \(expected)")
    }

    /// The value, which must be there (absent or null fails).
    public static func present(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> JSONValue {
        guard let value, value != .null else { throw fail(context, "a value") }
        return value
    }

    public static func any(_ value: JSONValue?) -> JSONValue { value ?? .null }

    public static func object(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> JSONObject {
        guard let object = value?.objectValue else { throw fail(context, "an object") }
        return object
    }

    public static func string(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> String {
        guard let string = value?.stringValue else { throw fail(context, "a string") }
        return string
    }

    public static func integer(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Int {
        guard let integer = value?.integerValue else { throw fail(context, "an integer") }
        return integer
    }

    public static func number(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Double {
        guard let number = value?.numberValue else { throw fail(context, "a number") }
        return number
    }

    public static func bool(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Bool {
        guard let bool = value?.boolValue else { throw fail(context, "true or false") }
        return bool
    }

    public static func enumeration<Value: RawRepresentable>(_ value: JSONValue?, _ context: String, _ type: Value.Type) throws(DecodingFailure) -> Value
    where Value.RawValue == String {
        let name = try string(value, context)
        guard let result = Value(rawValue: name) else { throw DecodingFailure(description: "\(context): unknown value \(name)") }
        return result
    }

    public static func array<Element>(
        _ value: JSONValue?, _ context: String, _ element: (JSONValue, String) throws(DecodingFailure) -> Element
    ) throws(DecodingFailure) -> [Element] {
        guard let values = value?.arrayValue else { throw fail(context, "an array") }
        var result = [Element]()
        result.reserveCapacity(values.count)
        for (index, value) in values.enumerated() { result.append(try element(value, "\(context)[\(index)]")) }
        return result
    }

    public static func map<Value>(
        _ value: JSONValue?, _ context: String, _ element: (JSONValue, String) throws(DecodingFailure) -> Value
    ) throws(DecodingFailure) -> [String: Value] {
        var result = [String: Value]()
        for (key, value) in try object(value, context).pairs { result[key] = try element(value, "\(context).\(key)") }
        return result
    }

    /// An optional field: nil when absent or null, else what `read` makes of it.
    public static func optional<Value>(_ value: JSONValue?, _ read: (JSONValue) throws(DecodingFailure) -> Value) throws(DecodingFailure) -> Value? {
        guard let value, value != .null else { return nil }
        return try read(value)
    }

    /// Refuses fields the object's schema does not list (params are closed objects).
    public static func onlyKnown(_ object: JSONObject, _ known: Set<String>, _ context: String) throws(DecodingFailure) {
        if let unknown = object.keys.first(where: { !known.contains($0) }) {
            throw DecodingFailure(description: "\(context).\(unknown): is not a known field")
        }
    }

    public static func point(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Point {
        let fields = try Fields(value, context)
        return Point(x: try fields.number("x"), y: try fields.number("y"))
    }

    public static func size(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Size {
        let fields = try Fields(value, context)
        return Size(width: try fields.number("width"), height: try fields.number("height"))
    }

    public static func rect(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> Rect {
        let fields = try Fields(value, context)
        return Rect(x: try fields.number("x"), y: try fields.number("y"), width: try fields.number("width"), height: try fields.number("height"))
    }

    /// Insets: every edge optional (0), as `insetsInput` allows; the daemon writes all four.
    public static func insets(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> EdgeInsets {
        let object = try self.object(value, context)
        func edge(_ name: String) throws(DecodingFailure) -> Double {
            try optional(object[name]) { value throws(DecodingFailure) in try number(value, "\(context).\(name)") } ?? 0
        }
        return EdgeInsets(top: try edge("top"), left: try edge("left"), bottom: try edge("bottom"), right: try edge("right"))
    }

    /// A value LayoutProtocol reads (items, sections, updates), with the daemon's own reader.
    public static func wire<Value>(
        _ value: JSONValue?, _ context: String, _ read: (inout ParamsReader) throws(WireError) -> Value
    ) throws(DecodingFailure) -> Value {
        var reader = ParamsReader(try object(value, context), path: context)
        do {
            return try read(&reader)
        } catch {
            throw DecodingFailure(description: error.message)
        }
    }

    public static func anchor(_ value: JSONValue?, _ context: String) throws(DecodingFailure) -> WireAnchor {
        var reader = ParamsReader(["anchor": try present(value, context)], path: context)
        let anchor: WireAnchor?
        do {
            anchor = try WireAnchor.read(&reader)
        } catch {
            throw DecodingFailure(description: error.message)
        }
        guard let anchor else { throw fail(context, "an anchor policy") }
        return anchor
    }
}

extension ElementKey {
    /// `{"kind", "id"}`, as `view.query`'s `after` takes it.
    public var json: JSONValue { .object(["kind": .string(kind.rawValue), "id": .string(id)]) }
}

extension LayoutdConnection {
    /// What `read` makes of a result; a failure is the daemon's reply this client cannot read.
    func decoded<T>(_ result: JSONValue, _ read: (JSONValue) throws(DecodingFailure) -> T) throws(LayoutdError) -> T {
        do {
            return try read(result)
        } catch {
            throw .malformed(error.description)
        }
    }
}
