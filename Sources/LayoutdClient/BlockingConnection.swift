import Glibc
import LayoutIPC
import LayoutProtocol

/// A connection to layoutd for synchronous code (a command-line tool, a script, a game loop
/// that polls, a GLib or `poll` main loop): `call` sends one request and blocks until its reply
/// or its deadline; events that arrive meanwhile are kept apart in arrival order
/// (`pendingEvents`, `nextEvent`), so a reply is never mistaken for an event or the other way
/// round. Raw lines go through `sendLine` and `readLine` for what the typed calls do not
/// model. layoutctl is built on it; `LayoutdConnection` is the same protocol for async code.
///
/// The same limits as `LayoutdConnection`: one deadline per call (`timeout`, 30 s by default,
/// or the call's own), recomputed before every read, so a peer that trickles bytes or event
/// lines cannot stretch a call; a line cap (`lineCap`, 64 MiB by default); a line no layoutd
/// writes closes the connection with `.malformed`; stray replies counted (`strayCount`, the 16
/// most recent in `recentStrays`); at most 1,024 events waiting (`droppedEventCount` counts
/// the oldest dropped beyond that; their `seq` shows the gap).
///
/// In a main loop, without blocking it: watch `fileDescriptor` for input; when it is readable,
/// or `hasPendingInput` says lines are already buffered (which no fd watch reports), call
/// `dispatch()`, which reads only what is there, completes the calls made with
/// `send(_:_:timeout:onReply:)` and returns the events; give the loop's wait at most
/// `secondsUntilNextDeadline` so those calls time out on time.
public final class BlockingConnection {
    /// A call made without waiting: its deadline and what to do with its outcome.
    private struct Callback {
        var deadline: Deadline
        var seconds: Double
        var onReply: (Result<JSONValue, LayoutdError>) -> Void
    }

    private let fd: Int32
    private var reader: LineReader
    private var nextID = 1
    private var events = Ring<JSONObject>(capacity: EventQueue.defaultCapacity)
    private var callbacks: [Int: Callback] = [:]
    private var strays = StrayLog()
    /// The last line was an `id` null error: if the daemon closes next, this is why.
    private var lastNullError: WireError?
    /// Set once the connection closed: every call fails with it.
    public private(set) var closingError: LayoutdError?
    /// Every call's deadline in seconds, unless it names its own (nil: none).
    public private(set) var timeout: Double?
    /// The longest line accepted from the daemon, in bytes.
    public let lineCap: Int
    /// The socket path this connection reached.
    public let path: String

    /// Connects to the daemon at `path`, or where protocol/README.md's discovery says
    /// (`LAYOUTD_SOCKET`, then `$XDG_RUNTIME_DIR/layoutd/ipc.sock`, then the system socket).
    ///
    /// - Parameters:
    ///   - timeout: every call's deadline in seconds unless it gives its own (nil: none).
    ///   - connectTimeout: how long connecting may take; `timeout` (else 30 s) when nil.
    ///   - lineCap: the longest line accepted, in bytes.
    public init(
        path: String? = nil, timeout: Double? = LayoutdConnection.defaultTimeout, connectTimeout: Double? = nil,
        lineCap: Int = LayoutdConnection.defaultLineCap
    ) throws(LayoutdError) {
        let resolved = SocketPath.resolve(option: path).path
        fd = try ClientSocket.connect(to: resolved, timeout: connectTimeout ?? timeout ?? LayoutdConnection.defaultTimeout)
        self.path = resolved
        self.timeout = timeout
        self.lineCap = lineCap
        reader = LineReader(lineCap: lineCap)
    }

    deinit { Glibc.close(fd) }

    // MARK: Calls

    /// Sends a request and waits for its reply: the result, or the daemon's refusal as
    /// `.refused` with the protocol's error. Events read meanwhile go to `pendingEvents`;
    /// replies to calls made with `send(_:_:timeout:onReply:)` are handed to them.
    ///
    /// - Parameter timeout: this call's deadline in seconds; the connection's when nil.
    public func call(_ method: String, _ params: JSONObject = [:], timeout: Double? = nil) throws(LayoutdError) -> JSONValue {
        let seconds = timeout ?? self.timeout ?? .infinity
        let deadline = Deadline(seconds: seconds)
        let id = try sendRequest(method, params, until: deadline, seconds: seconds)
        while true {
            while let line = try nextLine() {
                if let reply = try route(line, awaiting: id) { return try Self.outcome(of: reply).get() }
            }
            expireCallbacks()
            do {
                try waitForInput(until: deadline, seconds: seconds)
            } catch .transport(let reason) {
                // The daemon answered what it could not read (LineTooLong, say) and closed: its
                // refusal is this call's answer.
                if let refusal = lastNullError { throw .refused(refusal) }
                throw .transport(reason)
            }
        }
    }

