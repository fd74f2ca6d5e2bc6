import Foundation
import Glibc
import LayoutdClient

/// A real layoutd on a socket of its own for one test: `LAYOUTD_BINARY`, else this tree's
/// debug build (`swift build` builds it with the tests).
final class TestDaemon {
    let socket: String
    private let process: Process
    private let directory: String

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let binary = ProcessInfo.processInfo.environment["LAYOUTD_BINARY"] ?? root.appendingPathComponent(".build/debug/layoutd").path
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("layoutd-client-\(getpid())-\(UInt32.random(in: 0 ... .max))").path
        socket = directory + "/ipc.sock"
        process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["--socket", socket, "--set", "default-plugin-dir=none", "--log-level", "warning"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Serving once a connection gets a reply.
        let end = ContinuousClock.now + .seconds(10)
        while true {
            if let probe = try? BlockingConnection(path: socket, timeout: 1), (try? probe.call("daemon.hello")) != nil { return }
            guard ContinuousClock.now < end, process.isRunning else { throw PeerFailure(message: "layoutd at \(binary) did not start serving") }
            usleep(10_000)
        }
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// A fake daemon for one connection, scripted by the test: `serve` gets the accepted socket
/// (blocking) on a thread of its own.
final class ScriptedPeer: @unchecked Sendable {
    let path: String
    private let listener: Int32

    init(_ serve: @escaping @Sendable (ScriptedPeer.Socket) -> Void) throws {
        path = "/tmp/layoutd-peer-\(getpid())-\(UInt32.random(in: 0 ... .max)).sock"
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 4) == 0 else { throw PeerFailure(message: "cannot listen at \(path)") }
        let listening = listener
        Thread {
            let fd = accept(listening, nil, nil)
            guard fd >= 0 else { return }
            serve(Socket(fd: fd))
            close(fd)
        }.start()
    }

    deinit {
        close(listener)
        unlink(path)
    }

    struct Socket: Sendable {
        let fd: Int32

        func write(_ text: String) {
            var bytes = Array(text.utf8)
            var sent = 0
            while sent < bytes.count {
                let count = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
        }

        /// The request lines read until `count` arrived (or the client closed), as text.
        func readLines(_ count: Int) -> [String] {
            var lines = [String]()
            var pending = [UInt8]()
            var chunk = [UInt8](repeating: 0, count: 4096)
            while lines.count < count {
                let read = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                guard read > 0 else { break }
                pending += chunk[0..<read]
                while let newline = pending.firstIndex(of: 0x0A) {
                    lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeFirst(newline + 1)
                }
            }
            return lines
        }

        /// The `id` of a request line this client wrote (`{"id":N,...`).
        static func id(of line: String) -> Int {
            Int(line.dropFirst(6).prefix { $0.isNumber }) ?? -1
        }
    }
}

struct PeerFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs blocking work on a thread of its own and awaits it: a test that blocks for seconds
/// must not hold one of the few threads of Swift's cooperative pool (two on a two-core
/// machine), or the async tests running beside it stall and miss their deadlines.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Runs async work with its jobs on a thread of its own (a task executor preference), so
/// what it measures (a call ending at its deadline) is the client's timing, not the wait for
/// one of the cooperative pool's threads: in the full `swift test`, thousands of CPU-bound
/// test cases queue on that pool ahead of a resumed call.
func onOwnExecutor<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    let executor = ThreadExecutor()
    defer { executor.stop() }
    return try await withTaskExecutorPreference(executor) { try await body() }
}

/// A task executor with one thread that runs its jobs in order.
final class ThreadExecutor: TaskExecutor, @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false

    init() {
        let thread = Thread { [self] in run() }
        thread.name = "test executor"
        thread.start()
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Ends the thread once the jobs queued so far ran.
    func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            guard !jobs.isEmpty else {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
