import LayoutFuzzing
import LayoutGeometry
import Testing

@testable import LayoutEngine

/// The solver lays out a flat group (items only, fixed gaps, no count, nothing uniform) in one
/// pass (`placeFlat`) instead of the general three. Both must give the same section to the
/// last bit: random descriptions from the fuzzer's generator (flat and not, nested, every
/// dimension), random item sizes (own, or none: the description decides), random viewports.
@Suite("compositional: the flat path equals the general one")
struct CompositionalFlatPathTests {
    static let seeds = (0..<UInt64(400)).map { 0xF1A7_0000 + $0 }

    @Test("every section the same with and without the flat path", arguments: seeds)
    func samePlacement(seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let parameters = fuzzer.compositionalParameters(sectionIDs: ["a", "b"])
        let strategy = try StrategyRegistry.builtIn.makeStrategy(named: "compositional", parameters: parameters)
        let layout = try #require((strategy as? CompositionalLayout) ?? (strategy as? MirroredStrategy)?.inner as? CompositionalLayout)
        let configuration = layout.configuration
        let viewport = fuzzer.viewport()
        for description in [configuration.defaultSection] + configuration.sectionsByID.values {
            let sizes = (0..<fuzzer.int(0...40)).map { _ in
                fuzzer.chance(40) ? Size(width: -1, height: -1) : Size(width: fuzzer.half(0...300), height: fuzzer.half(0...200))
            }
            let (flat, general) = sizes.withUnsafeBufferPointer { buffer in
                var flat = CompositionalSectionSolver(description: description, main: configuration.main, viewport: viewport, sizes: buffer, open: [:])
                var general = CompositionalSectionSolver(
                    description: description, main: configuration.main, viewport: viewport, sizes: buffer, open: [:], usesFlatPath: false)
                return (flat.solve(), general.solve())
            }
            let context = "seed \(seed): \(description.group) with \(sizes.count) items in \(viewport.size)"
            #expect(flat.extent == general.extent, "\(context): extent")
            #expect(flat.cells == general.cells, "\(context): cells\nflat    \(flat.cells)\ngeneral \(general.cells)")
            #expect(flat.badges.map(\.frame) == general.badges.map(\.frame) && flat.badges.map(\.item) == general.badges.map(\.item),
                    "\(context): badges")
            #expect(flat.spans.map { [Double($0.firstItem), Double($0.firstBadge), $0.low, $0.high, $0.groupStart, $0.groupEnd] }
                    == general.spans.map { [Double($0.firstItem), Double($0.firstBadge), $0.low, $0.high, $0.groupStart, $0.groupEnd] },
                    "\(context): spans")
            #expect(flat.orthogonal?.contentExtent == general.orthogonal?.contentExtent, "\(context): orthogonal extent")
        }
    }

    @Test("the seeds reach flat groups, and groups that are not")
    func coverage() throws {
        var flat = 0
        var other = 0
        for seed in Self.seeds {
            var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
            let parameters = fuzzer.compositionalParameters(sectionIDs: ["a", "b"])
            let strategy = try StrategyRegistry.builtIn.makeStrategy(named: "compositional", parameters: parameters)
            let layout = try #require((strategy as? CompositionalLayout) ?? (strategy as? MirroredStrategy)?.inner as? CompositionalLayout)
            for description in [layout.configuration.defaultSection] + layout.configuration.sectionsByID.values {
                let tree = CompiledGroup(description.group)
                for index in 0..<tree.groups.count { if tree.groups[index].isFlat { flat += 1 } else { other += 1 } }
            }
        }
        #expect(flat >= 200 && other >= 200, "flat groups \(flat), others \(other)")
    }
}
