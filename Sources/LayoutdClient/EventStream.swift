import LayoutProtocol
import Synchronization

/// A connection's events in arrival order, for `for await`: at most `capacity` wait to be
/// taken (the oldest are dropped beyond that, and counted), and the connection's `seq` is
/// checked as they are taken, so events lost on the way (the daemon's or this queue's
/// drops) arrive as one `.gap` before the next event: a mirror then reloads.
///
/// One consumer at a time, like `AsyncStream`; ends (`nil`) when the connection closes and
/// what was queued is taken. The iterator is Sendable, so a task or the main actor can hold it.
public struct EventStream: AsyncSequence, Sendable {
    public typealias Element = Event
    public typealias Failure = Never

    let queue: EventQueue

    public func makeAsyncIterator() -> Iterator { Iterator(queue: queue) }

    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let queue: EventQueue

        public mutating func next() async -> Event? { await queue.take() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> Event? { await queue.take() }
    }
}

/// The queue behind `EventStream`, filled by the connection's reader thread.
final class EventQueue: Sendable {
    /// Events waiting to be taken (1,024, the contract every client keeps).
    static let defaultCapacity = 1024

    private struct State {
        var buffered: Ring<(seq: Int, event: Event)>
        /// The `seq` of the last event taken (0: none yet).
        var lastTaken = 0
        var finished = false
        var waiters: [(id: Int, continuation: CheckedContinuation<Event?, Never>)] = []
        /// Waiters cancelled before they were registered.
        var cancelled: Set<Int> = []
        var nextWaiter = 0

        /// The next event (or the gap before it), if one is buffered.
        mutating func takeNow() -> Event? {
            guard let (seq, event) = buffered.first else { return nil }
            if seq != lastTaken + 1 {
                let gap = Event.gap(expected: lastTaken + 1, received: seq)
                lastTaken = seq - 1
                return gap
            }
            _ = buffered.removeFirst()
            lastTaken = seq
            return event
        }
    }

    private let state: Mutex<State>

    init(capacity: Int = defaultCapacity) {
        state = Mutex(State(buffered: Ring(capacity: capacity)))
    }

    /// Events dropped because nobody took them in time.
    var dropped: Int { state.withLock { $0.buffered.dropped } }

    /// Events read and not yet taken.
    var count: Int { state.withLock { $0.buffered.count } }

    /// Queues an event (from the reader thread) and wakes a waiting consumer.
    func push(seq: Int, _ event: Event) {
        let handed: (CheckedContinuation<Event?, Never>, Event)? = state.withLock { state in
            guard !state.finished else { return nil }
            state.buffered.append((seq, event))
            guard !state.waiters.isEmpty, let next = state.takeNow() else { return nil }
            return (state.waiters.removeFirst().continuation, next)
        }
        if let (continuation, event) = handed { continuation.resume(returning: event) }
    }

    /// No more events: waiting consumers get nil once the queue is empty.
    func finish() {
        let waiting = state.withLock { state in
            state.finished = true
            defer { state.waiters.removeAll() }
            return state.buffered.isEmpty ? state.waiters.map(\.continuation) : []
        }
        for continuation in waiting { continuation.resume(returning: nil) }
    }

    func take() async -> Event? {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Event?, Never>) in
                let ready: (Event?, Bool) = state.withLock { state in
                    if let event = state.takeNow() { return (event, true) }
                    if state.finished || state.cancelled.remove(id) != nil { return (nil, true) }
                    state.waiters.append((id, continuation))
                    return (nil, false)
                }
                if ready.1 { continuation.resume(returning: ready.0) }
            }
        } onCancel: {
            let waiting = state.withLock { state -> CheckedContinuation<Event?, Never>? in
                guard let index = state.waiters.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return state.waiters.remove(at: index).continuation
            }
            waiting?.resume(returning: nil)
        }
    }
}
