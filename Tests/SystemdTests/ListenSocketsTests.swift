import Glibc
import Systemd
import Testing

/// `take(named:)`'s choice among what was passed. Reading LISTEN_* itself is proven end to
/// end, under the fd store emulator (system-tests/e2e/test_fdstore.py), since fds 3… belong to the
/// test runner here.
@Suite("passed sockets")
struct ListenSocketsTests {
    @Test("the listener is found by name among stored connections and state")
    func listenerAmongStoredDescriptors() throws {
        let listener = try listeningSocket()
        let connected = try connectedPair()
        let state = try MemoryFile.sealed(name: "state", bytes: [])
        defer { ([listener, state] + connected).forEach { close($0) } }
        let passed: [ListenSockets.Passed] = [
            .init(name: "conn.1", fd: connected[0]), .init(name: "state", fd: state), .init(name: "ipc", fd: listener),
        ]
        #expect(try ListenSockets.listener(named: "ipc", in: passed) == listener)
        // A connected socket or a memfd under the name is not a listener.
        let impostors: [ListenSockets.Passed] = [.init(name: "ipc", fd: connected[0]), .init(name: "ipc", fd: state)]
        #expect(throws: ListenSockets.Failure.self) { try ListenSockets.listener(named: "ipc", in: impostors) }
    }

    @Test("nothing passed is nil; one unnamed socket is accepted; another name is refused")
    func choices() throws {
        let listener = try listeningSocket()
        defer { close(listener) }
        #expect(try ListenSockets.listener(named: "ipc", in: []) == nil)
        #expect(try ListenSockets.listener(named: "ipc", in: [.init(name: "unknown", fd: listener)]) == listener)
        do {
            _ = try ListenSockets.listener(named: "ipc", in: [.init(name: "metrics", fd: listener), .init(name: "state", fd: 99_999)])
            Issue.record("a socket named metrics was taken for ipc")
        } catch {
            #expect("\(error)" == "systemd passed sockets metrics, state, but none named 'ipc' is a listening Unix stream socket")
        }
    }

    private func listeningSocket() throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)  // autobind: an abstract address of its own
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sa_family_t>.size)) }
        }
        try #require(fd >= 0 && bound == 0 && listen(fd, 4) == 0)
        return fd
    }

    private func connectedPair() throws -> [Int32] {
        var pair: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        return pair
    }
}
