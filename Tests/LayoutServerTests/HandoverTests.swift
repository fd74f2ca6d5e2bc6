import Dispatch
import Glibc
import LayoutIPC
@testable import LayoutServer
import LayoutService
import Testing

@Suite("taking over a handed-over connection")
struct HandoverTests {
    /// The race the fd-store restart test caught under CPU load: a connection taken over is
    /// in the service (its subscriptions restored) a moment before its own thread has taken
    /// the handed-over state, and another connection's mutation can raise an event for it in
    /// that moment. The event must wait for the handed-over output and be coalesced into the
    /// subscription's `view.resync`, numbered from the handed-over `seq`; it once went out at
    /// once as `seq` 1, ahead of everything.
    @Test("an event raised while the subscriptions are restored comes after the handed-over output, inside the resync")
    func eventDuringRestore() throws {
        var template = Array("/tmp/layoutd-handover-XXXXXX".utf8CString)
        let directory = String(cString: try #require(mkdtemp(&template)))
        defer { rmdir(directory) }
        let path = directory + "/ipc.sock"
        let listener = try UnixSocket.listen(at: path)
        defer {
            unlink(path)
            close(listener)
        }
        let settings = {
            var settings = ServerSettings()
            settings.ioThreads = 1
            return settings
        }()
        let server = LayoutServer(
            listener: listener, path: path, ownsSocketFile: false, settings: settings, logger: Logger(threshold: .error),
            controlQueue: DispatchQueue(label: "handover-test"), reloadSettings: { settings })
        server.start()

        let create = #"{"id":1,"method":"view.create","params":{"view":"v","strategy":"flow","params":{"itemSize":{"width":50,"height":50}},"viewport":{"width":100,"height":100},"sections":[{"id":"s","items":[{"id":"a"},{"id":"b"}]}]}}"#
        let created = server.service.handle(line: Array(create.utf8), from: 1_000)
        #expect(created.first.map { String(decoding: $0.line, as: UTF8.self).contains("\"result\"") } == true)

        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let ours = pair[1]
        defer {
            // Our end closes first, so the server's drain ends at once.
            close(ours)
            let stopped = DispatchSemaphore(value: 0)
            server.shutdown(reason: "test") { _ in stopped.signal() }
            _ = stopped.wait(timeout: .now() + 10)
        }
        let handedOutput = Array(#"{"id":41,"result":{"view":"v"}}"#.utf8) + [10]
        let record = HandedConnection(
            name: "conn.7", fd: pair[0], uid: getuid(), nextSeq: 42, partialLine: [], output: handedOutput,
            subscriptions: [HandedConnection.Subscription(id: 9, view: "v")])
        let adopted = server.adopt(record) { connection in
            // Another connection's mutation, as the view's executor delivers it.
            server.deliver(Event(
                connection: connection, name: "view.invalidated", subscription: 9, params: Array(#"{"view":"v","epoch":2}"#.utf8)))
        }
        #expect(adopted)

        let lines = try readLines(ours, count: 2)
        #expect(lines.first == String(decoding: handedOutput.dropLast(), as: UTF8.self), "the handed-over output comes first")
        let resync = try #require(lines.last)
        #expect(resync.hasPrefix(#"{"event":"view.resync","subscription":9,"seq":42,"#), "then the resync, numbered on: \(resync)")
        #expect(resync.contains(#""skipped":1"#), "the event raised meanwhile is inside it: \(resync)")
        #expect(!lines.contains { $0.contains(#""seq":1,"#) }, "no event numbered afresh: \(lines)")
    }

    /// `count` lines from `fd`, within five seconds (a poll, not a sleep).
    private func readLines(_ fd: Int32, count: Int) throws -> [String] {
        var buffer = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        let deadline = DispatchTime.now().uptimeNanoseconds + 5_000_000_000
        while buffer.filter({ $0 == 10 }).count < count {
            let left = Int64(deadline) - Int64(DispatchTime.now().uptimeNanoseconds)
            try #require(left > 0, "only \(String(decoding: buffer, as: UTF8.self)) within 5 s")
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(left / 1_000_000)) > 0 else { continue }
            let read = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            try #require(read > 0, "the connection ended after \(String(decoding: buffer, as: UTF8.self))")
            buffer += chunk[0..<read]
        }
        return buffer.split(separator: 10).prefix(count).map { String(decoding: $0, as: UTF8.self) }
    }
}
