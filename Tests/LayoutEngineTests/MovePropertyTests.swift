import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// Interactive moves over random views and random drags: a mirror fed only the deltas equals the
/// window recomputed from scratch (the dragged item where the finger is) after every step; a
/// committed move leaves exactly the view built from the data with the item moved; a cancelled
/// one leaves the view as it was before `beginMove` (at the viewport the drag scrolled to).
/// Other changes arrive during some drags, as another client's would.
@Suite("move properties")
struct MovePropertyTests {
    static let strategies = ["flow", "collapsible", "ultravisual", "display", "waterfall"]
    static let cases = strategies.flatMap { strategy in (0..<UInt64(40)).map { (strategy, 0x40E5_0000 + $0) } }

    @Test("mirror, commit and cancel properties over random drags", arguments: cases)
    func drags(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let registry = Fixture.registry
        let view = try View(
            strategy: strategy, sections: fuzzer.sections(), viewport: fuzzer.viewport(), windowMargin: fuzzer.pick([0, 100]),
            registry: registry)
        var mirror = Dictionary(uniqueKeysWithValues: view.snapshot().map { ($0.key, $0) })
        func step(_ label: String, _ change: () throws(LayoutError) -> Invalidation) throws -> Invalidation {
            let epoch = view.epoch
            let before = view.snapshot()
            let invalidation = try change()
            let failures = ViewChecks.fullDiff(invalidation, before: before, after: view.snapshot())
                + ViewChecks.mirror(invalidation, mirror: &mirror, view: view, epoch: epoch, registry: registry)
            for failure in failures { Issue.record("seed \(seed) \(label): \(failure)") }
            if invalidation.move != view.moveReportForTests { Issue.record("seed \(seed) \(label): reported move \(invalidation.move as Any)") }
            return invalidation
        }
        for gesture in 0..<12 {
            let ids = view.model.sections.flatMap(\.itemIDs)
            guard !ids.isEmpty else {
                _ = try step("replace") { () throws(LayoutError) in try view.replaceData(fuzzer.sections()) }
                continue
            }
            let id = fuzzer.pick(ids)
            let restingModel = view.model
            _ = try step("beginMove \(id)") { () throws(LayoutError) in try view.beginMove(id) }
            let origin = try #require(view.moveState.activeMove?.origin)
            var scrolled = false
            var interrupted = false
            for _ in 0..<fuzzer.int(1...12) {
                let size = view.viewport.size
                let point = Point(x: fuzzer.half(-40...Int(size.width * 2) + 40), y: fuzzer.half(-40...Int(size.height * 2) + 40))
                let moved = try step("updateMove \(point)") { () throws(LayoutError) in try view.updateMove(to: point) }
                if let velocity = moved.move?.autoScroll, velocity != .zero, fuzzer.chance(50) {
                    var offset = view.viewport.offset
                    offset.x += velocity.x * 0.25
                    offset.y += velocity.y * 0.25
                    _ = try step("scroll by auto-scroll") { () throws(LayoutError) in try view.scroll(to: offset) }
                    scrolled = true
                }
                if fuzzer.chance(8) {
                    // Another client's change: it keeps the move (a selection, a measurement, a
                    // scroll) or ends it with a reason.
                    let mutation = fuzzer.mutation(for: view, registry: registry)
                    let untouched = ViewDump(view)
                    let other = try? step("\(mutation)") { () throws(LayoutError) in try mutation.apply(to: view, registry: registry) }
                    // A refused change leaves everything as it was, the move (target, finger,
                    // dragged frame) included: the daemon's replay of accepted changes relies on it.
                    if other == nil, ViewDump(view) != untouched { Issue.record("seed \(seed): refused \(mutation) changed the view") }
                    if let other, other.moveEnded != nil {
                        #expect(view.moveState == .idle, "seed \(seed): \(mutation) ended the move but it is still active")
                        interrupted = true
                        break
                    }
                    if case .scroll = mutation { scrolled = true } else { interrupted = true }
                }
            }
            guard let active = view.moveState.activeMove else { continue }
            let commit = fuzzer.chance(50)
            let ended = try step("endMove commit \(commit)") { () throws(LayoutError) in try view.endMove(commit: commit) }
            #expect(ended.moveEnded == MoveEnd(id: active.id, reason: commit ? .committed : .cancelled))
            #expect(view.moveState == .idle)
            guard !interrupted else { continue }
            var expectedModel = restingModel
            if commit {
                #expect(ended.changes?.movedItems == (active.target == origin ? nil : active.items), "seed \(seed) gesture \(gesture)")
                // The unit as one batch of moves, each to its final position (batch semantics:
                // destinations in the data after the batch), independent of the drag's steps.
                let section = expectedModel.sections[active.target.section].id
                try expectedModel.apply(active.items.enumerated().map { .moveItem($1, toSection: section, at: active.target.item + $0) })
            }
            let fresh = try Layout(
                strategy: MirroredStrategy.wrapping(
                    registry.makeStrategy(named: view.strategyName, parameters: view.parameters.values), in: view.layoutDirection),
                model: expectedModel, viewport: view.viewport)
            #expect(view.model.specs == expectedModel.specs, "seed \(seed) gesture \(gesture): the data after the move")
            #expect(allElements(of: view.layout) == allElements(of: fresh), "seed \(seed) gesture \(gesture): the layout after the move")
            if !commit, !scrolled {
                #expect(view.viewport == fresh.viewport)
            }
        }
    }

