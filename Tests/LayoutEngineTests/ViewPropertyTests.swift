import LayoutEngine
import LayoutGeometry
import TestSupport
import Testing

/// The key property of incremental invalidation: a client that applies every delta to a mirror
/// of its window always holds exactly what a fresh full query of the window gives, and the
/// content size always equals a layout recomputed from scratch. Refused mutations change
/// nothing at all.
@Suite("view properties")
struct ViewPropertyTests {
    static let strategies = ["flow", "collapsible", "ultravisual", "display"]
    static let sequencesPerStrategy = 125
    static let mutationsPerSequence = 200
    static let cases = strategies.flatMap { strategy in
        (0..<UInt64(sequencesPerStrategy)).map { (strategy, 0xD17A_0000 + $0) }
    }

    @Test("a mirror fed with deltas equals a fresh query, after every mutation", arguments: cases)
    func mirrorMatchesFreshLayout(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(seed: seed)
        let view = try View(
            strategy: strategy, sections: fuzzer.sections(), viewport: fuzzer.viewport(),
            windowMargin: fuzzer.pick([0, 100]))
        var mirror = Dictionary(uniqueKeysWithValues: view.snapshot().map { ($0.key, $0) })
        var history = [String]()
        for step in 0..<Self.mutationsPerSequence {
            if fuzzer.chance(8) {
                let mutation = fuzzer.invalidMutation(for: view)
                let before = ViewDump(view)
                do {
                    try mutation.apply(to: view)
                    Issue.record("seed \(seed) step \(step): \(mutation) was accepted")
                    return
                } catch {
                    #expect(ViewDump(view) == before, "seed \(seed) step \(step): refused \(mutation) changed the view (\(error.name))")
                }
                continue
            }
            let mutation = fuzzer.mutation(for: view)
            history.append(mutation.description)
            let epoch = view.epoch
            let invalidation: Invalidation
            do {
                invalidation = try mutation.apply(to: view)
            } catch {
                Issue.record("seed \(seed) step \(step): valid \(mutation) refused: \(error.name) \(error.message)")
                return
            }
            Self.verifyEffect(of: mutation, on: view, invalidation: invalidation, seed: seed, step: step)
            guard Self.check(invalidation, mirror: &mirror, view: view, epoch: epoch) else {
                Issue.record(
                    "seed \(seed) step \(step): mirror diverged after \(mutation)\nlast mutations:\n  \(history.suffix(5).joined(separator: "\n  "))")
                return
            }
        }
    }

    /// The mutation did what it says, beyond keeping the mirror consistent.
    static func verifyEffect(of mutation: ViewMutation, on view: View, invalidation: Invalidation, seed: UInt64, step: Int) {
        let context = "seed \(seed) step \(step): \(mutation)"
        switch mutation {
        case .scroll(let offset, _):
            #expect(view.viewport.offset == offset, "\(context)")
        case .resize(let size, _):
            #expect(view.viewport.size == size, "\(context)")
        case .margin(let margin):
            #expect(view.windowMargin == margin, "\(context)")
        case .configure(let changes, _):
            for (name, value) in changes {
                #expect(view.parameters.values[name] == value, "\(context)")
            }
        case .switchStrategy(let name, _):
            #expect(view.strategyName == name, "\(context)")
            #expect(type(of: view.layout.strategy).descriptor.name == name, "\(context)")
        case .scrollEnd:
            #expect(invalidation.targetContentOffset == view.viewport.offset, "\(context)")
        case .select(let ids, let mode, _):
            switch mode {
            case .add: #expect(ids.allSatisfy(view.model.isSelected), "\(context)")
            case .remove: #expect(!ids.contains(where: view.model.isSelected), "\(context)")
            case .set: #expect(view.model.selection == Set(ids), "\(context)")
            case .toggle: break
            }
        case .measure(let sizes, _):
            var last = [String: Size]()
            for (id, size) in sizes { last[id] = size }
            for (id, size) in last {
                let path = view.model.indexPath(ofItem: id)!
                let stored = view.model.sections[path.section].baseSize(ofItem: path.item, default: view.layout.strategy.defaultItemSize)
                #expect(stored.isClose(to: size, tolerance: 0.5 + 1e-9), "\(context): \(id) is \(stored)")
            }
        case .replace(let sections, _):
            #expect(view.model.specs.map(\.id) == sections.map(\.id), "\(context)")
            #expect(view.model.sections.map { Array($0.itemIDs) } == sections.map { $0.items.map(\.id) }, "\(context)")
        case .batch(let updates, _):
            for update in updates {
                switch update {
                case .deleteItems(let ids): #expect(ids.allSatisfy { view.model.indexPath(ofItem: $0) == nil }, "\(context)")
                case .insertItems(let items, _, _): #expect(items.allSatisfy { view.model.indexPath(ofItem: $0.id) != nil }, "\(context)")
                case .deleteSections(let ids): #expect(ids.allSatisfy { view.model.sectionIndex(of: $0) == nil }, "\(context)")
                case .insertSections(let sections, _): #expect(sections.allSatisfy { view.model.sectionIndex(of: $0.id) != nil }, "\(context)")
                default: break
                }
            }
        }
    }

