/// A request id as the client chose it: echoed back verbatim.
public enum RequestID: Hashable, Sendable {
    case number(Int)
    case string(String)

    public var json: JSONValue {
        switch self {
        case .number(let value): .number(Double(value))
        case .string(let value): .string(value)
        }
    }
}

/// One request line, decoded: `{"id": 7, "method": "view.scroll", "params": {...}}`. A request
/// without `id` is a notification: it is carried out and gets no reply.
public struct Request: Hashable, Sendable {
    public var id: RequestID?
    public var method: String
    public var params: JSONObject

    public init(id: RequestID?, method: String, params: JSONObject = [:]) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Decodes a request line.
    ///
    /// - Throws: `ParseError` for bytes that are not JSON, `InvalidRequest` for JSON that is
    ///   not a request (with the id attached when one could be read, so the reply can echo it).
    public static func decode(_ line: some Collection<UInt8>) throws(RequestFailure) -> Request {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line)
        } catch {
            throw RequestFailure(id: nil, error: .parseError(error.description))
        }
        guard case .object(let object) = value else {
            throw RequestFailure(id: nil, error: .invalidRequest("a request is a JSON object"))
        }
        var id: RequestID?
        switch object["id"] {
        case nil: id = nil
        case .string(let text)?: id = .string(text)
        case .number?:
            guard let number = object["id"]?.integerValue else {
                throw RequestFailure(id: nil, error: .invalidRequest("id must be an integer or a string"))
            }
            id = .number(number)
        default: throw RequestFailure(id: nil, error: .invalidRequest("id must be an integer or a string"))
        }
        for key in object.keys where !["id", "method", "params", "jsonrpc"].contains(key) {
            throw RequestFailure(id: id, error: .invalidRequest("unknown field '\(key)' in the request"))
        }
        guard let method = object["method"]?.stringValue, !method.isEmpty else {
            throw RequestFailure(id: id, error: .invalidRequest("method must be a non-empty string"))
        }
        var params = JSONObject()
        switch object["params"] {
        case nil: break
        case .object(let given)?: params = given
        default: throw RequestFailure(id: id, error: .invalidRequest("params must be an object"))
        }
        return Request(id: id, method: method, params: params)
    }
}

/// A request that could not be decoded, and the id to answer with (`null` when unknown).
public struct RequestFailure: Error, Hashable, Sendable {
    public var id: RequestID?
    public var error: WireError
}

/// The lines the daemon writes: replies and events, each one JSON object and a newline.
public enum Envelope {
    /// `{"id": …, "result": …}`.
    public static func result(id: RequestID, _ result: JSONValue) -> [UInt8] {
        line(["id": id.json, "result": result])
    }

    /// `{"id": …, "result": …}` with the result already encoded by `JSONWriter`.
    public static func result(id: RequestID, encoded result: [UInt8]) -> [UInt8] {
        var writer = JSONWriter(capacity: result.count + 32)
        writer.append(UInt8(ascii: "{"))
        writer.writeKey("id", first: true)
        writer.write(id.json)
        writer.writeKey("result", first: false)
        writer.write(encoded: result)
        writer.append(UInt8(ascii: "}"))
        writer.append(0x0A)
        return writer.bytes
    }

    /// `{"id": … or null, "error": {"code", "name", "message", "data"?}}`.
    public static func error(id: RequestID?, _ error: WireError) -> [UInt8] {
        line(["id": id?.json ?? .null, "error": error.json])
    }

    /// `{"event": name, "subscription": n, "seq": n, "params": …}` with the params already
    /// encoded by `JSONWriter`. Events never carry `id`; connection-wide events (such as
    /// `daemon.shutdown`) have no `subscription`.
    public static func event(_ name: String, subscription: Int?, seq: Int, encodedParams params: [UInt8]) -> [UInt8] {
        var writer = JSONWriter(capacity: params.count + 64)
        writer.append(UInt8(ascii: "{"))
        writer.writeKey("event", first: true)
        writer.write(name)
        if let subscription {
            writer.writeKey("subscription", first: false)
            writer.write(Double(subscription))
        }
        writer.writeKey("seq", first: false)
        writer.write(Double(seq))
        writer.writeKey("params", first: false)
        writer.write(encoded: params)
        writer.append(UInt8(ascii: "}"))
        writer.append(0x0A)
        return writer.bytes
    }

    /// `{"event": name, "subscription": n, "seq": n, "params": …}`.
    public static func event(_ name: String, subscription: Int?, seq: Int, params: JSONValue) -> [UInt8] {
        event(name, subscription: subscription, seq: seq, encodedParams: JSONWriter.encode(params))
    }

    private static func line(_ object: JSONObject) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(.object(object))
        var bytes = writer.bytes
        bytes.append(0x0A)
        return bytes
    }
}
