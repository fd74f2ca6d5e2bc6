import CSocketShims
import Dispatch
import Glibc
import LayoutIPC
import Synchronization

/// One I/O thread of the reactor: a thread of its own with its own epoll set, which reads,
/// frames and runs its connections' requests and writes their replies, inline whenever the
/// view is free (`ViewExecutor.run(inline:_:)`).
///
/// Every connection is assigned to one thread at accept and all its state is confined to it.
/// What happens on other threads (offloaded requests, views drained by the pool, other views'
/// events, the control queue's shutdown and reload) reaches a connection through its inbox
/// (`Connection.post`): the connection is put on this thread's ready list, and the thread is
/// woken through an eventfd in its epoll set unless it is the poster. The thread also sweeps
/// its connections' deadlines every half second (the epoll_wait timeout) and answers the
/// watchdog's probe.
final class IOThread: @unchecked Sendable {
    let index: Int
    private let epoll: Int32
    private let wakeFD: Int32
    /// The thread's pthread_t, once it runs (for `isCurrent`).
    private let threadID = Atomic<UInt>(0)

    // Confined to the thread.
    private var connections: [Int32: Connection] = [:]
    /// One read buffer for all the thread's connections: reused, never zeroed.
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 65536, alignment: 16)
    private var nextSweep: UInt64 = 0

    private struct Mailbox {
        var tasks: [@Sendable () -> Void] = []
        /// Connections with something in their inbox, each once until it is drained.
        var ready: [Connection] = []
        /// The eventfd was written and the thread has not taken the mailbox since.
        var signaled = false
    }

    private let mailbox = Mutex(Mailbox())

    /// When the watchdog's probe still in this thread's mailbox was sent (uptime ns), 0 when
    /// none is outstanding.
    let probeSent = Atomic<UInt64>(0)

    /// How often the thread sweeps its connections' deadlines.
    static let sweepInterval: UInt64 = 500_000_000

    init(index: Int) {
        self.index = index
        epoll = layoutd_epoll_create()
        wakeFD = layoutd_eventfd()
        precondition(epoll >= 0 && wakeFD >= 0, "epoll_create1/eventfd failed: \(SystemError("epoll"))")
        _ = layoutd_epoll_control(epoll, EpollOperation.add.rawValue, wakeFD, Self.readable)
    }

    /// Starts the thread; returns once it runs.
    func start() {
        let started = DispatchSemaphore(value: 0)
        let box = Unmanaged.passRetained(StartBox(thread: self, started: started)).toOpaque()
        var id = pthread_t()
        let status = pthread_create(&id, nil, { argument in
            let box = Unmanaged<StartBox>.fromOpaque(argument!).takeRetainedValue()
            box.thread.threadID.store(UInt(pthread_self()), ordering: .releasing)
            box.started.signal()
            box.thread.run()
            return nil
        }, box)
        precondition(status == 0, "pthread_create failed: \(status)")
        pthread_detach(id)
        started.wait()
    }

    private final class StartBox: @unchecked Sendable {
        let thread: IOThread
        let started: DispatchSemaphore
        init(thread: IOThread, started: DispatchSemaphore) {
            self.thread = thread
            self.started = started
        }
    }

    /// Whether the caller runs on this thread.
    var isCurrent: Bool { threadID.load(ordering: .relaxed) == UInt(pthread_self()) }

    // MARK: Mailbox (any thread)

    /// Runs `task` on this thread, after the tasks posted before it.
    func post(_ task: @escaping @Sendable () -> Void) {
        let current = isCurrent
        let wake = mailbox.withLock { mailbox in
            mailbox.tasks.append(task)
            return Self.markSignaled(&mailbox, current)
        }
        if wake { layoutd_eventfd_signal(wakeFD) }
    }

    /// `connection`'s inbox has items: drain it on this thread.
    func schedule(_ connection: Connection) {
        let current = isCurrent
        let wake = mailbox.withLock { mailbox in
            mailbox.ready.append(connection)
            return Self.markSignaled(&mailbox, current)
        }
        if wake { layoutd_eventfd_signal(wakeFD) }
    }

    /// The thread itself takes its mailbox before it next waits, so it never needs waking.
    private static func markSignaled(_ mailbox: inout Mailbox, _ current: Bool) -> Bool {
        guard !current, !mailbox.signaled else { return false }
        mailbox.signaled = true
        return true
    }

    // MARK: On the thread

    /// Watches `fd` for `connection` (`interest` in epoll bits; 0 removes it from the set).
    /// Returns false when epoll_ctl failed.
    @discardableResult
    func watch(_ fd: Int32, _ connection: Connection, from old: UInt32, to new: UInt32) -> Bool {
        let operation: EpollOperation = new == 0 ? .delete : old == 0 ? .add : .modify
        connections[fd] = connection
        return layoutd_epoll_control(epoll, operation.rawValue, fd, new) == 0
    }

    /// The connection closed its fd: forget it.
    func forget(_ fd: Int32) {
        connections[fd] = nil
    }

    /// epoll_ctl's operations (EPOLL_CTL_*, which the Glibc module does not expose).
    enum EpollOperation: Int32 {
        case add = 1, delete = 2, modify = 3
    }

    static let readable: UInt32 = 0x001
    static let writable: UInt32 = 0x004
    static let failed: UInt32 = 0x008 | 0x010

    private func run() {
        var fds = [Int32](repeating: 0, count: 64)
        var events = [UInt32](repeating: 0, count: 64)
        nextSweep = DispatchTime.now().uptimeNanoseconds + Self.sweepInterval
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let waiting = mailbox.withLock { !$0.tasks.isEmpty || !$0.ready.isEmpty }
            let timeout = waiting || nextSweep <= now ? 0 : Int32((nextSweep - now) / 1_000_000) + 1
            let count = layoutd_epoll_wait(epoll, &fds, &events, 64, timeout)
            if count < 0, errno != EINTR {
                fatalError("epoll_wait failed: \(SystemError("epoll_wait"))")
            }
            for slot in 0..<max(0, Int(count)) {
                let fd = fds[slot]
                if fd == wakeFD {
                    layoutd_eventfd_drain(wakeFD)
                } else if let connection = connections[fd] {
                    connection.handle(events: events[slot])
                }
            }
            takeMailbox()
            let after = DispatchTime.now().uptimeNanoseconds
            if after >= nextSweep {
                nextSweep = after + Self.sweepInterval
                for connection in Array(connections.values) { connection.checkDeadlines() }
                takeMailbox()
            }
        }
    }

    /// Runs posted tasks and drains ready connections' inboxes, a few rounds at most (what
    /// is posted meanwhile waits for the next turn, after the sockets are polled again).
    private func takeMailbox() {
        for _ in 0..<4 {
            let (tasks, ready) = mailbox.withLock { mailbox in
                defer {
                    mailbox.tasks.removeAll(keepingCapacity: true)
                    mailbox.ready.removeAll(keepingCapacity: true)
                    mailbox.signaled = false
                }
                return (mailbox.tasks, mailbox.ready)
            }
            if tasks.isEmpty, ready.isEmpty { return }
            for task in tasks { task() }
            for connection in ready { connection.drainInbox() }
        }
    }

    /// The watchdog's probe (from the control queue): sends a no-op through the mailbox when
    /// none is outstanding, and returns how long the outstanding one has waited (0 if none).
    func probe(now: UInt64) -> UInt64 {
        let sent = probeSent.load(ordering: .acquiring)
        guard sent == 0 else { return now &- sent }
        probeSent.store(now, ordering: .releasing)
        post { [self] in probeSent.store(0, ordering: .releasing) }
        return 0
    }

    /// The number of I/O threads for `io-threads` (0: one per online CPU).
    static func count(for setting: Int) -> Int {
        setting > 0 ? setting : max(1, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    }
}