    /// Applies `invalidation` to `mirror` and compares with a layout built from scratch.
    static func check(_ invalidation: Invalidation, mirror: inout [ElementKey: LayoutAttributes], view: View, epoch: Int) -> Bool {
        var ok = true
        func fail(_ message: String) {
            Issue.record(Comment(rawValue: message))
            ok = false
        }
        if invalidation.epoch != epoch + 1 { fail("epoch \(invalidation.epoch) after \(epoch)") }
        if invalidation.window != view.window { fail("window \(invalidation.window) is not the view's \(view.window)") }
        if invalidation.contentOffset != view.viewport.offset { fail("offset \(invalidation.contentOffset) vs \(view.viewport.offset)") }
        for key in invalidation.left where mirror.removeValue(forKey: key) == nil { fail("\(key) left but was not held") }
        for attributes in invalidation.entered {
            if mirror.updateValue(attributes, forKey: attributes.key) != nil { fail("\(attributes.key) entered but was held") }
        }
        for attributes in invalidation.changed {
            if mirror.updateValue(attributes, forKey: attributes.key) == nil { fail("\(attributes.key) changed but was not held") }
        }
        guard
            let fresh = try? Layout(
                strategy: StrategyRegistry.builtIn.makeStrategy(named: view.strategyName, parameters: view.parameters.values),
                model: view.model, viewport: view.viewport)
        else {
            fail("the view's own state does not rebuild")
            return false
        }
        let expected = Dictionary(uniqueKeysWithValues: fresh.elements(in: view.window).map { ($0.key, $0) })
        if mirror != expected {
            let missing = Set(expected.keys).subtracting(mirror.keys).sorted().prefix(5)
            let extra = Set(mirror.keys).subtracting(expected.keys).sorted().prefix(5)
            let wrong = mirror.keys.filter { expected[$0] != nil && expected[$0] != mirror[$0] }.sorted().prefix(5)
            fail("mirror differs: missing \(Array(missing)) extra \(Array(extra)) wrong \(wrong.map { "\($0): \(mirror[$0]!.frame) vs \(expected[$0]!.frame)" })")
        }
        if fresh.contentSize != view.layout.contentSize || invalidation.contentSize != fresh.contentSize {
            fail("content size \(view.layout.contentSize), reported \(invalidation.contentSize), from scratch \(fresh.contentSize)")
        }
        if let transition = invalidation.transition {
            // Each element's last segment ends where the element now is (or fades out where it was).
            var last = [ElementKey: TransitionSegment]()
            for segment in transition.segments { last[segment.key] = segment }
            for (key, segment) in last {
                if let now = fresh.attributes(for: key), segment.to != now, segment.to.alpha != 0 {
                    fail("transition of \(key) ends at \(segment.to.frame), the element is at \(now.frame)")
                }
            }
        }
        return ok
    }
}

/// Large sections (hundreds of lines, several line chunks), single-item edits: the re-flow
/// path, compared with a layout built from scratch after every step. Lives with the view
/// properties because it drives a view the same way.
@Suite("flow re-flow at scale")
struct FlowReflowTests {
    @Test("single edits in a large flow section equal a fresh layout", arguments: 0..<UInt64(6))
    func singleEdits(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var next = 0
        func item() -> ItemSpec {
            next += 1
            var spec = ItemSpec(id: "i\(next)", estimatedSize: Size(width: Double(Int.random(in: 40...200, using: &random)), height: Double(Int.random(in: 20...90, using: &random))))
            if Int.random(in: 0..<10, using: &random) == 0 { spec.selectedSize = Size(width: 370, height: 200) }
            return spec
        }
        let parameters: [String: ParameterValue] = [
            "lastLineAlignment": .string(["automatic", "gridAligned", "centered", "justified"][Int(seed % 4)]),
            "spacingMode": .string(seed % 3 == 0 ? "fixed" : "justified"),
        ]
        let view = try View(
            strategy: "flow", parameters: parameters,
            sections: [SectionSpec(id: "a", items: (0..<40).map { _ in item() }), SectionSpec(id: "b", items: (0..<2500).map { _ in item() })],
            viewport: Viewport(size: Size(width: 390, height: 844)), windowMargin: 100)
        for step in 0..<120 {
            let ids = view.model.sections[1].itemIDs
            let id = ids[Int.random(in: 0..<ids.count, using: &random)]
            switch Int.random(in: 0..<5, using: &random) {
            case 0: try view.performBatch([.insertItems([item()], section: "b", at: Int.random(in: 0...ids.count, using: &random))])
            case 1: try view.performBatch([.deleteItems([id])])
            case 2: try view.measure([(id, Size(width: Double(Int.random(in: 40...200, using: &random)), height: 50))])
            case 3: try view.select([id], mode: .toggle)
            default: try view.scroll(to: Point(x: 0, y: Double(Int.random(in: 0...Int(view.layout.contentSize.height), using: &random))))
            }
            let fresh = try Layout(
                strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow", parameters: view.parameters.values),
                model: view.model, viewport: view.viewport)
            #expect(view.layout.contentSize == fresh.contentSize, "seed \(seed) step \(step)")
            for _ in 0..<3 {
                let y = Double(Int.random(in: 0...Int(fresh.contentSize.height), using: &random))
                let rect = Rect(x: 0, y: y, width: 390, height: 900)
                let mine = Set(view.layout.elements(in: rect))
                let theirs = Set(fresh.elements(in: rect))
                #expect(mine == theirs, "seed \(seed) step \(step) rect \(rect)")
                if mine != theirs { return }
            }
        }
    }
}
