import LayoutGeometry
import LayoutProtocol
import LayoutdClient
import Testing

/// The mirror's change report (what entered, changed and left), as a property over random
/// steps: applied to the elements before a step it gives the elements after it, entered keys
/// are new, changed keys were there and still are, left keys were there and are gone.
@Suite("mirror change callback")
struct MirrorChangeTests {
    /// SplitMix64: the same steps on every run.
    struct Random: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static let universe = (0..<24).map { "e\($0)" }

    func attributes(_ id: String, y: Int) -> String {
        #"{"id":"\#(id)","kind":"cell","section":0,"item":0,"frame":{"x":0,"y":\#(y),"width":100,"height":50},"zIndex":0,"alpha":1,"hidden":false}"#
    }

    func randomElements(_ random: inout Random) -> [String] {
        Self.universe.filter { _ in Bool.random(using: &random) }.map { attributes($0, y: Int.random(in: 0..<4, using: &random) * 50) }
    }

    func snapshot(epoch: Int, _ elements: [String]) throws -> Snapshot {
        try Snapshot(try JSONParser.parse(#"{"view":"v","strategy":"flow","params":{},"epoch":\#(epoch),"viewport":{"width":320,"height":200,"offset":{"x":0,"y":0},"contentInsets":{"top":0,"left":0,"bottom":0,"right":0}},"windowMargin":0,"window":{"x":0,"y":0,"width":320,"height":200},"contentSize":{"width":320,"height":500},"sectionCount":1,"itemCount":24,"elements":[\#(elements.joined(separator: ","))]}"#))
    }

    func invalidation(epoch: Int, entered: [String], changed: [String], left: [String]) throws -> Invalidation {
        let keys = left.map { #"{"kind":"cell","id":"\#($0)"}"# }.joined(separator: ",")
        return try Invalidation(try JSONParser.parse(#"{"view":"v","epoch":\#(epoch),"contentSize":{"width":320,"height":500},"contentOffset":{"x":0,"y":0},"context":{},"window":{"x":0,"y":0,"width":320,"height":200},"entered":[\#(entered.joined(separator: ","))],"changed":[\#(changed.joined(separator: ","))],"left":[\#(keys)]}"#))
    }

    func check(_ change: WindowMirror.Change, before: [ElementKey: Attributes], after mirror: WindowMirror, step: String) {
        var replayed = before
        for key in change.left { replayed[key] = nil }
        for element in change.entered + change.changed { replayed[element.key] = element }
        let after = Dictionary(uniqueKeysWithValues: mirror.elements.map { ($0.key, $0) })
        #expect(replayed == after, "\(step): the change applied to the elements before does not give the elements after")
        #expect(change.entered.allSatisfy { before[$0.key] == nil }, "\(step): an entered key was there")
        #expect(change.changed.allSatisfy { before[$0.key] != nil && after[$0.key] != nil }, "\(step): a changed key was not there before and after")
        #expect(change.left.allSatisfy { before[$0] != nil && after[$0] == nil }, "\(step): a left key was not there, or still is")
        let keys = change.entered.map(\.key) + change.changed.map(\.key) + change.left
        #expect(Set(keys).count == keys.count, "\(step): a key reported twice")
        #expect(change.epoch == mirror.epoch)
    }

    @Test("invalidations and resyncs, 2,000 random steps: the change turns the old elements into the new")
    func randomSteps() throws {
        var random = Random(state: 37)
        var mirror = WindowMirror(try snapshot(epoch: 1, randomElements(&random)))
        var reported = 0
        for step in 0..<2000 {
            let before = Dictionary(uniqueKeysWithValues: mirror.elements.map { ($0.key, $0) })
            if step % 10 == 9 {
                let change = mirror.replace(with: try snapshot(epoch: mirror.epoch + 3, randomElements(&random)))
                check(change, before: before, after: mirror, step: "resync at step \(step)")
                // A resync reports only what differs.
                #expect(change.changed.allSatisfy { before[$0.key] != $0 })
                continue
            }
            let left = Self.universe.filter { _ in Int.random(in: 0..<4, using: &random) == 0 }
            var reports = [WindowMirror.Change]()
            let outcome = mirror.apply(
                try invalidation(epoch: mirror.epoch + 1, entered: randomElements(&random), changed: randomElements(&random), left: left)
            ) { reports.append($0) }
            #expect(outcome == .applied)
            #expect(reports.count == 1)
            reported += reports.count
            for change in reports { check(change, before: before, after: mirror, step: "invalidation at step \(step)") }
        }
        #expect(reported == 1800)
    }

    @Test("a step not applied (the same epoch again, a missed one, a dry run) reports nothing")
    func nothingReported() throws {
        var mirror = WindowMirror(try snapshot(epoch: 3, [attributes("a", y: 0)]))
        var reports = 0
        #expect(mirror.apply(try invalidation(epoch: 3, entered: [], changed: [], left: ["a"])) { _ in reports += 1 } == .alreadyApplied)
        #expect(mirror.apply(try invalidation(epoch: 5, entered: [], changed: [], left: ["a"])) { _ in reports += 1 } == .missed)
        #expect(reports == 0)
        #expect(mirror.count == 1)
    }

    @Test("a followed view calls onChange for each applied step; the changes rebuild its window")
    func followedView() async throws {
        let daemon = try TestDaemon()
        let connection = try LayoutdConnection(path: daemon.socket)
        defer { connection.close() }
        _ = try await connection.viewCreate(
            view: "changes", strategy: "flow", viewport: .init(width: 320, height: 200), windowMargin: 0,
            sections: [WireSection(id: "s", items: (0..<300).map { WireItem(id: "i\($0)", size: .init(width: 100, height: 50)) })])
        var rebuilt = [ElementKey: Attributes]()
        var steps = 0
        let followed = try await FollowedView("changes", on: connection) { change in
            steps += 1
            for key in change.left { rebuilt[key] = nil }
            for element in change.entered + change.changed { rebuilt[element.key] = element }
        }
        for element in followed.mirror.elements { rebuilt[element.key] = element }
        var events = connection.events.makeAsyncIterator()
        for step in 1...6 {
            let scrolled = try await connection.viewScroll(view: "changes", offset: Point(x: 0, y: Double(step) * 170))
            while followed.mirror.epoch < scrolled.epoch, let event = await events.next() { try await followed.handle(event) }
        }
        #expect(steps == 6)
        #expect(rebuilt.values.sorted { $0.key < $1.key } == followed.mirror.elements)
        #expect(followed.mirror.elements == (try await connection.viewGet(view: "changes")).elements)
    }
}
