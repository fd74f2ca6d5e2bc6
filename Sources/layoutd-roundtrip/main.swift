// layoutd-roundtrip: loopback round trip of `view.scroll` against a running layoutd, beside
// the floor: a bare Unix-socket ping-pong of the same request and reply sizes in the same run.
//
//   layoutd-roundtrip --socket PATH [--items 100000] [--strategy flow] [--requests 5000] [--json]
//   layoutd-roundtrip --socket PATH --throughput CLIENTS [--depth 16] [--seconds 3] [--json]
//
// Creates a view (data sent in batches under the line cap), scrolls it like a finger does
// (16 pt per frame, back and forth), one request in flight at a time, and prints p50/p90/p99.
// With --throughput, CLIENTS connections each scroll a view of their own, keeping --depth
// requests in flight, and the total replies per second is printed.
import Dispatch
import Foundation
import Glibc
import LayoutIPC
import LayoutProtocol
import Synchronization

struct Options {
    var socket = ""
    var items = 100_000
    var strategy = "flow"
    var requests = 5_000
    var throughputClients: Int?
    var depth = 16
    var seconds = 3.0
    var json = false

    init(_ arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--socket": socket = iterator.next() ?? ""
            case "--items": items = iterator.next().flatMap(Int.init) ?? items
            case "--strategy": strategy = iterator.next() ?? strategy
            case "--requests": requests = iterator.next().flatMap(Int.init) ?? requests
            case "--throughput": throughputClients = iterator.next().flatMap(Int.init)
            case "--depth": depth = iterator.next().flatMap(Int.init) ?? depth
            case "--seconds": seconds = iterator.next().flatMap(Double.init) ?? seconds
            case "--json": json = true
            default: Self.usage("unknown argument \(argument)")
            }
        }
        if socket.isEmpty { Self.usage("--socket is required") }
    }

    static func usage(_ message: String) -> Never {
        print("layoutd-roundtrip: \(message)\nusage: layoutd-roundtrip --socket PATH [--items N] [--strategy flow|ultravisual] [--requests N]")
        exit(64)
    }
}

extension LineConnection {
    func sendOrDie(_ bytes: [UInt8]) {
        do { try send(bytes) } catch { fatal("\(error)") }
    }

    func readLineOrDie() -> ArraySlice<UInt8> {
        do {
            guard let line = try readLine() else { fatal("connection closed") }
            return line
        } catch {
            fatal("\(error)")
        }
    }

    /// Sends a request and returns its reply line's length, checking it is a result.
    func call(_ method: String, _ params: JSONObject, id: Int) -> Int {
        sendOrDie(request(method, params, id: id))
        let line = readLineOrDie()
        guard let reply = try? JSONParser.parse(line), reply["result"] != nil else {
            fatal("\(method) failed: \(String(decoding: line.prefix(300), as: UTF8.self))")
        }
        return line.count + 1
    }
}

func request(_ method: String, _ params: JSONObject, id: Int) -> [UInt8] {
    JSONWriter.encode(.object(["id": .number(Double(id)), "method": .string(method), "params": .object(params)])) + [0x0A]
}

func fatal(_ message: String) -> Never {
    print("layoutd-roundtrip: \(message)")
    exit(1)
}

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func summary(_ samples: [Double]) -> (p50: Double, p90: Double, p99: Double) {
    let sorted = samples.sorted()
    func at(_ fraction: Double) -> Double { sorted[min(sorted.count - 1, Int(fraction * Double(sorted.count)))] }
    return (at(0.5), at(0.9), at(0.99))
}

let options = Options(Array(CommandLine.arguments.dropFirst()))

func connect() -> LineConnection {
    do {
        return try LineConnection(path: options.socket)
    } catch {
        fatal("\(error)")
    }
}

/// Creates `view` with `count` items, sent in batches under the line cap; variable sizes so a
/// flow is not the uniform fast path.
func createView(_ client: LineConnection, _ view: String, items count: Int) {
    let parameters: JSONObject = options.strategy == "flow" ? ["itemSize": .size(.init(width: 90, height: 90))] : [:]
    _ = client.call(
        "view.create",
        ["view": .string(view), "strategy": .string(options.strategy), "params": .object(parameters),
         "viewport": .object(["width": .number(390), "height": .number(844)]),
         "sections": .array([.object(["id": .string("s"), "items": .array([])])])],
        id: 1)
    var inserted = 0
    while inserted < count {
        let batch = min(20_000, count - inserted)
        let items: [JSONValue] = (inserted..<(inserted + batch)).map { index in
            .object(["id": .string("i\(index)"), "size": .object(["width": .number(Double(60 + index % 70)), "height": .number(Double(60 + index % 50))])])
        }
        _ = client.call(
            "view.update",
            ["view": .string(view), "updates": .array([.object(["op": .string("insertItems"), "section": .string("s"), "at": .number(Double(inserted)), "items": .array(items)])])],
            id: 2)
        inserted += batch
    }
}

/// A scroll request at step `index` of a finger scrolling 16 pt a frame back and forth.
func scrollLine(_ view: String, step index: Int) -> [UInt8] {
    let phase = index % 500
    let y = Double(phase < 250 ? phase : 500 - phase) * 16
    return request("view.scroll", ["view": .string(view), "offset": .object(["x": .number(0), "y": .number(y)])], id: 10 + index)
}

