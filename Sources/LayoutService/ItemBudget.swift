import LayoutEngine
import LayoutProtocol
import Synchronization

/// The items every view together may hold: what bounds the daemon's memory, since per-view
/// limits alone multiply by the number of views.
///
/// A request that may add items reserves the most it could add before it runs (views run in
/// parallel, so checking afterwards could let two of them pass the limit together), then
/// settles to what it really added.
final class ItemBudget: Sendable {
    let maximum: Int
    private let used = Atomic<Int>(0)

    init(maximum: Int) { self.maximum = maximum }

    /// Takes `count` items, or throws `LimitExceeded` (limit `"total items"`) and takes nothing.
    func reserve(_ count: Int) throws(LayoutError) {
        guard count > 0 else { return }
        var current = used.load(ordering: .relaxed)
        while true {
            guard current <= maximum - count else { throw .limitExceeded(limit: "total items", maximum: maximum) }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + count, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// Takes `count` more items for something that holds `held` already and may hold at most
    /// `maximumPerView` (one view's worth: a staged upload, an import in parts), or throws
    /// `LimitExceeded` (`"items"`, or `"total items"`) and takes nothing.
    func reserve(_ count: Int, holding held: Int, maximumPerView: Int) throws(WireError) {
        guard held + count <= maximumPerView else {
            throw LayoutError.limitExceeded(limit: "items", maximum: maximumPerView).wire
        }
        do throws(LayoutError) {
            try reserve(count)
        } catch {
            throw error.wire
        }
    }

    /// Gives back `count` items (a deleted view's, or a reservation's unused part).
    func release(_ count: Int) {
        if count != 0 { used.subtract(count, ordering: .relaxed) }
    }
}
