// The Swift client's long-run check (issue 37): against a real daemon, N calls mixing
// daemon.sync with view.scroll, so events flow and a followed view's mirror applies them (its
// change callback counting), sampling this process's RSS every N/20 calls. Prints one JSON line.
//
//   swift build -c release --product layoutd-client-longrun
//   .build/release/layoutd-client-longrun --socket PATH [--calls N]      (N: 1000000)
import Foundation
import LayoutGeometry
import LayoutProtocol
import LayoutdClient

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("layoutd-client-longrun: " + message + "\n").utf8))
    exit(1)
}

func residentKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

var socket: String?
var calls = 1_000_000
var arguments = CommandLine.arguments.dropFirst().makeIterator()
while let argument = arguments.next() {
    switch argument {
    case "--socket": socket = arguments.next()
    case "--calls": calls = arguments.next().flatMap { Int($0) } ?? 0
    default: fail("usage: layoutd-client-longrun --socket PATH [--calls N]")
    }
}
guard calls >= 20 else { fail("--calls takes a number of at least 20") }

let connection: LayoutdConnection
do { connection = try LayoutdConnection(path: socket) } catch { fail("\(error)") }
let view = "longrun-\(getpid())-\(UInt32.random(in: 0 ... .max))"
let items = (0..<5_000).map { WireItem(id: "i\($0)", size: .init(width: 100, height: 40 + Double($0 % 5) * 10)) }
var events = 0
var changes = 0
var samples = [Int]()
let started = ContinuousClock.now
do {
    _ = try await connection.viewCreate(
        view: view, strategy: "flow", viewport: .init(width: 390, height: 844), windowMargin: 100, sections: [WireSection(id: "s", items: items)])
    let followed = try await FollowedView(view, on: connection) { _ in changes += 1 }
    var stream = connection.events.makeAsyncIterator()
    let sampleEvery = calls / 20
    for call in 0..<calls {
        if call % 10 == 9 {
            // Back and forth over the content, so elements enter and leave.
            let offset = Point(x: 0, y: Double((call / 10) % 40) * 250)
            let scrolled = try await connection.viewScroll(view: view, offset: offset)
            while followed.mirror.epoch < scrolled.epoch, let event = await stream.next() {
                events += 1
                try await followed.handle(event)
            }
        } else {
            _ = try await connection.call("daemon.sync")
        }
        if (call + 1) % sampleEvery == 0 { samples.append(residentKiB()) }
    }
    let truth = try await connection.viewGet(view: view)
    guard truth.elements == followed.mirror.elements else { fail("the mirror differs from the daemon's window") }
    _ = try await connection.viewDelete(view: view)
} catch {
    fail("\(error)")
}
let elapsed = ContinuousClock.now - started
let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
let result: JSONObject = [
    "client": .string("swift"), "calls": .number(Double(calls)), "events": .number(Double(events)),
    "seconds": .number((seconds * 1000).rounded() / 1000), "rssKiB": .array(samples.map { .number(Double($0)) }),
    "rssWarmKiB": .number(Double(samples[1])), "rssEndKiB": .number(Double(samples.last ?? 0)),
    "strays": .number(Double(connection.strayCount)), "changes": .number(Double(changes)),
    "waitingCalls": .number(Double(connection.waitingCallCount)), "droppedEvents": .number(Double(connection.droppedEventCount)),
]
print(JSONWriter.string(.object(result)))
connection.close()
