// Drives LayoutdClient against a running layoutd, for system-tests/e2e/test_clients.py:
//
//   layoutd-client-check transcript SOCKET FILE      replay one transcript through the client
//   layoutd-client-check mirror SOCKET SCENARIO      the shared mirror scenario (clients/conformance)
//   layoutd-client-check restart-create SOCKET       create the restart test's view
//   layoutd-client-check restart-restore SOCKET      after a daemon restart: restore and compare
//
// Prints one line of counts and exits 0, or prints the first difference and exits 1.
import Foundation
import LayoutProtocol
import LayoutdClient

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

/// Whether `actual` matches `expected`, where the string "<any>" in `expected` matches anything.
func matches(_ expected: JSONValue, _ actual: JSONValue) -> Bool {
    if expected == .string("<any>") { return true }
    switch (expected, actual) {
    case (.object(let e), .object(let a)):
        return e.pairs.count == a.pairs.count && zip(e.pairs, a.pairs).allSatisfy { $0.key == $1.key && matches($0.value, $1.value) }
    case (.array(let e), .array(let a)):
        return e.count == a.count && zip(e, a).allSatisfy { matches($0, $1) }
    default:
        return expected == actual
    }
}

func isExpected(_ line: [UInt8]) -> JSONObject? {
    guard case .object(let object)? = try? JSONParser.parse(line) else { return nil }
    return object["result"] != nil || object["error"] != nil || object["event"] != nil ? object : nil
}

/// A request line the typed API can send as it is: a canonical object with an integer id, a
/// method and params (an object) or none, nothing else; anything else goes raw.
func typedRequest(_ line: [UInt8]) -> (id: Int, method: String, params: JSONObject)? {
    guard case .object(let object)? = try? JSONParser.parse(line), JSONWriter.encode(.object(object)) == line,
        let id = object["id"]?.integerValue, id > 0, let method = object["method"]?.stringValue,
        object.pairs.allSatisfy({ ["id", "method", "params"].contains($0.key) })
    else { return nil }
    if let params = object["params"] {
        guard let params = params.objectValue else { return nil }
        return (id, method, params)
    }
    return (id, method, [:])
}

/// Sends one request through the method's generated types when they reproduce its params
/// exactly (decoded into `Params`, encoded back to the same bytes); the result must decode
/// into `Result`. False: the params are not what the typed API writes (key order, an extra or
/// invalid field), so the caller sends the line as it is.
func typedCall<Method: LayoutdMethod>(_ method: Method.Type, _ params: JSONObject, on connection: LayoutdConnection, _ file: String) async -> Bool {
    guard let typed = try? Method.Params(.object(params), "params"), JSONWriter.encode(.object(typed.json)) == JSONWriter.encode(.object(params)) else {
        return false
    }
    do {
        _ = try await connection.call(method, typed)
    } catch .malformed(let reason) {
        fail("\(file): \(Method.name)'s result does not decode into its Result: \(reason)")
    } catch {
        // A refusal the transcript expects (compared with its line below).
    }
    return true
}