    /// Sends a request without waiting: `onReply` gets its result (or error) from a later
    /// `dispatch()`, `call` or `nextEvent()`, or `.timeout` once its deadline passed, or the
    /// closing error. For a main loop: the caller never blocks on the daemon.
    ///
    /// - Parameter timeout: the call's deadline in seconds; the connection's when nil.
    public func send(
        _ method: String, _ params: JSONObject = [:], timeout: Double? = nil, onReply: @escaping (Result<JSONValue, LayoutdError>) -> Void
    ) throws(LayoutdError) {
        let seconds = timeout ?? self.timeout ?? .infinity
        let deadline = Deadline(seconds: seconds)
        let id = try sendRequest(method, params, until: deadline, seconds: seconds)
        callbacks[id] = Callback(deadline: deadline, seconds: seconds, onReply: onReply)
    }

    // MARK: Main-loop integration

    /// The socket, to watch for input (never read it yourself: `dispatch()` does).
    public var fileDescriptor: Int32 { fd }

    /// Whether input was already read into the client (events waiting, or whole lines in its
    /// buffer) that no watch on `fileDescriptor` will report: call `dispatch()` now.
    public var hasPendingInput: Bool { !events.isEmpty || reader.hasCompleteLine }

    /// Seconds until the earliest deadline of a call made with `send(_:_:timeout:onReply:)`
    /// (0 when one passed), nil when none waits: the longest a main loop should sleep.
    public var secondsUntilNextDeadline: Double? {
        let earliest = callbacks.values.map(\.deadline).filter { $0.instant != nil }.min()
        return earliest?.remaining.map { Double($0.components.seconds) + Double($0.components.attoseconds) / 1e18 }
    }

    /// Handles what is there without blocking: reads what the socket has now (at most a few
    /// chunks, so a flood cannot hold the loop), hands each reply to its call's `onReply`,
    /// fails calls whose deadline passed, and returns the events read, oldest first.
    ///
    /// - Throws: the closing error once the connection closed (the daemon closed it, or a
    ///   malformed line); events read before that stay in `pendingEvents`.
    public func dispatch() throws(LayoutdError) -> [JSONObject] {
        if let closingError { throw closingError }
        var chunks = 0
        while chunks < 16 {
            while let line = try nextLine() { _ = try route(line, awaiting: nil) }
            switch try fill() {
            case .read: chunks += 1
            case .wouldBlock, .endOfStream: chunks = .max
            }
        }
        while let line = try nextLine() { _ = try route(line, awaiting: nil) }
        expireCallbacks()
        return events.removeAll()
    }

    // MARK: Events and raw lines

    /// Events that arrived while waiting for a reply (at most 1,024, oldest first).
    public var pendingEvents: [JSONObject] { events.elements }

    /// Events dropped because more than 1,024 waited; their `seq` shows the gap.
    public var droppedEventCount: Int { events.dropped }

    /// Replies nobody waited for (unknown or duplicate ids, calls that timed out, `id` null
    /// errors), since the connection opened.
    public var strayCount: Int { strays.count }
    /// The 16 most recent of them, oldest first.
    public var recentStrays: [JSONObject] { strays.recent.elements }

    /// Calls made with `send(_:_:timeout:onReply:)` still waiting: the only per-call state.
    public var waitingCallCount: Int { callbacks.count }

    /// The next event: one that already arrived, else the next one read (replies read
    /// meanwhile go to their calls or count as strays); nil at the end of the stream.
    public func nextEvent() throws(LayoutdError) -> JSONObject? {
        if let event = events.removeFirst() { return event }
        let seconds = timeout ?? .infinity
        let deadline = Deadline(seconds: seconds)
        while true {
            while let line = try nextLine() {
                _ = try route(line, awaiting: nil)
                if let event = events.removeFirst() { return event }
            }
            expireCallbacks()
            do {
                try waitForInput(until: deadline, seconds: seconds)
            } catch .transport where closingError != nil && reader.bufferedByteCount == 0 && lastNullError == nil {
                return nil
            }
        }
    }

    /// Sends a raw line as it is (a newline is added).
    public func sendLine(_ bytes: [UInt8]) throws(LayoutdError) {
        let seconds = timeout ?? .infinity
        try write(bytes + [0x0A], until: Deadline(seconds: seconds), seconds: seconds)
    }

    /// The next line, raw (not checked, but no longer than `lineCap`), waiting at most
    /// `timeout`; nil at the end of the stream.
    public func readLine() throws(LayoutdError) -> [UInt8]? {
        let seconds = timeout ?? .infinity
        let deadline = Deadline(seconds: seconds)
        while true {
            if let line = try nextLine() { return line }
            do {
                try waitForInput(until: deadline, seconds: seconds)
            } catch .transport where reader.bufferedByteCount == 0 {
                return nil
            }
        }
    }

