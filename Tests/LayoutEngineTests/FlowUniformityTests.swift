@testable import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// A flow section switches between the uniform (arithmetic, grid-aligned last line) and the
/// varying representation as sizes come and go; single edits keep the count of differing
/// neighbours exact instead of rescanning.
@Suite("flow uniformity under edits")
struct FlowUniformityTests {
    @Test("the count of differing neighbours stays exact and frames match a fresh layout", arguments: 0..<UInt64(12))
    func breaksStayExact(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let sizes = [Size(width: 50, height: 50), Size(width: 60, height: 50)]
        var next = 0
        func item() -> ItemSpec {
            next += 1
            return ItemSpec(id: "i\(next)", size: Int.random(in: 0..<5, using: &random) == 0 ? sizes[1] : sizes[0])
        }
        let view = try View(
            strategy: "flow", sections: [SectionSpec(id: "s", items: (0..<Int.random(in: 1...40, using: &random)).map { _ in item() })],
            viewport: Viewport(size: Size(width: 375, height: 2000)))
        for step in 0..<150 {
            let ids = Array(view.model.sections[0].itemIDs)
            switch Int.random(in: 0..<3, using: &random) {
            case 0: try view.performBatch([.insertItems([item()], section: "s", at: Int.random(in: 0...ids.count, using: &random))])
            case 1 where ids.count > 1: try view.performBatch([.deleteItems([ids.randomElement(using: &random)!])])
            default:
                try view.measure([(ids.randomElement(using: &random)!, sizes.randomElement(using: &random)!)])
            }
            let flow = try #require(view.layout.strategy as? FlowLayout)
            let section = view.model.sections[0]
            var expected = 0
            for index in 1..<max(1, section.count) where section.baseSize(ofItem: index, default: .zero) != section.baseSize(ofItem: index - 1, default: .zero) {
                expected += 1
            }
            #expect(flow.sections[0].sizeBreaks == expected, "seed \(seed) step \(step)")
            let fresh = try Layout(strategy: StrategyRegistry.builtIn.makeStrategy(named: "flow"), model: view.model, viewport: view.viewport)
            #expect(allElements(of: view.layout) == allElements(of: fresh), "seed \(seed) step \(step)")
        }
    }
}