/// Replays a transcript: request lines through their method's generated types when those
/// write the very same line, plain requests they cannot express through `call` with raw
/// params, anything else as raw lines; every reply and event compared with the transcript's,
/// in order.
func replay(socket: String, file: String) async {
    guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    let lines = Array(data).split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
    var connection: LayoutdConnection
    do { connection = try LayoutdConnection(path: socket, observingReplies: true) } catch { fail("\(error)") }
    var replies = connection.replies.makeAsyncIterator()
    var events = connection.events.makeAsyncIterator()
    var reconnects = 0
    var typed = 0
    var raw = 0
    var viaTypes = 0
    var compared = 0
    var index = 0
    while index < lines.count {
        // One step: request lines, then the lines the daemon writes back.
        var requests = [[UInt8]]()
        while index < lines.count, isExpected(lines[index]) == nil { requests.append(lines[index]); index += 1 }
        var expected = [JSONObject]()
        while index < lines.count, let object = isExpected(lines[index]) { expected.append(object); index += 1 }
        var idMap = [Int: Int]()  // the client's id → the transcript's
        for request in requests {
            if let (id, method, params) = typedRequest(request) {
                typed += 1
                // The client numbers its own requests; the reply's id is mapped back.
                let clientID = typed
                idMap[clientID] = id
                // Keep the daemon's order: this request's reply is in before the next line goes.
                if let type = LayoutdMethods.named(method), await typedCall(type, params, on: connection, file) {
                    viaTypes += 1
                } else {
                    _ = try? await connection.call(method, params)
                }
            } else {
                raw += 1
                do { try connection.send(rawLine: request) } catch { fail("\(file): \(error)") }
            }
        }
        for var object in expected {
            // The client checks `seq` itself (a gap arrives as an event of its own, which fails
            // here), so the comparison leaves it out.
            if object["event"] != nil { object["seq"] = nil }
            let actual: JSONObject?
            if object["event"] != nil {
                guard let event = await events.next() else { fail("\(file): the connection closed, expected \(JSONWriter.string(.object(object)))") }
                actual = eventObject(event)
            } else {
                guard var reply = await replies.next() else { fail("\(file): the connection closed, expected \(JSONWriter.string(.object(object)))") }
                if let id = reply["id"]?.integerValue, let original = idMap[id] { reply["id"] = .number(Double(original)) }
                actual = reply
            }
            guard let actual, matches(.object(object), .object(actual)) else {
                fail("\(file): expected\n  \(JSONWriter.string(.object(object)))\nactual\n  \(actual.map { JSONWriter.string(.object($0)) } ?? "an event the client could not decode")")
            }
            compared += 1
            // After these errors the daemon closes the connection: the transcript goes on on a new one.
            if let name = object["error"]?["name"]?.stringValue, ["LineTooLong", "IdleTimeout"].contains(name) {
                while await replies.next() != nil {}
                do { connection = try LayoutdConnection(path: socket, observingReplies: true) } catch { fail("\(file): \(error)") }
                replies = connection.replies.makeAsyncIterator()
                events = connection.events.makeAsyncIterator()
                reconnects += 1
                (typed, raw) = (0, 0)
            }
        }
    }
    connection.close()
    print("\(file): \(compared) lines compared (\(reconnects) reconnections), \(viaTypes) requests through the generated types")
}

/// The event as its line's object, for comparison (the client keeps the object it read).
func eventObject(_ event: Event) -> JSONObject? {
    switch event {
    case .invalidated(let id, let invalidation):
        return ["event": .string("view.invalidated"), "subscription": .number(Double(id)), "params": .object(invalidation.json)]
    case .resync(let id, let skipped, let snapshot):
        return ["event": .string("view.resync"), "subscription": .number(Double(id)),
                "params": .object(["view": .string(snapshot.view), "skipped": .number(Double(skipped)), "snapshot": .object(snapshot.json)])]
    case .deleted(let id, let view):
        return ["event": .string("view.deleted"), "subscription": .number(Double(id)), "params": .object(["view": .string(view)])]
    case .shutdown(let params):
        return ["event": .string("daemon.shutdown"), "params": .object(params)]
    case .other(let name, let id, let params):
        var object: JSONObject = ["event": .string(name)]
        if let id { object["subscription"] = .number(Double(id)) }
        object["params"] = .object(params)
        return object
    case .gap:
        return nil
    }
}

