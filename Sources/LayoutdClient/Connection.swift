import Dispatch
import Glibc
import LayoutIPC
import LayoutProtocol
import Synchronization

/// Why a call did not produce a result.
public enum LayoutdError: Error, CustomStringConvertible, Sendable {
    /// Could not connect, or the connection broke (the daemon stopped or restarted, or the
    /// client closed it).
    case transport(String)
    /// The daemon refused the request: the protocol's error (protocol/errors.md), by `name`.
    case refused(WireError)
    /// The peer wrote a line no layoutd writes (not UTF-8, not JSON, not an object, nested
    /// deeper than 128, longer than the line cap, a reply or event of the wrong shape): the
    /// connection is closed and every waiting call fails with this same error. Also a result
    /// the typed calls cannot decode (the connection stays open then).
    case malformed(String)
    /// The deadline passed, in seconds: a call's (sending and waiting for its reply) or a
    /// connect's. A call that timed out is forgotten; its late reply is counted as a stray
    /// and the connection stays usable.
    case timeout(Double)

    /// The protocol's error name (`ViewNotFound`, `StaleEpoch`, ...) when the daemon refused.
    public var name: String? {
        if case .refused(let error) = self { return error.name }
        return nil
    }

    public var description: String {
        switch self {
        case .transport(let message): "transport: \(message)"
        case .refused(let error): "\(error.name) (\(error.code)): \(error.message)"
        case .malformed(let message): "malformed: \(message)"
        case .timeout(let seconds): "timed out: the deadline of \(seconds) s passed"
        }
    }
}

/// A connection to layoutd for async code: requests are sent from any task and their replies
/// matched by id on a reader thread, so calls from many tasks overlap (pipelining); events go
/// to `events` in arrival order, with the connection's `seq` checked (a gap arrives as
/// `Event.gap`). Replies and events are read straight off the socket by LayoutProtocol's
/// parser: no Codable, no Foundation JSON.
///
/// Limits, so that a broken or hostile peer costs an error, never memory or a hang:
/// - every call has one deadline for sending and waiting (`timeout`, 30 s by default, or the
///   call's own); connecting has one too (`connectTimeout`);
/// - a line longer than `lineCap` (64 MiB by default) is refused as soon as the cap is passed;
/// - a line that is not what the daemon writes closes the connection with `.malformed`;
/// - replies nobody waits for are counted (`strayCount`) and the 16 most recent kept
///   (`recentStrays`, and on `replies`); events nobody takes are kept up to 1,024, the
///   oldest dropped beyond that (`droppedEventCount`), which `events` reports as a `.gap`;
/// - a call's entry lives only until its reply, its deadline or the close (`waitingCallCount`).
///
/// The connection closes when the daemon closes it, on a malformed line, or on `close()`
/// (or when it is released): waiting calls then fail and `events` finishes.
///
/// Integrating with a main loop: the connection reads on its own thread and resumes calls
/// there, so nothing needs to watch its socket. Consume `events` in a task and hop to the UI's
/// actor for what it touches (`for await event in connection.events { await MainActor.run { ... } }`),
/// or make calls from `@MainActor` code with `await`: the main actor is free while they wait.
/// A loop that must own every fd (GLib, `poll`) uses `BlockingConnection` instead.
public final class LayoutdConnection: Sendable {
    /// The default line cap: the daemon's default `output-limit` (64 MiB), so no legal reply
    /// is longer.
    public static let defaultLineCap = Inbound.defaultLineCap
    /// The default deadline of a call, and of a connect, in seconds.
    public static let defaultTimeout = 30.0

    private let core: ConnectionCore
    /// The socket path this connection reached.
    public let path: String
    /// Every call's deadline unless it names its own, in seconds (infinity: none).
    public let timeout: Double
    /// The longest line accepted from the daemon, in bytes.
    public let lineCap: Int
    /// Every event on this connection, in arrival order; a `.gap` where events were lost.
    public let events: EventStream
    /// Replies no call waits for: to lines sent with `send(rawLine:)`, and `id: null` errors
    /// (a line the daemon could not read); the 16 most recent are kept until taken. With
    /// `observingReplies`, every reply, calls' too, each kept until taken.
    public let replies: AsyncStream<JSONObject>