    @Test("bad move input is refused by name and changes nothing")
    func refusals() throws {
        let view = try View(
            strategy: "flow", sections: [SectionSpec(id: "s", items: (0..<30).map { ItemSpec(id: "i\($0)") })],
            viewport: Viewport(size: Size(width: 320, height: 200)))
        func refused(_ name: String, _ change: () throws(LayoutError) -> Invalidation) {
            let before = ViewDump(view)
            let state = view.moveState
            do {
                _ = try change()
                Issue.record("\(name): accepted")
            } catch {
                #expect(error.name == name)
            }
            #expect(ViewDump(view) == before && view.moveState == state, "\(name) changed the view")
        }
        refused("NoActiveMove") { () throws(LayoutError) in try view.updateMove(to: Point(x: 1, y: 1)) }
        refused("NoActiveMove") { () throws(LayoutError) in try view.endMove(commit: true) }
        refused("ItemNotFound") { () throws(LayoutError) in try view.beginMove("nope") }
        refused("StaleEpoch") { () throws(LayoutError) in try view.beginMove("i0", ifEpoch: 7) }
        try view.beginMove("i3")
        try view.updateMove(to: Point(x: 60, y: 150))
        refused("MoveInProgress") { () throws(LayoutError) in try view.beginMove("i4") }
        refused("InvalidParameter") { () throws(LayoutError) in try view.updateMove(to: Point(x: .nan, y: 1)) }
        refused("InvalidParameter") { () throws(LayoutError) in try view.updateMove(to: Point(x: 1, y: .infinity)) }
        // A refused batch leaves the move as it was (it went back for the batch and came back).
        refused("ItemNotFound") { () throws(LayoutError) in try view.performBatch([.deleteItems(["nope"])]) }
        refused("InvalidSize") { () throws(LayoutError) in try view.replaceData([SectionSpec(id: "s", items: [ItemSpec(id: "a", size: Size(width: -1, height: 1))])]) }
        // Deleting the moving item ends the move by name.
        let deleted = try view.performBatch([.deleteItems(["i3"])])
        #expect(deleted.moveEnded == MoveEnd(id: "i3", reason: .itemDeleted) && deleted.move == nil)
        #expect(view.moveState == .idle)
        refused("NoActiveMove") { () throws(LayoutError) in try view.endMove(commit: false) }
    }
}

extension View {
    /// What an invalidation should report about the move in force.
    var moveReportForTests: MoveReport? {
        moveState.activeMove.map(MoveReport.init)
    }
}
