import Dispatch
import Glibc
import LayoutService
import Synchronization
import Testing

/// `ViewExecutor`: one block at a time in submission order, cheap blocks inline on the caller
/// only when the executor is idle and its cheap work has proved quick.
@Suite("view executor")
struct ViewExecutorTests {
    /// Waits (polling, 10 s at most) until `condition` holds.
    private func eventually(_ condition: () -> Bool) -> Bool {
        for _ in 0..<10_000 {
            if condition() { return true }
            usleep(1000)
        }
        return condition()
    }

    @Test("cheap work runs on the pool until it proved quick, then on the caller while the executor is idle")
    func inlineOnceQuick() {
        let executor = ViewExecutor(label: "test")
        let caller = UInt(pthread_self())
        let ranHere = Mutex<[Bool]>([])
        for _ in 0..<20 {
            let before = ranHere.withLock { $0.count }
            executor.run(inline: true) { ranHere.withLock { $0.append(UInt(pthread_self()) == caller) } }
            #expect(eventually { ranHere.withLock { $0.count } == before + 1 && executor.isIdle })
        }
        let record = ranHere.withLock { $0 }
        // A new executor starts as if its cheap work were heavy: 8 quick runs on the pool first.
        #expect(record.prefix(8).allSatisfy { !$0 })
        #expect(record.suffix(10).allSatisfy { $0 })
        // Not inline when asked not to.
        let asyncHere = Mutex<Bool?>(nil)
        executor.run(inline: false) { asyncHere.withLock { $0 = UInt(pthread_self()) == caller } }
        #expect(eventually { asyncHere.withLock { $0 } != nil })
        #expect(asyncHere.withLock { $0 } == false)
    }

    @Test("blocks from several threads, inline or queued, run one at a time in each thread's order")
    func serialAndOrdered() {
        let executor = ViewExecutor(label: "test")
        let inside = Atomic<Int>(0)
        let overlaps = Atomic<Int>(0)
        let seen = Mutex<[[Int]]>(Array(repeating: [], count: 4))
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for n in 0..<500 {
                let block: @Sendable () -> Void = {
                    if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 { overlaps.add(1, ordering: .relaxed) }
                    seen.withLock { $0[thread].append(n) }
                    inside.subtract(1, ordering: .sequentiallyConsistent)
                }
                if n % 3 == 0 { executor.async(block) } else { executor.run(inline: true, block) }
            }
        }
        #expect(eventually { seen.withLock { $0.allSatisfy { $0.count == 500 } } && executor.isIdle })
        #expect(overlaps.load(ordering: .relaxed) == 0)
        for order in seen.withLock({ $0 }) { #expect(order == Array(0..<500)) }
    }
}
