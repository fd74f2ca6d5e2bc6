import Dispatch
import Synchronization

/// A view's serial executor: work runs one block at a time, in submission order.
///
/// `async` queues a block; queued blocks are drained on a Dispatch pool thread (a serial queue
/// of the executor's own on the overcommitting pool, so a long block holds up its own view
/// only). `run(inline: true, _:)` runs a cheap block at once on the calling thread (an I/O
/// thread) when the executor is idle, which saves the thread hand-off and its context switch;
/// when the view is busy, or was busy for long lately, the block queues like any other. A
/// caller never waits for the executor.
///
/// One view stays serial (one block at a time, whichever thread runs it); two views use two
/// cores.
public final class ViewExecutor: Sendable {
    private struct Work {
        var block: @Sendable () -> Void
        /// Submitted as cheap: its cost decides whether later cheap work may run inline.
        var cheap: Bool
    }

    private struct State {
        /// A block is running (inline or on the pool), or a drain is scheduled.
        var busy = false
        var pending: [Work?] = []
        var head = 0
        /// A "cheap" block of this view took longer than `heavyNanoseconds` (a whole-view query
        /// on a large view): its cheap work runs on the pool, so it does not stall the other
        /// connections of an I/O thread again, until `cheapStreak` blocks in a row were quick.
        /// A new view starts so: its first cheap blocks run on the pool until they proved quick,
        /// so not even the first whole-view query of a client stalls an I/O thread.
        var heavy = true
        var cheapStreak = 0

        mutating func measured(_ nanoseconds: UInt64) {
            if nanoseconds > ViewExecutor.heavyNanoseconds {
                heavy = true
                cheapStreak = 0
            } else if heavy {
                cheapStreak += 1
                if cheapStreak >= ViewExecutor.quickRunsToInline { heavy = false }
            }
        }
    }

    private let state = Mutex(State())
    private let drainQueue: DispatchQueue

    /// A cheap block that takes longer than this sends the view's cheap work to the pool until
    /// `quickRunsToInline` of them in a row were quick.
    static let heavyNanoseconds: UInt64 = 2_000_000
    static let quickRunsToInline = 8

    public init(label: String) {
        // No target: a serial queue on Dispatch's overcommitting pool, which starts a thread
        // when the ones it has are busy (on the fixed-width global pool, two long requests
        // once stopped every client).
        drainQueue = DispatchQueue(label: label, qos: .userInitiated)
    }

    /// Nothing runs or waits (a snapshot: work may arrive at once).
    public var isIdle: Bool { state.withLock { !$0.busy } }

    /// Queues `block` behind the work already submitted; it runs on a pool thread.
    public func async(_ block: @escaping @Sendable () -> Void) {
        enqueue(Work(block: block, cheap: false))
    }

    /// Runs `block` now on the calling thread when `inline` is true and the executor is idle
    /// (and its cheap work has been quick lately); otherwise queues it as
    /// `async` does. Either way, `block` runs after everything submitted before it.
    public func run(inline: Bool, _ block: @escaping @Sendable () -> Void) {
        guard inline else { return enqueue(Work(block: block, cheap: false)) }
        let mine = state.withLock { state in
            guard !state.busy, !state.heavy else { return false }
            state.busy = true
            return true
        }
        guard mine else { return enqueue(Work(block: block, cheap: true)) }
        let started = Self.now()
        block()
        let elapsed = Self.now() &- started
        let more = state.withLock { state in
            state.measured(elapsed)
            guard state.head < state.pending.count else {
                state.busy = false
                return false
            }
            return true
        }
        if more { drainQueue.async { self.drain() } }
    }

    private func enqueue(_ work: Work) {
        let start = state.withLock { state in
            state.pending.append(work)
            guard !state.busy else { return false }
            state.busy = true
            return true
        }
        if start { drainQueue.async { self.drain() } }
    }

    /// On the pool: runs queued blocks until none is left.
    private func drain() {
        while true {
            let next: Work? = state.withLock { state in
                guard state.head < state.pending.count else {
                    state.pending.removeAll(keepingCapacity: state.pending.capacity <= 1024)
                    state.head = 0
                    state.busy = false
                    return nil
                }
                let work = state.pending[state.head]
                state.pending[state.head] = nil
                state.head += 1
                if state.head > 256, state.head * 2 > state.pending.count {
                    state.pending.removeFirst(state.head)
                    state.head = 0
                }
                return work
            }
            guard let next else { return }
            guard next.cheap else {
                next.block()
                continue
            }
            let started = Self.now()
            next.block()
            let elapsed = Self.now() &- started
            state.withLock { $0.measured(elapsed) }
        }
    }

    private static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
}