    /// Connects to the daemon at `path`, or where protocol/README.md's discovery says
    /// (`LAYOUTD_SOCKET`, then `$XDG_RUNTIME_DIR/layoutd/ipc.sock`, then the system socket).
    ///
    /// - Parameters:
    ///   - timeout: every call's deadline, in seconds, unless the call gives its own.
    ///   - connectTimeout: how long connecting may take (a daemon whose accept queue is full);
    ///     `timeout` when nil.
    ///   - lineCap: the longest line accepted, in bytes.
    ///   - observingReplies: also put every reply on `replies`, unbounded (a transcript replay
    ///     compares the daemon's lines in order).
    /// - Throws: `.transport` when nothing listens there, `.timeout` when connecting takes
    ///   longer than `connectTimeout`.
    public init(
        path: String? = nil, timeout: Double = LayoutdConnection.defaultTimeout, connectTimeout: Double? = nil,
        lineCap: Int = LayoutdConnection.defaultLineCap, observingReplies: Bool = false
    ) throws(LayoutdError) {
        let resolved = SocketPath.resolve(option: path).path
        let fd = try ClientSocket.connect(to: resolved, timeout: connectTimeout ?? timeout)
        self.path = resolved
        self.timeout = timeout
        self.lineCap = lineCap
        let (replies, replySink) = AsyncStream.makeStream(
            of: JSONObject.self, bufferingPolicy: observingReplies ? .unbounded : .bufferingNewest(StrayLog.kept))
        self.replies = replies
        let queue = EventQueue()
        events = EventStream(queue: queue)
        core = ConnectionCore(fd: fd, lineCap: lineCap, events: queue, replies: replySink, observesReplies: observingReplies)
        // A thread of its own for the blocking read loop.
        let started = DetachedThread.start { [core] in core.readLoop() }
        precondition(started, "pthread_create failed for the layoutd-client reader")
    }

    deinit { core.finish(.transport("closed by the client")) }

    /// Sends a request and waits for its result (the reply's `result`).
    ///
    /// - Parameter timeout: this call's deadline in seconds (sending and waiting); the
    ///   connection's `timeout` when nil.
    /// - Throws: `.refused` with the daemon's error; `.timeout` when the deadline passes (the
    ///   call is forgotten, the connection stays usable); `.malformed` or `.transport` when
    ///   the connection closes first.
    public func call(_ method: String, _ params: JSONObject = [:], timeout: Double? = nil) async throws(LayoutdError) -> JSONValue {
        let reply = try await core.call(method, params, timeout: timeout ?? self.timeout)
        if let error = reply["error"] { throw .refused(WireError(reply: error)) }
        return reply["result"] ?? .object([:])
    }

    /// Sends one line as it is, for requests this client does not model; its reply, if it has
    /// an id this connection never used, is a stray (on `replies`).
    public func send(rawLine: [UInt8]) throws(LayoutdError) {
        try core.send(rawLine + [0x0A], until: Deadline(seconds: timeout), timeout: timeout)
    }

    /// Why the connection closed, once it has.
    public var closedReason: String? {
        core.closing.map { error in
            if case .transport(let message) = error { return message }
            return error.description
        }
    }

    /// The error every call fails with once the connection closed.
    public var closingError: LayoutdError? { core.closing }

    /// Replies nobody waited for, since the connection opened.
    public var strayCount: Int { core.strays.count }
    /// The 16 most recent of them, oldest first.
    public var recentStrays: [JSONObject] { core.strays.recent.elements }
    /// Events dropped because `events` was not read in time (each reported as a `.gap`).
    public var droppedEventCount: Int { core.eventQueue.dropped }
    /// Calls sent and not yet answered, timed out or failed: the only per-call state.
    public var waitingCallCount: Int { core.waitingCallCount }

    /// Closes the connection: waiting calls fail with `.transport` and `events` finishes.
    public func close() { core.finish(.transport("closed by the client")) }

