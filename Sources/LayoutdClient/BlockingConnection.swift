import Glibc
import LayoutIPC
import LayoutProtocol

/// A connection to layoutd for synchronous code (a command-line tool, a script, a game loop
/// that polls): each `call` sends one request and blocks until its reply or the timeout;
/// events that arrive meanwhile are kept apart in arrival order (`pendingEvents`,
/// `nextEvent`), so a reply is never mistaken for an event or the other way round. Raw lines
/// go through `sendLine` and `readLine` for what the typed calls do not model. layoutctl is
/// built on it; `LayoutdConnection` is the same protocol for async code.
public final class BlockingConnection {
    private let connection: LineConnection
    private var nextID = 1
    /// Events that arrived while waiting for a reply.
    public private(set) var pendingEvents: [JSONObject] = []
    /// Seconds a read may wait (nil: forever).
    public let timeout: Double?
    /// The socket path this connection reached.
    public let path: String

    /// Connects to the daemon at `path`, or where protocol/README.md's discovery says
    /// (`LAYOUTD_SOCKET`, then `$XDG_RUNTIME_DIR/layoutd/ipc.sock`, then the system socket).
    public init(path: String? = nil, timeout: Double?) throws(LayoutdError) {
        let resolved = SocketPath.resolve(option: path).path
        do {
            connection = try LineConnection(path: resolved)
        } catch {
            throw .transport("cannot connect to layoutd at \(resolved): \(error)")
        }
        self.path = resolved
        self.timeout = timeout
        connection.setTimeout(timeout)
    }

    /// Sends a request and waits for its reply: the result, or the daemon's refusal as
    /// `.refused` with the protocol's error.
    public func call(_ method: String, _ params: JSONObject = [:]) throws(LayoutdError) -> JSONValue {
        let id = nextID
        nextID += 1
        try sendLine(JSONWriter.encode(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)])))
        while true {
            let message = try readMessage()
            if message["event"] != nil {
                pendingEvents.append(message)
                continue
            }
            guard message["id"]?.integerValue == id else {
                if message["id"] == .null, let error = message["error"] { throw .refused(WireError(reply: error)) }
                throw .malformed("a reply to another request: \(JSONWriter.string(.object(message)).prefix(200))")
            }
            if let error = message["error"] { throw .refused(WireError(reply: error)) }
            guard let result = message["result"] else { throw .malformed("a reply with neither result nor error") }
            return result
        }
    }

    /// Sends a raw line as it is (a newline is added).
    public func sendLine(_ bytes: [UInt8]) throws(LayoutdError) {
        do {
            try connection.send(bytes + [0x0A])
        } catch {
            throw .transport("cannot send: \(error)")
        }
    }

    /// The next line, raw; nil at the end of the stream.
    public func readLine() throws(LayoutdError) -> [UInt8]? {
        do {
            return try connection.readLine().map(Array.init)
        } catch {
            if error.code == EAGAIN || error.code == EWOULDBLOCK { throw .timeout(timeout ?? 0) }
            throw .transport("cannot read: \(error)")
        }
    }

    /// The next event: one that already arrived, else the next line (which must be an event).
    public func nextEvent() throws(LayoutdError) -> JSONObject? {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        guard let line = try readLine() else { return nil }
        guard case .object(let message)? = try? JSONParser.parse(line) else {
            throw .malformed("not a JSON object: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return message
    }

    /// Reads without a timeout from now on (a watcher waiting for events).
    public func waitForever() { connection.setTimeout(nil) }

    private func readMessage() throws(LayoutdError) -> JSONObject {
        guard let line = try readLine() else { throw .transport("the daemon closed the connection") }
        guard case .object(let message)? = try? JSONParser.parse(line) else {
            throw .malformed("not a JSON reply: \(String(decoding: line.prefix(200), as: UTF8.self))")
        }
        return message
    }
}

extension WireError {
    /// The protocol's error object of a reply (protocol/errors.md), as this client reports it.
    init(reply error: JSONValue) {
        self.init(
            code: error["code"]?.integerValue ?? -32000, name: error["name"]?.stringValue ?? "Error",
            message: error["message"]?.stringValue ?? "", data: error["data"]?.objectValue ?? [:])
    }
}
