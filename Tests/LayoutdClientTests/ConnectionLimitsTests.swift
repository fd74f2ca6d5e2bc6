import Foundation
import Glibc
import LayoutGeometry
import LayoutProtocol
@testable import LayoutdClient
import Testing

/// The limits both connections keep for an application that lives for days (issue 37): no
/// per-call state left behind, late replies counted as strays, a line cap, events bounded
/// with the loss reported as a gap. The misbehaving peers of system-tests/hostile are in
/// HostileServerTests.
@Suite("connection limits")
struct ConnectionLimitsTests {
    static let calls = 200_000

    @Test("200,000 async calls against a real daemon leave no per-call state")
    func asyncCallsLeaveNothing() async throws {
        try await onOwnExecutor { try await Self.asyncCalls() }
    }

    static func asyncCalls() async throws {
        let daemon = try TestDaemon()
        let connection = try LayoutdConnection(path: daemon.socket)
        defer { connection.close() }
        // Eight tasks at a time, so replies overlap.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<(Self.calls / 8) { _ = try await connection.call("daemon.sync") }
                }
            }
            try await group.waitForAll()
        }
        #expect(connection.waitingCallCount == 0)
        #expect(connection.strayCount == 0)
        #expect(connection.recentStrays.isEmpty)
    }

    @Test("200,000 blocking calls, half of them without waiting, leave no per-call state")
    func blockingCallsLeaveNothing() async throws {
        try await onOwnThread { try Self.blockingCalls() }
    }

    static func blockingCalls() throws {
        let daemon = try TestDaemon()
        let connection = try BlockingConnection(path: daemon.socket)
        var answered = 0
        for _ in 0..<(Self.calls / 2) {
            try connection.send("daemon.sync") { result in if case .success = result { answered += 1 } }
            _ = try connection.call("daemon.sync")
        }
        while connection.waitingCallCount > 0 {
            _ = try connection.dispatch()
            if connection.waitingCallCount > 0 { try ClientSocketWait.readable(connection.fileDescriptor, seconds: 5) }
        }
        #expect(answered == Self.calls / 2)
        #expect(connection.strayCount == 0)
    }

    @Test("a call past its deadline fails alone; its late reply is a stray; the connection goes on")
    func lateReplyIsAStray() async throws {
        try await onOwnExecutor { try await Self.lateReply() }
    }

    static func lateReply() async throws {
        let peer = try ScriptedPeer { socket in
            let first = socket.readLines(1)
            // Answer the first request only after the second (whose deadline is long) arrived.
            let second = socket.readLines(1)
            let ids = (first + second).map(ScriptedPeer.Socket.id(of:))
            socket.write(ids.map { #"{"id":\#($0),"result":{}}"# + "\n" }.joined())
            _ = socket.readLines(1)
        }
        let connection = try LayoutdConnection(path: peer.path, timeout: 0.2)
        defer { connection.close() }
        let started = ContinuousClock.now
        await #expect(throws: LayoutdError.self) { try await connection.call("daemon.sync") }
        #expect(ContinuousClock.now - started < .milliseconds(700), "the deadline ends the call")
        #expect(connection.waitingCallCount == 0, "a call that timed out is forgotten")
        _ = try await connection.call("daemon.sync", timeout: 5)
        await waitUntil(seconds: 2) { connection.strayCount == 1 }
        #expect(connection.strayCount == 1)
        #expect(connection.recentStrays.first?["id"] == .number(1))
        #expect(connection.closingError == nil)
    }

    @Test("the line cap: a line of exactly the cap is read, one byte more is malformed")
    func lineCap() async throws {
        let pad = 1000 - #"{"id":1,"result":{"p":""}}"#.utf8.count
        let peer = try ScriptedPeer { socket in
            _ = socket.readLines(1)
            socket.write(#"{"id":1,"result":{"p":"\#(String(repeating: "x", count: pad))"}}"# + "\n")
            _ = socket.readLines(1)
            socket.write(#"{"id":2,"result":{"p":"\#(String(repeating: "x", count: pad + 1))"}}"# + "\n")
            _ = socket.readLines(1)
        }
        let connection = try LayoutdConnection(path: peer.path, timeout: 5, lineCap: 1000)
        _ = try await connection.call("daemon.sync")
        do {
            _ = try await connection.call("daemon.sync")
            Issue.record("a line over the cap was read")
        } catch {
            guard case .malformed = error else { return #expect(Bool(false), "wanted malformed, got \(error)") }
            #expect(connection.closedReason != nil)
        }
    }

    @Test("events nobody takes: at most 1,024 kept, the oldest dropped and reported as one gap")
    func eventsAreBounded() async {
        let queue = EventQueue()
        for seq in 1...1100 { queue.push(seq: seq, .other(name: "test", subscription: nil, params: [:])) }
        #expect(queue.count == 1024)
        #expect(queue.dropped == 76)
        var events = EventStream(queue: queue).makeAsyncIterator()
        guard case .gap(let expected, let received)? = await events.next() else { return #expect(Bool(false), "no gap first") }
        #expect(expected == 1 && received == 77)
        for _ in 77...1100 {
            guard case .other? = await events.next() else { return #expect(Bool(false), "an event missing") }
        }
        queue.finish()
        #expect(await events.next() == nil)
    }

    @Test("a line reader refuses a line without its end as soon as it passes the cap")
    func openLineOverTheCap() throws {
        var ends: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        var reader = LineReader(lineCap: 100)
        let bytes = [UInt8](repeating: 0x78, count: 100)
        _ = bytes.withUnsafeBytes { write(ends[1], $0.baseAddress, 100) }
        #expect(try reader.fill(from: ends[0]) == .read(100))
        #expect(try reader.nextLine() == nil, "exactly the cap, not ended: still a line")
        _ = write(ends[1], "x", 1)
        _ = try reader.fill(from: ends[0])
        #expect(throws: LayoutdError.self) { try reader.nextLine() }
    }
}

enum ClientSocketWait {
    /// Waits until `fd` is readable (or `seconds` pass).
    static func readable(_ fd: Int32, seconds: Double) throws {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&entry, 1, Int32(seconds * 1000))
    }
}