    /// The most bytes the reader ever held (tests hold it to about twice the line cap).
    var peakBufferedByteCount: Int { core.peakBufferedBytes.load(ordering: .relaxed) }
    /// Events read and not yet taken (at most 1,024).
    var queuedEventCount: Int { core.eventQueue.count }
}

/// What the reader thread and the callers share. It owns the socket and the wake-up pipe and
/// closes them when the last of them lets go, so a descriptor number is never reused while
/// anyone may still use it.
final class ConnectionCore: Sendable {
    private struct Waiting {
        var continuation: CheckedContinuation<JSONObject, any Error>
        var deadline: Deadline
        var seconds: Double
    }

    private struct State {
        var nextID = 1
        var pending: [Int: Waiting] = [:]
        /// No waiting call's deadline is earlier than this (nil: none has one). Kept when a call
        /// is answered, so it may be early: the reader then looks and finds nothing due.
        var earliest: Deadline?
        var closing: LayoutdError?
        var strays = StrayLog()
        /// The last line was an `id` null error: if the daemon closes next, this is why.
        var lastNullError: WireError?
    }

    let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    let lineCap: Int
    let eventQueue: EventQueue
    private let replySink: AsyncStream<JSONObject>.Continuation
    private let observesReplies: Bool
    private let state = Mutex(State())
    /// Held while a line is written, so lines never interleave.
    private let sending = Mutex(())
    /// The reader's `LineReader.peakBufferedByteCount`, for tests.
    let peakBufferedBytes = Atomic<Int>(0)

