import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// `LayoutStrategy.changeStart` is a promise the view's partial deltas rest on: every element an
/// incremental update changes, adds or removes starts at or after it along the scroll axis,
/// before and after, and everything else is unchanged to the bit. Checked over all elements
/// (not only a window) after random selections, measurements and batches, between random
/// scrolls, resizes, reconfigurations and strategy switches.
@Suite("change start")
struct ChangeStartTests {
    static let cases = ViewPropertyTests.strategies.flatMap { strategy in (0..<UInt64(40)).map { (strategy, 0xC4A6_0000 + $0) } }

    @Test("every element an update changes starts at or after the strategy's change start", arguments: cases)
    func changeStartBoundsTheChange(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let view = try View(strategy: strategy, sections: fuzzer.sections(), viewport: fuzzer.viewport())
        var checked = 0
        for step in 0..<200 {
            let mutation = fuzzer.mutation(for: view)
            let layout = view.layout
            let everything = Rect(x: -1e7, y: -1e7, width: 2e7, height: 2e7)
            let before = Dictionary(uniqueKeysWithValues: layout.elements(in: everything).map { ($0.key, $0) })
            switch mutation {
            case .select(let ids, let mode, _): try layout.select(ids, mode: mode)
            case .measure(let sizes, _): try layout.applyMeasurements(sizes)
            case .batch(let updates, _): try layout.apply(updates)
            default:
                try mutation.apply(to: view, registry: .builtIn)
                continue
            }
            guard let start = layout.strategy.changeStart else { continue }
            checked += 1
            let axis = layout.strategy.scrollAxis
            let after = Dictionary(uniqueKeysWithValues: layout.elements(in: everything).map { ($0.key, $0) })
            for key in Set(before.keys).union(after.keys) where before[key] != after[key] {
                for attributes in [before[key], after[key]].compactMap({ $0 }) {
                    let begins = axis.mainRange(of: attributes.frame).min
                    #expect(begins >= start, "seed \(seed) step \(step): \(mutation) changed \(key) at \(begins), change start \(start)")
                }
            }
        }
        #expect(checked > 0, "seed \(seed): no update reported a change start")
    }
}