    /// Reads without a deadline from now on (a watcher waiting for events).
    public func waitForever() { timeout = nil }

    /// Closes the connection: calls still waiting get `.transport`.
    public func close() { fail(.transport("closed by the client")) }

    /// The most bytes the reader ever held (tests hold it to about twice the line cap).
    var peakBufferedByteCount: Int { reader.peakBufferedByteCount }

    // MARK: Internals

    private func sendRequest(_ method: String, _ params: JSONObject, until deadline: Deadline, seconds: Double) throws(LayoutdError) -> Int {
        if let closingError { throw closingError }
        let id = nextID
        nextID += 1
        try write(JSONWriter.encode(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)])) + [0x0A], until: deadline, seconds: seconds)
        return id
    }

    private func write(_ line: [UInt8], until deadline: Deadline, seconds: Double) throws(LayoutdError) {
        if let closingError { throw closingError }
        do {
            try ClientSocket.send(fd, line, until: deadline, timeoutSeconds: seconds)
        } catch {
            if case .timeout = error.error, error.sent == 0 { throw error.error }
            // Half a request on the wire: the daemon cannot read what follows.
            fail(.transport("a request could not be sent whole (\(error.error)); the connection is closed"))
            throw error.error
        }
    }

    /// The next whole line already read; a line over the cap closes the connection.
    private func nextLine() throws(LayoutdError) -> [UInt8]? {
        do {
            return try reader.nextLine()
        } catch {
            fail(error)
            throw error
        }
    }

    private func fill() throws(LayoutdError) -> LineReader.Fill {
        if let closingError { throw closingError }
        let filled: LineReader.Fill
        do {
            filled = try reader.fill(from: fd)
        } catch {
            fail(error)
            throw error
        }
        if filled == .endOfStream {
            fail(.transport(lastNullError.map { "the daemon closed the connection after \($0.name): \($0.message)" } ?? "the daemon closed the connection"))
        }
        return filled
    }

    /// Waits for input until `deadline` and reads it.
    ///
    /// - Throws: `.timeout(seconds)` when the deadline passes first; the closing error at the end of the stream.
    private func waitForInput(until deadline: Deadline, seconds: Double) throws(LayoutdError) {
        if let closingError { throw closingError }
        while true {
            if deadline.hasPassed { throw .timeout(seconds) }
            let earliest = callbacks.values.map(\.deadline).filter { $0.instant != nil }.min()
            try ClientSocket.wait(fd, for: Int16(POLLIN), until: min(deadline, earliest ?? .never), timeoutSeconds: seconds)
            switch try fill() {
            case .read: return
            case .wouldBlock: expireCallbacks()
            case .endOfStream: throw closingError ?? .transport("the daemon closed the connection")
            }
        }
    }

    /// A line read: an event goes to `pendingEvents`, a reply to its call; returns the reply
    /// when it answers `awaiting`.
    private func route(_ line: [UInt8], awaiting: Int?) throws(LayoutdError) -> JSONObject? {
        let inbound: Inbound
        do {
            inbound = try Inbound(line)
        } catch {
            fail(error)
            throw error
        }
        switch inbound {
        case .event(_, let message):
            lastNullError = nil
            events.append(message)
        case .reply(let id, let message):
            lastNullError = id == .null ? message["error"].map(WireError.init(reply:)) : nil
            if let number = id.integerValue {
                if number == awaiting { return message }
                if let callback = callbacks.removeValue(forKey: number) {
                    callback.onReply(Self.outcome(of: message))
                    return nil
                }
            }
            strays.record(message)
        }
        return nil
    }

    private func expireCallbacks() {
        guard !callbacks.isEmpty else { return }
        let due = callbacks.filter { $0.value.deadline.hasPassed }
        for (id, callback) in due.sorted(by: { $0.key < $1.key }) {
            callbacks[id] = nil
            callback.onReply(.failure(.timeout(callback.seconds)))
        }
    }

    /// Closes once: the socket is shut down and calls waiting for a reply fail with `error`.
    private func fail(_ error: LayoutdError) {
        guard closingError == nil else { return }
        closingError = error
        _ = shutdown(fd, Int32(SHUT_RDWR))
        let waiting = callbacks.sorted { $0.key < $1.key }
        callbacks.removeAll()
        for (_, callback) in waiting { callback.onReply(.failure(error)) }
    }

    private static func outcome(of reply: JSONObject) -> Result<JSONValue, LayoutdError> {
        if let error = reply["error"] { return .failure(.refused(WireError(reply: error))) }
        return .success(reply["result"] ?? .object([:]))
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
