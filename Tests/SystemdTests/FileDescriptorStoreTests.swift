import Foundation
import Glibc
import Synchronization
import Systemd
import Testing

/// FDSTORE and FDSTOREREMOVE as the service manager receives them: names, working fds, order
/// among the other notifications, and the barrier. Serialized: NOTIFY_SOCKET is process-wide.
@Suite("the file descriptor store", .serialized)
struct FileDescriptorStoreTests {
    @Test("stored fds arrive under their names, work, and outlive the caller's own copies")
    func storeCarriesNamedWorkingDescriptors() throws {
        let manager = try NotifySocket()
        defer { manager.close() }
        let notifier = Notifier()
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        defer { close(pair[1]) }
        let state = try MemoryFile.sealed(name: "state", bytes: Array("views: 3".utf8))

        notifier.status("handing over")
        try notifier.store([pair[0]], name: "conn.7")
        try notifier.store([state], name: "state", poll: false)
        // The queue sends duplicates: the caller's fds may go at once.
        close(pair[0])
        close(state)
        try notifier.removeStored(named: "conn.7")

        let status = try #require(manager.receive())
        #expect(status.lines == ["STATUS=handing over"] && status.fds.isEmpty)
        let connection = try #require(manager.receive())
        #expect(connection.lines == ["FDSTORE=1", "FDNAME=conn.7"])
        #expect(connection.fds.count == 1)
        let stored = try #require(manager.receive())
        #expect(stored.lines == ["FDSTORE=1", "FDNAME=state", "FDPOLL=0"])
        #expect(stored.fds.count == 1)
        let removal = try #require(manager.receive())
        #expect(removal.lines == ["FDSTOREREMOVE=1", "FDNAME=conn.7"] && removal.fds.isEmpty)

        // The stored connection is the same socket: bytes written through it reach the peer.
        let received = try #require(connection.fds.first)
        #expect(write(received, "ping", 4) == 4)
        var buffer = [UInt8](repeating: 0, count: 8)
        #expect(read(pair[1], &buffer, 8) == 4)
        #expect(Array(buffer[0..<4]) == Array("ping".utf8))
        #expect(try MemoryFile.read(try #require(stored.fds.first), limit: 1 << 20) == Array("views: 3".utf8))
        for fd in connection.fds + stored.fds { close(fd) }
    }

    @Test("a barrier returns once the manager has processed everything sent before it")
    func barrierConfirmsProcessing() throws {
        let manager = try NotifySocket()
        defer { manager.close() }
        let notifier = Notifier()
        let memory = try MemoryFile.sealed(name: "state", bytes: [1, 2, 3])
        defer { close(memory) }
        try notifier.store([memory], name: "state")
        let answered = Answer()
        let waiter = Thread { let delivery = notifier.barrier(timeout: 10); answered.withLock { $0 = delivery } }
        waiter.start()
        let stored = try #require(manager.receive())
        #expect(stored.lines.first == "FDSTORE=1")
        stored.fds.forEach { close($0) }
        // BARRIER=1 alone, with one fd: the write end of a pipe the caller waits on.
        let barrier = try #require(manager.receive())
        #expect(barrier.lines == ["BARRIER=1"])
        #expect(barrier.fds.count == 1)
        #expect(answered.withLock { $0 } == nil, "the barrier returned before the manager closed its fd")
        barrier.fds.forEach { close($0) }
        let deadline = Date().addingTimeInterval(10)
        while answered.withLock({ $0 }) == nil, Date() < deadline { usleep(1000) }
        #expect(answered.withLock { $0 } == .confirmed)
    }

    @Test("a barrier the manager never answers times out")
    func barrierTimesOut() throws {
        let manager = try NotifySocket()
        defer { manager.close() }
        let started = Date()
        #expect(Notifier().barrier(timeout: 0.2) == .timedOut)
        #expect(Date().timeIntervalSince(started) < 5)
        manager.receive()?.fds.forEach { close($0) }
    }

    @Test("bad names, counts and fds are refused and nothing is sent")
    func badRequestsAreRefused() throws {
        let manager = try NotifySocket()
        defer { manager.close() }
        let notifier = Notifier()
        let memory = try MemoryFile.sealed(name: "state", bytes: [])
        defer { close(memory) }
        for name in ["", "a:b", "tab\there", "new\nline", "caf\u{E9}", "\u{7F}", String(repeating: "x", count: 256)] {
            #expect(throws: Notifier.StoreFailure.invalidName(name)) { try notifier.store([memory], name: name) }
            #expect(throws: Notifier.StoreFailure.invalidName(name)) { try notifier.removeStored(named: name) }
        }
        #expect(throws: Notifier.StoreFailure.descriptorCount(0)) { try notifier.store([], name: "state") }
        #expect(throws: Notifier.StoreFailure.descriptorCount(254)) {
            try notifier.store(Array(repeating: memory, count: 254), name: "state")
        }
        #expect(throws: Notifier.StoreFailure.system(call: "fcntl(F_DUPFD_CLOEXEC)", code: EBADF)) {
            try notifier.store([memory, 99_999], name: "state")
        }
        // Names systemd accepts: printable ASCII up to 255, spaces and punctuation included.
        for name in ["conn.1", "a b", "~!@#$%^&*()_+{}|\"<>?", String(repeating: "x", count: 255)] {
            #expect(Notifier.isValidStoreName(name), "\(name)")
        }
        notifier.status("after")
        let next = try #require(manager.receive())
        #expect(next.lines == ["STATUS=after"], "a refused request sent something")
    }

    @Test("without NOTIFY_SOCKET nothing is sent, and names are still checked")
    func disabledWithoutSocket() throws {
        unsetenv("NOTIFY_SOCKET")
        let notifier = Notifier()
        #expect(!notifier.isEnabled)
        #expect(notifier.barrier(timeout: 1) == .disabled)
        #expect(throws: Notifier.StoreFailure.invalidName("a:b")) { try notifier.store([0], name: "a:b") }
        try notifier.store([0], name: "stdin")
    }
}

/// The barrier's answer, set by the thread that waits for it.
private final class Answer: Sendable {
    private let value = Mutex<Notifier.Delivery?>(nil)

    func withLock<T>(_ body: (inout Notifier.Delivery?) -> T) -> T { value.withLock { body(&$0) } }
}
