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
    /// The params' `sections`, when the load decoder (`LoadRequest`) read them from the line's
    /// bytes straight into the wire model; `params` then lacks the member. Read the params with
    /// `ParamsReader(request)`, which reads them as if they were there.
    public var sections: [WireSection]?

    public init(id: RequestID?, method: String, params: JSONObject = [:], sections: [WireSection]? = nil) {
        self.id = id
        self.method = method
        self.params = params
        self.sections = sections
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

    /// `{"id": …, "result": …}` with the result already encoded by `JSONWriter`: one buffer
    /// of the exact size (no slack to clear), the result copied into it once.
    public static func result(id: RequestID, encoded result: [UInt8]) -> [UInt8] {
        var head = JSONWriter(capacity: 64 + JSONString.maximumLength(id))
        head.beginResult(id: id)
        return line(head, closingAround: result)
    }

    /// `{"id": …, "result": …}` with the result written by `body` straight into the reply's
    /// buffer: no intermediate result bytes and no copy (for a result nobody else shares; an
    /// invalidation is shared with the events, so it is encoded once and copied in).
    public static func result(id: RequestID, capacity: Int = 1024, writingResult body: (inout JSONWriter) -> Void) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.beginResult(id: id)
        body(&writer)
        writer.endLine()
        return writer.finish()
    }

    /// `{"id": … or null, "error": {"code", "name", "message", "data"?}}`.
    public static func error(id: RequestID?, _ error: WireError) -> [UInt8] {
        line(["id": id?.json ?? .null, "error": error.json])
    }

    /// `{"event": name, "subscription": n, "seq": n, "params": …}` with the params already
    /// encoded by `JSONWriter`. Events never carry `id`; connection-wide events (such as
    /// `daemon.shutdown`) have no `subscription`.
    public static func event(_ name: String, subscription: Int?, seq: Int, encodedParams params: [UInt8]) -> [UInt8] {
        var head = JSONWriter(capacity: 96 + JSONString.maximumLength(name))
        head.write(raw: #"{"event":"#)
        head.write(name)
        if let subscription {
            head.write(raw: #","subscription":"#)
            head.write(Double(subscription))
        }
        head.write(raw: #","seq":"#)
        head.write(Double(seq))
        head.write(raw: #","params":"#)
        return line(head, closingAround: params)
    }

    /// `head`'s bytes, then `body` (often a whole invalidation) copied once, then the `}` and
    /// newline that close the line: one buffer of the exact size, no slack to clear.
    private static func line(_ head: consuming JSONWriter, closingAround body: [UInt8]) -> [UInt8] {
        var line = head.finish()
        line.reserveCapacity(line.count + body.count + 2)
        line.append(contentsOf: body)
        line.append(UInt8(ascii: "}"))
        line.append(0x0A)
        return line
    }

    /// `{"event": name, "subscription": n, "seq": n, "params": …}`.
    public static func event(_ name: String, subscription: Int?, seq: Int, params: JSONValue) -> [UInt8] {
        event(name, subscription: subscription, seq: seq, encodedParams: JSONWriter.encode(params))
    }

    private static func line(_ object: JSONObject) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(.object(object))
        writer.append(0x0A)
        return writer.finish()
    }
}

extension JSONString {
    /// The most bytes an id takes written.
    static func maximumLength(_ id: RequestID) -> Int {
        switch id {
        case .number: JSONNumber.maximumLength
        case .string(let text): maximumLength(text)
        }
    }
}

extension JSONWriter {
    /// `{"id":<id>,"result":`, the start of a reply; the result follows, then `endLine()`.
    public mutating func beginResult(id: RequestID) {
        write(raw: #"{"id":"#)
        switch id {
        case .number(let number): write(Double(number))  // as `id.json` wrote it (1e15 and over: `1e+15`)
        case .string(let text): write(text)
        }
        write(raw: #","result":"#)
    }

    /// `}` and the newline that end a reply or an event.
    public mutating func endLine() {
        write(raw: "}\n")
    }
}
