import Dispatch
import Synchronization

/// glibc's `int malloc_trim(size_t pad)`, declared in <malloc.h>, which Swift's Glibc module
/// leaves out.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32

/// glibc's `int mallopt(int param, int value)`, also only in <malloc.h>.
@_silgen_name("mallopt")
private func mallopt(_ parameter: Int32, _ value: Int32) -> Int32

/// Gives memory a large request freed back to the system. A line of megabytes is parsed into a
/// tree many times its size, a staged commit drops the upload's parts and the view's old data,
/// a deleted view drops all of its items; glibc keeps those pages in its arenas, so a daemon
/// that loaded 1M items would stay at several times the memory its views need. `malloc_trim`
/// returns them.
///
/// Trimming walks the heap (milliseconds, more for a large one), so it never runs on the
/// thread that asks: a request only schedules one on a utility queue of its own, off the I/O
/// threads and the views' executors. Requests coalesce: while a trim is scheduled and not yet
/// begun, more requests add nothing (it will see their memory freed too); trims start at most
/// once per `interval`, and a request inside the interval is deferred to its end, never dropped
/// (dropping it once left a commit's memory resident: the commit's trim fell within 100 ms of
/// the last append's and was skipped).
///
/// Callers ask once the memory is actually freed: a view's executor frees a block's captures
/// (a commit's upload, a mutation's old model and invalidation) only after the block returns,
/// so `release(items:after:)` asks from a block queued behind the current one.
///
/// `malloc_trim` alone is not enough: it returns the free pages inside every arena, but not
/// the free space at the top of a thread's arena, which goes back only when a `free` finds it
/// past glibc's trim threshold; and glibc raises that threshold (up to 64 MiB) each time a large
/// block it had mapped is freed, as a load's arrays are. So, in a release build, 9-10 MB stayed
/// resident after a 1M-item view was deleted, and a committed staged upload of 1M UUIDs held
/// 88 B an item where the view needs 79. `configureAllocator()` fixes both thresholds instead.
public enum FreedMemory {
    /// A request line at least this long is worth a trim once done with.
    static let threshold = 256 << 10
    /// Items freed at once (a commit's upload and the data it replaced, a deleted view, data
    /// replaced by less) that are worth a trim.
    static let itemThreshold = 10_000
    /// The least time between the starts of two trims.
    static let interval: UInt64 = 100_000_000
    /// Blocks at least this large are mapped on their own (and unmapped when freed), and free
    /// space at the top of an arena past it goes back at the `free` that makes it: at most this
    /// much of an arena's top stays resident, and a reply buffer or line under it is reused,
    /// not mapped and faulted in again per request.
    static let allocatorThreshold: Int32 = 4 << 20

    /// Fixes glibc's mmap and trim thresholds at `allocatorThreshold`, which also stops glibc
    /// from raising them as large blocks are freed. Call once at start, before any view exists.
    public static func configureAllocator() {
        // <malloc.h>: M_TRIM_THRESHOLD -1, M_MMAP_THRESHOLD -3.
        _ = mallopt(-3, allocatorThreshold)
        _ = mallopt(-1, allocatorThreshold)
    }

    private struct State {
        /// A trim is scheduled and has not begun.
        var pending = false
        /// When the last trim began (uptime in ns), 0 before the first.
        var lastTrim: UInt64 = 0
    }

    private static let state = Mutex(State())
    private static let queue = DispatchQueue(label: "layoutd.trim", qos: .utility)

    /// Call once a request whose line held `length` bytes is done with it (the request's tree
    /// may still be in a view's executor: the trim runs later, on its own queue).
    static func release(afterLineOf length: Int) {
        guard length >= threshold else { return }
        requestTrim()
    }

    /// Call once `items` items were freed off any view's executor (an aborted or discarded
    /// upload, after the call that freed it returned).
    static func release(items: Int) {
        guard items >= itemThreshold else { return }
        requestTrim()
    }

    /// Call from a block on `executor` that frees `items` items when it returns: the trim is
    /// asked for by a block queued behind it, which runs once the block and its captures are
    /// gone.
    static func release(items: Int, after executor: ViewExecutor) {
        guard items >= itemThreshold else { return }
        executor.async { requestTrim() }
    }

    /// Schedules a trim on `queue` unless one is already scheduled and not begun.
    private static func requestTrim() {
        let now = DispatchTime.now().uptimeNanoseconds
        let wait: UInt64? = state.withLock { state in
            guard !state.pending else { return nil }
            state.pending = true
            let earliest = state.lastTrim == 0 ? now : state.lastTrim &+ interval
            return earliest > now ? earliest - now : 0
        }
        guard let wait else { return }
        queue.asyncAfter(deadline: .now() + .nanoseconds(Int(wait))) {
            // Cleared before trimming: memory freed while this trim runs asks for the next one.
            state.withLock { state in
                state.pending = false
                state.lastTrim = DispatchTime.now().uptimeNanoseconds
            }
            _ = mallocTrim(0)
        }
    }
}
