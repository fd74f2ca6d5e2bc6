// The Systemd module's fd store building blocks in a real process under the emulator
// (system-tests/e2e/fdstore.py, test_fdstore.py): a fresh start takes "ipc" with
// ListenSockets.take(named:), accepts one client, stores it as "conn.1" and a sealed memfd as
// "state" with Notifier.store; SIGTERM replaces "state" and waits on the barrier. A start given
// stored fds reports ListenSockets.passed() and answers the stored client on its connection.
import Glibc
import Systemd

let notifier = Notifier()

func describe(_ passed: ListenSockets.Passed) -> String {
    if (try? ListenSockets.listener(named: passed.name, in: [passed])) != nil { return "listener" }
    if let bytes = try? MemoryFile.read(passed.fd, limit: 4096) { return "memfd:" + String(decoding: bytes, as: UTF8.self) }
    var type: Int32 = 0
    var length = socklen_t(MemoryLayout<Int32>.size)
    return getsockopt(passed.fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0 && type == Int32(SOCK_STREAM.rawValue) ? "stream" : "other"
}

func fail(_ message: String) -> Never {
    notifier.status("failed: \(message)")
    _ = notifier.barrier(timeout: 5)
    exit(2)
}

do {
    let passed = try ListenSockets.passed()
    let report = passed.map { "[\"\($0.name)\", \($0.fd), \"\(describe($0))\"]" }.joined(separator: ", ")
    let cloexec = passed.allSatisfy { fcntl($0.fd, F_GETFD) & FD_CLOEXEC != 0 }
    notifier.status("passed [\(report)]")
    notifier.status("cloexec \(cloexec) environment \(getenv("LISTEN_FDS") == nil ? "cleared" : "kept")")
    let listener = try ListenSockets.take(named: "ipc")
    if let connection = passed.first(where: { $0.name == "conn.1" }) {
        let state = passed.first { $0.name == "state" }.flatMap { try? MemoryFile.read($0.fd, limit: 4096) } ?? []
        let line = Array("resumed pid=\(getpid()) state=\(String(decoding: state, as: UTF8.self))\n".utf8)
        guard write(connection.fd, line, line.count) == line.count else { fail("write: \(errno)") }
        notifier.ready(status: "resumed")
    } else {
        guard let listener else { fail("no ipc socket") }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { fail("accept: \(errno)") }
        try notifier.store([client], name: "conn.1")
        let state = try MemoryFile.sealed(name: "state", bytes: Array("v1".utf8))
        try notifier.store([state], name: "state")
        close(state)
        notifier.ready(status: "fresh")
    }
    var terminate = sigset_t()
    sigemptyset(&terminate)
    sigaddset(&terminate, SIGTERM)
    pthread_sigmask(SIG_BLOCK, &terminate, nil)
    var received: Int32 = 0
    sigwait(&terminate, &received)
    notifier.stopping(status: "handing over")
    try notifier.removeStored(named: "state")
    let state = try MemoryFile.sealed(name: "state", bytes: Array("v2 from SIGTERM".utf8))
    try notifier.store([state], name: "state")
    notifier.status("barrier \(notifier.barrier(timeout: 5) == .confirmed ? "confirmed" : "not confirmed")")
    notifier.flush(timeout: 5)
    exit(0)
} catch {
    fail("\(error)")
}