    init(fd: Int32, lineCap: Int, events: EventQueue, replies: AsyncStream<JSONObject>.Continuation, observesReplies: Bool) {
        self.fd = fd
        var pipeEnds: [Int32] = [-1, -1]
        if pipe(&pipeEnds) == 0 {
            for end in pipeEnds {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
        self.lineCap = lineCap
        eventQueue = events
        replySink = replies
        self.observesReplies = observesReplies
    }

    deinit {
        Glibc.close(fd)
        Glibc.close(wakeRead)
        Glibc.close(wakeWrite)
    }

    var closing: LayoutdError? { state.withLock { $0.closing } }
    var strays: StrayLog { state.withLock { $0.strays } }
    var waitingCallCount: Int { state.withLock { $0.pending.count } }

    func call(_ method: String, _ params: JSONObject, timeout seconds: Double) async throws(LayoutdError) -> JSONObject {
        let deadline = Deadline(seconds: seconds)
        do {
            return try await withCheckedThrowingContinuation { continuation in
                let registered: Result<(id: Int, wake: Bool), LayoutdError> = state.withLock { state in
                    if let error = state.closing { return .failure(error) }
                    let id = state.nextID
                    state.nextID += 1
                    state.pending[id] = Waiting(continuation: continuation, deadline: deadline, seconds: seconds)
                    guard deadline.instant != nil, state.earliest.map({ deadline < $0 }) ?? true else { return .success((id, false)) }
                    state.earliest = deadline
                    return .success((id, true))
                }
                let id: Int
                switch registered {
                case .failure(let error):
                    continuation.resume(throwing: error)
                    return
                case .success(let entry):
                    id = entry.id
                    // The reader may be asleep until a later deadline (or none): it must look again.
                    if entry.wake { wake() }
                }
                let line = JSONWriter.encode(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)])) + [0x0A]
                do {
                    try send(line, until: deadline, timeout: seconds)
                } catch {
                    if let waiting = state.withLock({ $0.pending.removeValue(forKey: id) }) {
                        waiting.continuation.resume(throwing: error)
                    }
                }
            }
        } catch let error as LayoutdError {
            throw error
        } catch {
            throw .transport("\(error)")
        }
    }

    /// Writes one whole line. A line cut short by its deadline or a failure leaves the stream
    /// unreadable for the daemon: the connection closes then.
    func send(_ line: [UInt8], until deadline: Deadline, timeout seconds: Double) throws(LayoutdError) {
        if let error = closing { throw error }
        do {
            try sending.withLock { _ throws(ClientSocket.SendFailure) in try ClientSocket.send(fd, line, until: deadline, timeoutSeconds: seconds) }
        } catch {
            if error.sent > 0 || !isTimeout(error.error) {
                finish(.transport("a request could not be sent whole (\(error.error)); the connection is closed"))
            }
            throw error.error
        }
    }

    /// Ends the connection once: every waiting call fails with `error` (or `callError`),
    /// later calls with `error`; `events` and `replies` finish, and the reader thread stops.
    func finish(_ error: LayoutdError, waitingCallsGet callError: LayoutdError? = nil) {
        let waiting = state.withLock { state -> [Waiting] in
            guard state.closing == nil else { return [] }
            state.closing = error
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        _ = shutdown(fd, Int32(SHUT_RDWR))
        wake()
        for entry in waiting { entry.continuation.resume(throwing: callError ?? error) }
        eventQueue.finish()
        replySink.finish()
    }

    // MARK: The reader thread

    func readLoop() {
        var reader = LineReader(lineCap: lineCap)
        var watched = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        while closing == nil {
            let wait = state.withLock { $0.earliest }?.pollMilliseconds ?? -1
            watched[0].revents = 0
            watched[1].revents = 0
            let ready = poll(&watched, 2, wait)
            if ready < 0, errno != EINTR {
                finish(.transport("poll: \(String(cString: strerror(errno)))"))
                break
            }
            if watched[1].revents != 0 { drainWakeUps() }
            if watched[0].revents != 0 {
                do {
                    let filled = try reader.fill(from: fd)
                    peakBufferedBytes.store(reader.peakBufferedByteCount, ordering: .relaxed)
                    if filled == .endOfStream {
                        // After an `id` null error (LineTooLong, say), that refusal is what the
                        // waiting calls get.
                        let why = state.withLock { $0.lastNullError }
                        finish(
                            .transport(why.map { "the daemon closed the connection after \($0.name): \($0.message)" } ?? "the daemon closed the connection"),
                            waitingCallsGet: why.map { .refused($0) })
                        break
                    }
                    while let line = try reader.nextLine() { try handle(line) }
                } catch {
                    finish(error)
                    break
                }
            }
            expireOverdueCalls()
        }
    }

    private func handle(_ line: [UInt8]) throws(LayoutdError) {
        switch try Inbound(line) {
        case .event(let seq, let message):
            state.withLock { $0.lastNullError = nil }
            let event = (try? Event(message))
                ?? .other(name: message["event"]?.stringValue ?? "", subscription: message["subscription"]?.integerValue, params: message["params"]?.objectValue ?? [:])
            eventQueue.push(seq: seq, event)
        case .reply(let id, let message):
            // The call waiting for this id is taken before anyone can see the reply: once a
            // reply is observed, a caller may send its next request, whose id must not find it.
            let waiting = state.withLock { state -> Waiting? in
                state.lastNullError = id == .null ? message["error"].map(WireError.init(reply:)) : nil
                guard let waiting = id.integerValue.flatMap({ state.pending.removeValue(forKey: $0) }) else {
                    state.strays.record(message)
                    return nil
                }
                return waiting
            }
            if observesReplies || waiting == nil { replySink.yield(message) }
            waiting?.continuation.resume(returning: message)
        }
    }

    /// Fails the calls whose deadline passed with `.timeout`, and forgets them.
    private func expireOverdueCalls() {
        let now = ContinuousClock.now
        let expired = state.withLock { state -> [Waiting] in
            guard let earliest = state.earliest?.instant, earliest <= now else { return [] }
            var expired = [Waiting]()
            var next: Deadline?
            for (id, entry) in state.pending {
                guard let instant = entry.deadline.instant else { continue }
                if instant <= now {
                    expired.append(entry)
                    state.pending[id] = nil
                } else if next.map({ entry.deadline < $0 }) ?? true {
                    next = entry.deadline
                }
            }
            state.earliest = next
            return expired
        }
        for entry in expired { entry.continuation.resume(throwing: LayoutdError.timeout(entry.seconds)) }
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func drainWakeUps() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while bytes.withUnsafeMutableBytes({ read(wakeRead, $0.baseAddress, $0.count) }) > 0 {}
    }

    private func isTimeout(_ error: LayoutdError) -> Bool {
        if case .timeout = error { return true }
        return false
    }
}
