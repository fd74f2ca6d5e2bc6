import Glibc
import LayoutGeometry
import LayoutProtocol
import LayoutdClient
import Testing

/// `BlockingConnection` inside a `poll` main loop, as clients/swift/README.md shows it: the
/// loop watches `fileDescriptor`, dispatches when it is readable or `hasPendingInput` says
/// lines are already buffered, sleeps at most `secondsUntilNextDeadline`, and never blocks on
/// the daemon.
@Suite("main-loop integration")
struct MainLoopTests {
    /// One turn of the loop: waits for input (up to `seconds`, less when a call's deadline
    /// comes sooner), then dispatches. Returns the events.
    static func turn(_ connection: BlockingConnection, seconds: Double) throws -> [JSONObject] {
        if !connection.hasPendingInput {
            let wait = min(seconds, connection.secondsUntilNextDeadline ?? seconds)
            var entry = pollfd(fd: connection.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32((wait * 1000).rounded(.up)))
        }
        return try connection.dispatch()
    }

    @Test("a poll loop gets the calls' replies through callbacks and every event, buffered ones too")
    func pollLoop() throws {
        let daemon = try TestDaemon()
        let driver = try BlockingConnection(path: daemon.socket)
        let view = "loop-\(getpid())"
        _ = try driver.viewCreate(
            view: view, strategy: "flow", viewport: .init(width: 320, height: 200),
            sections: [WireSection(id: "s", items: (0..<200).map { WireItem(id: "i\($0)", size: .init(width: 100, height: 50)) })])
        let loop = try BlockingConnection(path: daemon.socket)
        var subscribed: Result<JSONValue, LayoutdError>?
        try loop.send("view.subscribe", ["view": .string(view)]) { subscribed = $0 }
        #expect(loop.waitingCallCount == 1)
        var events = [JSONObject]()
        while subscribed == nil { events += try Self.turn(loop, seconds: 5) }
        #expect(try subscribed?.get()["subscription"]?.integerValue != nil)

        for step in 1...5 { _ = try driver.viewScroll(view: view, offset: Point(x: 0, y: Double(step) * 100)) }
        // A blocking call on the loop's connection reads the five events before its reply: they
        // wait in the client, where no fd watch sees them.
        _ = try loop.call("daemon.sync")
        #expect(loop.hasPendingInput, "events read during the call are pending")
        let end = ContinuousClock.now + .seconds(5)
        while events.count < 5, ContinuousClock.now < end { events += try Self.turn(loop, seconds: 0.5) }
        #expect(events.compactMap { $0["seq"]?.integerValue } == [1, 2, 3, 4, 5])
        #expect(!loop.hasPendingInput)
        #expect(loop.waitingCallCount == 0 && loop.strayCount == 0)
        _ = try driver.viewDelete(view: view)
    }

    @Test("a call made without waiting times out through the loop, on time")
    func callbackDeadline() throws {
        let peer = try ScriptedPeer { socket in _ = socket.readLines(2) }
        let loop = try BlockingConnection(path: peer.path, timeout: 10)
        var outcome: Result<JSONValue, LayoutdError>?
        let started = ContinuousClock.now
        try loop.send("daemon.sync", timeout: 0.2) { outcome = $0 }
        while outcome == nil, ContinuousClock.now - started < .seconds(3) { _ = try Self.turn(loop, seconds: 1) }
        guard case .failure(.timeout(let seconds))? = outcome else { return #expect(Bool(false), "wanted a timeout, got \(String(describing: outcome))") }
        #expect(seconds == 0.2)
        #expect(ContinuousClock.now - started < .milliseconds(700))
        #expect(loop.waitingCallCount == 0)
    }
}