func emitJSON(_ name: String, n: Int, unit: String, _ value: Double) {
    guard options.json else { return }
    var writer = JSONWriter()
    writer.write(.object([
        "name": .string(name), "group": .string("daemon"), "strategy": .string(options.strategy), "n": .number(Double(n)),
        "unit": .string(unit), "median": .number(value), "low": .number(value), "high": .number(value),
    ]))
    print(String(decoding: writer.bytes, as: UTF8.self))
}

if let clients = options.throughputClients {
    // Each client its own view (a view is serial by design), pipelining `depth` requests.
    let counts = Mutex([Int](repeating: 0, count: clients))
    let ready = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    var threads = [Thread]()
    let deadline = Mutex<UInt64>(0)
    for number in 0..<clients {
        ready.enter()
        finished.enter()
        let thread = Thread {
            let connection = connect()
            let view = "throughput-\(getpid())-\(number)"
            createView(connection, view, items: options.items)
            ready.leave()
            start.wait()
            let end = deadline.withLock { $0 }
            var sent = 0
            var received = 0
            while sent < options.depth {
                connection.sendOrDie(scrollLine(view, step: sent))
                sent += 1
            }
            while now() < end {
                _ = connection.readLineOrDie()
                received += 1
                connection.sendOrDie(scrollLine(view, step: sent))
                sent += 1
            }
            while received < sent {
                _ = connection.readLineOrDie()
                received += 1
            }
            counts.withLock { $0[number] = received }
            _ = connection.call("view.delete", ["view": .string(view)], id: 3)
            finished.leave()
        }
        thread.stackSize = 1 << 20
        threads.append(thread)
        thread.start()
    }
    ready.wait()
    let began = now()
    deadline.withLock { $0 = began + UInt64(options.seconds * 1e9) }
    for _ in 0..<clients { start.signal() }
    finished.wait()
    let elapsed = Double(now() - began) / 1e9
    let total = counts.withLock { $0.reduce(0, +) }
    let rate = Double(total) / elapsed
    print("view.scroll throughput, \(options.strategy), \(options.items) items per view, \(clients) clients, depth \(options.depth): \(Int(rate)) requests/s")
    emitJSON("view.scroll throughput, \(clients) pipelining clients", n: options.items, unit: "requests/s", rate)
    exit(0)
}

let client = connect()
let view = "roundtrip-\(getpid())"
createView(client, view, items: options.items)

// Scroll like a finger: 16 pt a frame over a 4000 pt stretch, back and forth.
var latencies = [Double]()
var requestBytes = 0
var replyBytes = 0
let total = options.requests + 500
for index in 0..<total {
    let line = scrollLine(view, step: index)
    let started = now()
    client.sendOrDie(line)
    let reply = client.readLineOrDie()
    let elapsed = Double(now() - started) / 1000
    guard reply.starts(with: Array(#"{"id":"#.utf8)), !reply.contains(where: { $0 == 0 }) else { fatal("bad reply") }
    if index >= 500 {  // the first 500 warm up
        latencies.append(elapsed)
        requestBytes += line.count
        replyBytes += reply.count + 1
    }
}
_ = client.call("view.delete", ["view": .string(view)], id: 3)

// The floor: the same request and reply sizes over a socketpair, echoed by a thread.
let meanRequest = requestBytes / latencies.count
let meanReply = replyBytes / latencies.count
var pair: [Int32] = [0, 0]
guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0 else { fatal("socketpair") }
let peer = pair[1]
let replyLine = [UInt8](repeating: UInt8(ascii: "x"), count: meanReply - 1) + [0x0A]
let responder = DispatchQueue(label: "floor")
responder.async {
    let server = LineConnection(fd: peer)
    for _ in 0..<total {
        _ = server.readLineOrDie()
        server.sendOrDie(replyLine)
    }
}
let floorClient = LineConnection(fd: pair[0])
let floorRequest = [UInt8](repeating: UInt8(ascii: "y"), count: meanRequest - 1) + [0x0A]
var floor = [Double]()
for index in 0..<total {
    let started = now()
    floorClient.sendOrDie(floorRequest)
    _ = floorClient.readLineOrDie()
    if index >= 500 { floor.append(Double(now() - started) / 1000) }
}

let daemon = summary(latencies)
let bare = summary(floor)
print("view.scroll round trip, \(options.strategy), \(options.items) items, \(latencies.count) requests, request \(meanRequest) B, reply \(meanReply) B")
func microseconds(_ value: Double) -> String {
    let text = String((value * 10).rounded() / 10)
    return String(repeating: " ", count: max(0, 9 - text.count)) + text + " µs"
}
print("  layoutd     p50 \(microseconds(daemon.p50))   p90 \(microseconds(daemon.p90))   p99 \(microseconds(daemon.p99))")
print("  bare floor  p50 \(microseconds(bare.p50))   p90 \(microseconds(bare.p90))   p99 \(microseconds(bare.p99))")
print("  ratio       p50 \((daemon.p50 / bare.p50 * 100).rounded() / 100) ×")
emitJSON("view.scroll round trip p50", n: options.items, unit: "µs", daemon.p50)
emitJSON("view.scroll round trip p99", n: options.items, unit: "µs", daemon.p99)
emitJSON("bare socket ping-pong p50 (same sizes)", n: options.items, unit: "µs", bare.p50)
emitJSON("bare socket ping-pong p99 (same sizes)", n: options.items, unit: "µs", bare.p99)
