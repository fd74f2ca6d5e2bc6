import Glibc
import LayoutIPC
import LayoutProtocol

/// Why a call did not produce a result, sorted by what the caller can do about it (the exit
/// codes of layoutctl follow these).
public enum ClientError: Error, CustomStringConvertible, Sendable {
    /// Could not connect, the connection broke, or the reply was not a reply.
    case transport(String)
    /// The daemon answered with an error.
    case refused(WireError)
    /// No reply within the timeout.
    case timeout(Double)

    public var description: String {
        switch self {
        case .transport(let message): message
        case .refused(let error): "\(error.name): \(error.message)"
        case .timeout(let seconds): "no reply within \(seconds) s"
        }
    }
}

/// A connection to layoutd: requests with ids, replies matched to them, events kept apart in
/// arrival order (so a reply is never mistaken for an event or the other way round).
public final class LayoutClient {
    private let connection: LineConnection
    private var nextID = 1
    /// Events that arrived while waiting for a reply.
    public private(set) var pendingEvents: [JSONObject] = []
    public let timeout: Double?

    public init(path: String, timeout: Double?) throws(ClientError) {
        do {
            connection = try LineConnection(path: path)
        } catch {
            throw .transport("cannot connect to layoutd at \(path): \(error)")
        }
        self.timeout = timeout
        connection.setTimeout(timeout)
    }

    /// Sends a request and waits for its reply.
    public func call(_ method: String, _ params: JSONObject = [:]) throws(ClientError) -> JSONValue {
        let id = nextID
        nextID += 1
        try send(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)]))
        while true {
            let message = try readMessage()
            if message["event"] != nil {
                pendingEvents.append(message)
                continue
            }
            guard message["id"]?.integerValue == id else {
                if message["id"] == .null, let error = message["error"] { throw .refused(Self.wireError(error)) }
                throw .transport("a reply to another request: \(JSONWriter.string(.object(message)).prefix(200))")
            }
            if let error = message["error"] { throw .refused(Self.wireError(error)) }
            guard let result = message["result"] else { throw .transport("a reply without result or error") }
            return result
        }
    }

    /// Sends a raw line as it is (for `--batch` and `call`).
    public func sendLine(_ bytes: [UInt8]) throws(ClientError) {
        do {
            try connection.send(bytes + [0x0A])
        } catch {
            throw .transport("cannot send: \(error)")
        }
    }

    /// The next line, raw; nil at the end of the stream.
    public func readLine() throws(ClientError) -> [UInt8]? {
        do {
            return try connection.readLine().map(Array.init)
        } catch {
            if error.code == EAGAIN || error.code == EWOULDBLOCK { throw .timeout(timeout ?? 0) }
            throw .transport("cannot read: \(error)")
        }
    }

    /// The next event: one that already arrived, else the next line (which must be an event).
    public func nextEvent() throws(ClientError) -> JSONObject? {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        guard let line = try readLine() else { return nil }
        guard case .object(let message)? = try? JSONParser.parse(line) else { throw .transport("not a JSON object: \(String(decoding: line.prefix(200), as: UTF8.self))") }
        return message
    }

    /// Waits for events without a timeout (for watch).
    public func waitForever() { connection.setTimeout(nil) }

    private func send(_ message: JSONValue) throws(ClientError) {
        try sendLine(JSONWriter.encode(message))
    }

    private func readMessage() throws(ClientError) -> JSONObject {
        guard let line = try readLine() else { throw .transport("the daemon closed the connection") }
        guard case .object(let message)? = try? JSONParser.parse(line) else {
            throw .transport("not a JSON reply: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return message
    }

    static func wireError(_ value: JSONValue) -> WireError {
        WireError(
            code: value["code"]?.integerValue ?? -32000, name: value["name"]?.stringValue ?? "Error",
            message: value["message"]?.stringValue ?? "", data: value["data"]?.objectValue ?? [:])
    }
}
