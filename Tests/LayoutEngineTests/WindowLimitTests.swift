import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import TestSupport
import Testing

/// A window holds at most `ViewLimits.maximumWindowElements` elements: the ones nearest the
/// viewport. Snapshots and deltas of the cut window stay exact.
@Suite("window limit")
struct WindowLimitTests {
    static let cases = ViewPropertyTests.strategies.flatMap { strategy in (0..<UInt64(30)).map { (strategy, 0x5EED_0000 + $0) } }

    @Test("a mirror of a window cut to 5 elements equals a fresh cut window, after every mutation", arguments: cases)
    func mirrorOfCutWindow(strategy: String, seed: UInt64) {
        var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
        let limits = ViewLimits(maximumWindowElements: 5)
        for failure in ViewChecks.run(&fuzzer, strategy: strategy, steps: 150, limits: limits) {
            Issue.record("seed \(seed): \(failure)")
        }
    }

    /// One column of 100 × 100 cells, scrolled to the middle, with a margin over everything.
    func column(maximum: Int, animated: Bool = false) throws -> View {
        let items = (0..<200).map { ItemSpec(id: "i\($0)", size: Size(width: 100, height: 100)) }
        return try View(
            strategy: "flow", parameters: ["minimumInteritemSpacing": .number(0), "minimumLineSpacing": .number(0)],
            sections: [SectionSpec(id: "s", items: items)], viewport: Viewport(size: Size(width: 100, height: 300), offset: Point(x: 0, y: 10_000)),
            windowMargin: 1_000_000, limits: ViewLimits(maximumWindowElements: maximum))
    }

    @Test("a window over more than the maximum keeps the elements nearest the viewport, in key order")
    func keepsNearest() throws {
        let view = try column(maximum: 10)
        let all = view.layout.elements(in: view.window)
        #expect(all.count > 10)
        let contents = view.windowContents()
        #expect(contents.isTruncated)
        #expect(contents.elements.count == 10)
        #expect(contents.elements == contents.elements.sorted { $0.key < $1.key })
        let kept = Set(contents.elements.map(\.key))
        for element in all where element.frame.intersects(view.viewport.bounds) {
            #expect(kept.contains(element.key), "\(element.key) is on screen")
        }
        func distance(_ element: LayoutAttributes) -> Double {
            max(0, element.frame.minY - view.viewport.bounds.maxY, view.viewport.bounds.minY - element.frame.maxY)
        }
        let farthestKept = contents.elements.map(distance).max()!
        let nearestDropped = all.filter { !kept.contains($0.key) }.map(distance).min()!
        #expect(farthestKept <= nearestDropped)
    }

    @Test("a window that fits is not cut")
    func fits() throws {
        let view = try column(maximum: 1_000)
        let contents = view.windowContents()
        #expect(!contents.isTruncated)
        #expect(contents.elements.count == 200)
    }

    @Test("a delta carries at most the maximum, and an animated one at most twice that many segments")
    func boundedDelta() throws {
        let view = try column(maximum: 10)
        let inserted = (0..<50).map { ItemSpec(id: "n\($0)", size: Size(width: 100, height: 100)) }
        let invalidation = try view.performBatch([.insertItems(inserted, section: "s", at: 0)], animated: true)
        #expect(invalidation.windowTruncated)
        #expect(invalidation.entered.count + invalidation.changed.count <= 10)
        #expect(invalidation.left.count <= 10)
        #expect((invalidation.transition?.segments.count ?? 0) <= 20)
        let switched = try view.configure(["minimumLineSpacing": .number(10)], animated: true)
        #expect((switched.transition?.segments.count ?? 0) <= 20)
    }
}
