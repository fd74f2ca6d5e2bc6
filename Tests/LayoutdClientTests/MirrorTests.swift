import LayoutGeometry
import LayoutProtocol
import LayoutdClient
import Testing

/// The client's mirror and transition helper on hand-made objects (the e2e tests check them
/// against a real daemon).
@Suite("LayoutdClient mirror")
struct MirrorTests {
    func attributes(_ id: String, y: Double, alpha: Double = 1) -> String {
        #"{"id":"\#(id)","kind":"cell","section":0,"item":0,"frame":{"x":0,"y":\#(y),"width":100,"height":50},"zIndex":0,"alpha":\#(alpha),"hidden":false}"#
    }

    func snapshot(epoch: Int, elements: [String]) throws -> Snapshot {
        let text = #"{"view":"v","strategy":"flow","params":{},"epoch":\#(epoch),"viewport":{"width":320,"height":200,"offset":{"x":0,"y":0},"contentInsets":{"top":0,"left":0,"bottom":0,"right":0}},"windowMargin":0,"window":{"x":0,"y":0,"width":320,"height":200},"contentSize":{"width":320,"height":500},"sectionCount":1,"itemCount":3,"elements":[\#(elements.joined(separator: ","))]}"#
        return try Snapshot(try JSONParser.parse(text))
    }

    func invalidation(epoch: Int, entered: [String] = [], changed: [String] = [], left: [String] = [], extra: String = "") throws -> Invalidation {
        let keys = left.map { #"{"kind":"cell","id":"\#($0)"}"# }.joined(separator: ",")
        let text = #"{"view":"v","epoch":\#(epoch),"contentSize":{"width":320,"height":500},"contentOffset":{"x":0,"y":0},"context":{},"window":{"x":0,"y":0,"width":320,"height":200},"entered":[\#(entered.joined(separator: ","))],"changed":[\#(changed.joined(separator: ","))],"left":[\#(keys)]\#(extra)}"#
        return try Invalidation(try JSONParser.parse(text))
    }

    @Test("left, then entered and changed; the same epoch twice is applied once; a skipped epoch is missed")
    func applying() throws {
        var mirror = WindowMirror(try snapshot(epoch: 3, elements: [attributes("a", y: 0), attributes("b", y: 50)]))
        let next = try invalidation(epoch: 4, entered: [attributes("c", y: 100)], changed: [attributes("b", y: 60)], left: ["a"])
        #expect(mirror.apply(next) == .applied)
        #expect(mirror.elements.map(\.id) == ["b", "c"])
        #expect(mirror[ElementKey(kind: .cell, id: "b")]?.frame.minY == 60)
        #expect(mirror.apply(next) == .alreadyApplied, "the mutating client's reply and then its event")
        #expect(mirror.apply(try invalidation(epoch: 6)) == .missed)
        #expect(mirror.epoch == 4 && mirror.count == 2, "a missed epoch changes nothing")
        #expect(mirror.apply(try invalidation(epoch: 5, extra: #","dryRun":true"#)) == .alreadyApplied, "a dry run is not applied")
        #expect(mirror.epoch == 4)
    }

    @Test("a transition at time t: from before a segment, linear during it, to after it; fading elements kept")
    func transitionAtTime() throws {
        let text = #"{"duration":1,"segments":[{"kind":"cell","id":"a","from":\#(attributes("a", y: 0)),"to":\#(attributes("a", y: 100)),"delay":0.5,"duration":0.5},{"kind":"cell","id":"gone","from":\#(attributes("gone", y: 300)),"to":\#(attributes("gone", y: 300, alpha: 0)),"delay":0,"duration":1}]}"#
        let plan = try invalidation(epoch: 4, entered: [attributes("a", y: 100)], left: [], extra: #","transition":\#(text)"#)
        let transition = try #require(plan.transition)
        let a = ElementKey(kind: .cell, id: "a")
        let gone = ElementKey(kind: .cell, id: "gone")
        #expect(transition.attributes(at: 0)[a]?.frame.minY == 0, "before its delay, at from")
        #expect(transition.attributes(at: 0.75)[a]?.frame.minY == 50)
        #expect(transition.attributes(at: 2)[a]?.frame.minY == 100)
        #expect(transition.attributes(at: 0.25)[gone]?.alpha == 0.75)
        var mirror = WindowMirror(try snapshot(epoch: 3, elements: [attributes("a", y: 0), attributes("gone", y: 300)]))
        #expect(mirror.apply(try invalidation(epoch: 4, entered: [], changed: [attributes("a", y: 100)], left: ["gone"])) == .applied)
        let drawn = mirror.elements(at: 0.25, of: transition)
        #expect(drawn.map(\.id) == ["a", "gone"], "an element that left stays on screen until its segment ends")
    }

    @Test("each segment plays on its curve; an unknown curve is named")
    func curves() throws {
        func plan(_ curve: String) throws -> Transition? {
            let text = #"{"duration":1,"segments":[{"kind":"cell","id":"a","from":\#(attributes("a", y: 0)),"to":\#(attributes("a", y: 100)),"delay":0,"duration":1,"curve":"\#(curve)"}]}"#
            return try invalidation(epoch: 4, entered: [attributes("a", y: 100)], left: [], extra: #","transition":\#(text)"#).transition
        }
        let a = ElementKey(kind: .cell, id: "a")
        let eased = try #require(try plan("easeInOut"))
        #expect(eased.segments.first?.curve == .easeInOut)
        // A quarter of the time, 12.916 % of the way (protocol/mutations.md's table).
        #expect(abs((eased.attributes(at: 0.25)[a]?.frame.minY ?? 0) - 12.9161931047) < 1e-6)
        #expect(try #require(try plan("linear")).attributes(at: 0.25)[a]?.frame.minY == 25)
        #expect(throws: DecodingFailure.self) { try plan("wobbly") }
    }

    @Test("what cannot be read is named")
    func malformed() {
        #expect(throws: DecodingFailure.self) { try Snapshot(try JSONParser.parse(#"{"view":"v"}"#)) }
        #expect(throws: DecodingFailure.self) { try Invalidation(try JSONParser.parse(#"{"view":"v","epoch":"x"}"#)) }
    }
}
