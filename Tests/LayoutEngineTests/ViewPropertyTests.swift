import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// The key property of incremental invalidation: a client that applies every delta to a mirror
/// of its window always holds exactly what a fresh full query of the window gives, and the
/// content size always equals a layout recomputed from scratch. Refused mutations change
/// nothing at all.
@Suite("view properties")
struct ViewPropertyTests {
    static let strategies = ["flow", "collapsible", "ultravisual", "display", "compositional"]
    static let sequencesPerStrategy = 125
    static let mutationsPerSequence = 200
    static let cases = strategies.flatMap { strategy in
        (0..<UInt64(sequencesPerStrategy)).map { (strategy, 0xD17A_0000 + $0) }
    }

    @Test("a mirror fed with deltas equals a fresh query, after every mutation", arguments: cases)
    func mirrorMatchesFreshLayout(strategy: String, seed: UInt64) {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        for failure in ViewChecks.run(&fuzzer, strategy: strategy, steps: Self.mutationsPerSequence) {
            Issue.record("seed \(seed): \(failure)")
        }
    }
}

/// Windows near the maximum they may hold: scrolls cross from whole windows to cut ones and
/// back, where a scroll's delta must stop coming from the bands alone.
@Suite("view properties near the window maximum")
struct WindowMaximumPropertyTests {
    static let cases = ViewPropertyTests.strategies.flatMap { strategy in
        [6, 15, 40].flatMap { maximum in (0..<UInt64(12)).map { (strategy, maximum, 0xB4ED_0000 + $0) } }
    }

    @Test("a mirror fed with deltas equals a fresh query, windows cut or whole", arguments: cases)
    func mirrorMatchesFreshLayout(strategy: String, maximum: Int, seed: UInt64) {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let limits = ViewLimits(maximumWindowElements: maximum)
        for failure in ViewChecks.run(&fuzzer, strategy: strategy, steps: ViewPropertyTests.mutationsPerSequence, limits: limits) {
            Issue.record("seed \(seed), maximum \(maximum): \(failure)")
        }
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
