import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import LayoutProtocol
@testable import LayoutService
import Testing

/// Export and import as a property: a view driven through random mutations (data, sizes,
/// measurements, selections, scrolls, strategy switches, section scrolls, gestures), exported
/// in small parts at random moments and imported into another service, is the same view: the
/// same data, sizes and their sources, selection, viewport, strategy and parameters, window
/// margin, epoch, every element's attributes and the window. A gesture in progress is exported
/// as cancelled, so the reference is `exportableView()`.
@Suite("export and import round trip")
struct ExportPropertyTests {
    static let strategies = ["flow", "collapsible", "ultravisual", "display", "compositional"]
    static let cases = strategies.flatMap { strategy in (0..<UInt64(24)).map { (strategy, 0xE4B0_0000 + $0) } }

    @Test("an imported view equals the exported one, at every checkpoint", arguments: cases)
    func roundTrip(strategy: String, seed: UInt64) throws {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let sections = fuzzer.sections()
        let parameters = strategy == "compositional" ? fuzzer.compositionalParameters(sectionIDs: sections.map(\.id)) : [:]
        let view = try View(
            strategy: strategy, parameters: parameters, sections: sections, viewport: fuzzer.viewport(),
            windowMargin: fuzzer.pick([0, 100]))
        let budget = ItemBudget(maximum: .max)
        let host = ViewHost(name: "v", view: view, itemBudget: budget) { 1 << 20 }
        for step in 0..<120 {
            let mutation = fuzzer.chance(10) ? (fuzzer.gesture(for: view) ?? fuzzer.mutation(for: view)) : fuzzer.mutation(for: view)
            _ = try? mutation.apply(to: view)
            guard step % 15 == 14 else { continue }
            let limit = fuzzer.int(1...40)
            var lines = [[UInt8]]()
            var params = ParamsReader(["limit": .number(Double(limit))])
            while true {
                let part = try host.export(&params)
                lines.append(part)
                guard let next = try JSONParser.parse(part)["next"]?.stringValue else { break }
                params = ParamsReader(["limit": .number(Double(limit)), "cursor": .string(next)])
            }
            let service = LayoutService()
            let restored: (name: String, epoch: Int, items: Int)
            do {
                restored = try service.restoreView(lines: lines)
            } catch {
                Issue.record("seed \(seed), step \(step): the export did not import: \(error.name) \(error.message)\n\(lines.map { String(decoding: $0, as: UTF8.self) }.joined(separator: "\n").prefix(3000))")
                return
            }
            #expect(restored.name == "v")
            let copy = try service.host(named: "v").view
            let reference = try view.exportableView()
            // What must be the same. Size sources are compared by meaning: a section whose items
            // all lost their own sizes may keep an all-default column the import does not build.
            func sources(_ view: View) -> [[SizeSource]] {
                view.model.sections.map { $0.sizeSources ?? Array(repeating: .strategyDefault, count: $0.count) }
            }
            let differences = [
                ("epoch", copy.epoch == reference.epoch), ("viewport", copy.viewport == reference.viewport),
                ("strategy", copy.strategyName == reference.strategyName), ("parameters", copy.parameters == reference.parameters),
                ("margin", copy.windowMargin == reference.windowMargin), ("direction", copy.layoutDirection == reference.layoutDirection),
                ("specs", copy.model.specs == reference.model.specs), ("selection", copy.model.selection == reference.model.selection),
                ("sources", sources(copy) == sources(reference)), ("content size", copy.layout.contentSize == reference.layout.contentSize),
                ("elements", allElements(of: copy.layout) == allElements(of: reference.layout)),
                ("window", copy.snapshot() == reference.snapshot()),
            ].filter { !$0.1 }.map(\.0)
            if !differences.isEmpty {
                Issue.record("seed \(seed), step \(step) (after \(mutation)): the imported view differs in \(differences)")
                return
            }
            #expect(copy.anchorPolicy == reference.anchorPolicy && copy.scrollTarget == reference.scrollTarget)
            #expect(copy.layout.strategy.measuredSupplementaries.map(\.key) == reference.layout.strategy.measuredSupplementaries.map(\.key))
        }
    }
}
