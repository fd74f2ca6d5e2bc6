import Dispatch
import Synchronization

/// glibc's `int malloc_trim(size_t pad)`, declared in <malloc.h>, which Swift's Glibc module
/// leaves out.
@_silgen_name("malloc_trim")
private func mallocTrim(_ pad: Int) -> Int32

/// Gives memory a large request freed back to the system. A line of megabytes is parsed into a
/// tree many times its size; once the request is done the tree is freed, but glibc keeps the
/// pages in its arenas, so a daemon that loaded 1M items in one `view.create` would stay at
/// five times the memory its views need. `malloc_trim` returns them.
///
/// Trimming walks the heap (milliseconds, more for a large one), so it runs only after lines of
/// at least `threshold` bytes and after commits of large staged uploads (whose appends hold
/// what they parsed until then, so they do not trim), at most once per `interval`.
enum FreedMemory {
    static let threshold = 256 << 10
    /// Items a staged upload's commit frees that are worth a trim.
    static let uploadThreshold = 10_000
    static let interval: UInt64 = 100_000_000
    private static let lastTrim = Atomic<UInt64>(0)

    /// Call once a request whose line held `length` bytes is done with it.
    static func release(afterLineOf length: Int) {
        guard length >= threshold else { return }
        trim()
    }

    /// Call once a staged upload of `items` items has been applied (or refused).
    static func release(afterCommitOf items: Int) {
        guard items >= uploadThreshold else { return }
        trim()
    }

    private static func trim() {
        let now = DispatchTime.now().uptimeNanoseconds
        let last = lastTrim.load(ordering: .relaxed)
        guard now &- last >= interval, lastTrim.compareExchange(expected: last, desired: now, ordering: .relaxed).exchanged else { return }
        _ = mallocTrim(0)
    }
}