/// The shared mirror scenario: a driver sends every line; a follower's mirror, fed only its
/// subscription's events, must equal the daemon's window after each one.
func mirror(socket: String, file: String) async {
    guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
    let lines = Array(data).split(separator: 0x0A, omittingEmptySubsequences: true).map(Array.init)
    do {
        let driver = try LayoutdConnection(path: socket)
        let follower = try LayoutdConnection(path: socket)
        var events = follower.events.makeAsyncIterator()
        var applied = 0
        var refused = 0
        var followed: FollowedView?
        for (number, line) in lines.enumerated() {
            guard let (_, method, params) = typedRequest(line) else { fail("line \(number + 1) is not a plain request") }
            do {
                _ = try await driver.call(method, params)
            } catch let error where error.name != nil {
                refused += 1
            }
            if followed == nil { followed = try await FollowedView("mirror", on: follower) }
            guard let followed else { continue }
            let truth = try await driver.viewGet(view: "mirror")
            while followed.mirror.epoch < truth.epoch {
                guard let event = await events.next() else { fail("the follower's connection closed") }
                if try await followed.handle(event) { applied += 1 }
            }
            let mirrored = followed.mirror.elements
            guard followed.mirror.epoch == truth.epoch, mirrored == truth.elements, followed.mirror.window == truth.window,
                followed.mirror.contentSize == truth.contentSize
            else {
                let missing = Set(truth.elements.map(\.key)).symmetricDifference(mirrored.map(\.key))
                let differing = zip(truth.elements, mirrored).first { $0 != $1 }
                fail("line \(number + 1) (\(method)): the mirror at epoch \(followed.mirror.epoch) differs from the daemon's window at \(truth.epoch): keys only on one side \(missing.sorted().prefix(5)), first differing \(differing.map { "\($0.0) vs \($0.1)" } ?? "none")")
            }
        }
        driver.close()
        follower.close()
        print("mirror: \(lines.count) lines, \(applied) events applied, \(refused) refused, the mirror equal to the daemon's window after every one")
    } catch {
        fail("\(error)")
    }
}

/// The restart test's data: what the client keeps of its own to make the view again.
let restartRecipe = LayoutdMethods.ViewCreate.Params(
    view: "kept", strategy: "flow", viewport: .init(width: 320, height: 480), windowMargin: 50,
    sections: [WireSection(id: "s", items: (0..<500).map { WireItem(id: "r\($0)", size: .init(width: 100, height: 40 + Double($0 % 7) * 10)) })])

/// After a restart: the reconnect helper makes the view again from the recipe and follows it;
/// a change made after that reaches the mirror, which equals the daemon's window.
func restore(socket: String) async {
    do {
        let reconnector = Reconnector(path: socket, recipes: { [restartRecipe] })
        let (connection, followed) = try await reconnector.restore(timeout: 20)
        guard let view = followed.first else { fail("nothing restored") }
        var events = connection.events.makeAsyncIterator()
        let driver = try LayoutdConnection(path: socket)
        let scrolled = try await driver.viewScroll(view: "kept", offset: .init(x: 0, y: 900))
        while view.mirror.epoch < scrolled.epoch {
            guard let event = await events.next() else { fail("closed") }
            try await view.handle(event)
        }
        let truth = try await driver.viewGet(view: "kept")
        guard view.mirror.elements == truth.elements, truth.itemCount == 500 else { fail("the restored mirror differs from the daemon's window") }
        print("restart: view restored with \(truth.itemCount) items, the mirror equal to the daemon's window (\(truth.elements.count) elements)")
    } catch {
        fail("\(error)")
    }
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: layoutd-client-check transcript|mirror|restart-create|restart-restore SOCKET [FILE]") }
switch arguments[1] {
case "transcript" where arguments.count == 4: await replay(socket: arguments[2], file: arguments[3])
case "mirror" where arguments.count == 4: await mirror(socket: arguments[2], file: arguments[3])
case "restart-create":
    do {
        let connection = try LayoutdConnection(path: arguments[2])
        _ = try await connection.call(LayoutdMethods.ViewCreate.self, restartRecipe)
        print("created")
    } catch { fail("\(error)") }
case "restart-restore": await restore(socket: arguments[2])
default: fail("unknown command \(arguments[1])")
}
