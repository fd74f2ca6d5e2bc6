import Foundation
import LayoutIPC
import LayoutProtocol
import Synchronization

/// Why a call did not produce a result.
public enum LayoutdError: Error, CustomStringConvertible, Sendable {
    /// Could not connect, or the connection broke (the daemon stopped or restarted).
    case transport(String)
    /// The daemon refused the request: the protocol's error (protocol/errors.md), by `name`.
    case refused(WireError)
    /// The daemon sent something this client cannot read.
    case malformed(String)
    /// No reply within the timeout, in seconds (`BlockingConnection`).
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
        case .timeout(let seconds): "no reply within \(seconds) s"
        }
    }
}

/// A connection to layoutd for async code: requests are sent from any task and their replies
/// matched by id on a reader thread, so calls from many tasks overlap (pipelining); events go
/// to `events` in arrival order, with the connection's `seq` checked (a gap arrives as
/// `Event.gap`). Replies and events are read straight off the socket by LayoutProtocol's
/// parser: no Codable, no Foundation JSON.
///
/// The connection closes when the daemon closes it or when `close()` is called: pending calls
/// then fail with `.transport`, and `events` finishes.
public final class LayoutdConnection: Sendable {
    private struct State {
        var nextID = 1
        var pending: [Int: CheckedContinuation<JSONObject, any Error>] = [:]
        var closedReason: String?
        var lastSeq = 0
    }

    private let connection: LineConnectionBox
    private let state = Mutex(State())
    private let sending = Mutex(())
    /// The socket path this connection reached.
    public let path: String
    /// Every event on this connection, in arrival order.
    public let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    /// Replies no call waits for: to lines sent with `send(rawLine:)`, and `id: null` errors
    /// (a line the daemon could not read). With `observingReplies`, every reply, in arrival
    /// order, calls' too.
    public let replies: AsyncStream<JSONObject>
    private let replySink: AsyncStream<JSONObject>.Continuation
    private let observesReplies: Bool

    /// Connects to the daemon at `path`, or where protocol/README.md's discovery says
    /// (`LAYOUTD_SOCKET`, then `$XDG_RUNTIME_DIR/layoutd/ipc.sock`, then the system socket).
    ///
    /// - Parameter observingReplies: also put every reply on `replies` (a transcript replay
    ///   compares the daemon's lines in order).
    public init(path: String? = nil, observingReplies: Bool = false) throws(LayoutdError) {
        let resolved = SocketPath.resolve(option: path).path
        do {
            connection = LineConnectionBox(try LineConnection(path: resolved))
        } catch {
            throw .transport("cannot connect to layoutd at \(resolved): \(error)")
        }
        self.path = resolved
        (events, eventSink) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        (replies, replySink) = AsyncStream.makeStream(of: JSONObject.self, bufferingPolicy: .unbounded)
        observesReplies = observingReplies
        let thread = Thread { [self] in readLoop() }
        thread.name = "layoutd-client reader"
        thread.start()
    }

    deinit { close() }

    /// Sends a request and waits for its result (the reply's `result`).
    public func call(_ method: String, _ params: JSONObject = [:]) async throws(LayoutdError) -> JSONValue {
        let reply: JSONObject
        do {
            reply = try await withCheckedThrowingContinuation { continuation in
                let id: Int? = state.withLock { state in
                    guard state.closedReason == nil else { return nil }
                    let id = state.nextID
                    state.nextID += 1
                    state.pending[id] = continuation
                    return id
                }
                guard let id else {
                    continuation.resume(throwing: LayoutdError.transport(closedReason ?? "closed"))
                    return
                }
                let line = JSONWriter.encode(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)])) + [0x0A]
                do {
                    try sending.withLock { _ in try connection.value.send(line) }
                } catch {
                    if let waiting = state.withLock({ $0.pending.removeValue(forKey: id) }) {
                        waiting.resume(throwing: LayoutdError.transport("cannot send: \(error)"))
                    }
                }
            }
        } catch let error as LayoutdError {
            throw error
        } catch {
            throw .transport("\(error)")
        }
        if let error = reply["error"] {
            throw .refused(WireError(reply: error))
        }
        guard let result = reply["result"] else { throw .malformed("a reply with neither result nor error") }
        return result
    }

    /// Sends one line as it is, for requests this client does not model; its reply, if it has
    /// an id this connection never used, is dropped.
    public func send(rawLine: [UInt8]) throws(LayoutdError) {
        do {
            try sending.withLock { _ in try connection.value.send(rawLine + [0x0A]) }
        } catch {
            throw .transport("cannot send: \(error)")
        }
    }

    /// Why the connection closed, once it has.
    public var closedReason: String? { state.withLock { $0.closedReason } }

    /// Closes the connection: pending calls fail and `events` finishes.
    public func close() {
        _ = shutdown(connection.value.fd, Int32(SHUT_RDWR))
        finish("closed by the client")
    }

    private func finish(_ reason: String) {
        let waiting = state.withLock { state -> [CheckedContinuation<JSONObject, any Error>] in
            guard state.closedReason == nil else { return [] }
            state.closedReason = reason
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        for continuation in waiting { continuation.resume(throwing: LayoutdError.transport(reason)) }
        eventSink.finish()
        replySink.finish()
    }

    private func readLoop() {
        while true {
            let line: [UInt8]
            do {
                guard let next = try connection.value.readLine() else {
                    finish("the daemon closed the connection")
                    return
                }
                line = Array(next)
            } catch {
                finish("cannot read: \(error)")
                return
            }
            guard !line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) else { continue }
            guard case .object(let message)? = try? JSONParser.parse(line) else {
                finish("the daemon sent a line that is not a JSON object")
                return
            }
            if message["event"] != nil {
                deliver(event: message)
                continue
            }
            // The call waiting for this id is taken before anyone can see the reply: once a
            // reply is observed, a caller may send its next request, whose id must not find it.
            let waiting = message["id"]?.integerValue.flatMap { id in state.withLock { $0.pending.removeValue(forKey: id) } }
            if observesReplies || waiting == nil {
                // Observed, or a reply to a raw line or to a line the daemon could not read (`id: null`).
                replySink.yield(message)
            }
            waiting?.resume(returning: message)
        }
    }

    private func deliver(event message: JSONObject) {
        if let seq = message["seq"]?.integerValue {
            let expected = state.withLock { state -> Int in
                defer { state.lastSeq = seq }
                return state.lastSeq + 1
            }
            if seq != expected { eventSink.yield(.gap(expected: expected, received: seq)) }
        }
        do {
            eventSink.yield(try Event(message))
        } catch {
            eventSink.yield(.other(name: message["event"]?.stringValue ?? "", subscription: message["subscription"]?.integerValue, params: message["params"]?.objectValue ?? [:]))
        }
    }
}

/// The socket, shared by the reader thread (which alone reads) and callers (who send under a
/// lock): the two directions of a socket are independent.
private final class LineConnectionBox: @unchecked Sendable {
    let value: LineConnection
    init(_ value: LineConnection) { self.value = value }
}
