@testable import LayoutEngine
import TestSupport
import Testing

@Suite("flow line lists")
struct LineListTests {
    @Test("random splices agree with a plain array, across many chunks", arguments: 0..<UInt64(20))
    func matchesArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        func line() -> FlowLine {
            FlowLine(
                count: Int.random(in: 1...4, using: &random), used: 0,
                thickness: Double(Int.random(in: 0...40, using: &random)) / 2,
                placement: LinePlacement(start: 0, gap: 0))
        }
        var reference = (0..<Int.random(in: 0...900, using: &random)).map { _ in line() }
        var list = LineList(reference, spacing: 2.5)
        for _ in 0..<60 {
            let lower = Int.random(in: 0...reference.count, using: &random)
            let upper = min(reference.count, lower + Int.random(in: 0...5, using: &random))
            let replacement = (0..<Int.random(in: 0...(Bool.random(using: &random) ? 6 : 300), using: &random)).map { _ in line() }
            reference.replaceSubrange(lower..<upper, with: replacement)
            list.replace(lower..<upper, with: replacement)

            #expect(list.all == reference)
            #expect(list.lineCount == reference.count)
            #expect(list.itemCount == reference.reduce(0) { $0 + $1.count })
            var starts = [Double]()
            var firsts = [Int]()
            var main = 0.0
            var item = 0
            for line in reference {
                starts.append(main)
                firsts.append(item)
                main += line.thickness + 2.5
                item += line.count
            }
            #expect(list.mainExtent == (reference.isEmpty ? 0 : main - 2.5))
            for _ in 0..<10 where !reference.isEmpty {
                let index = Int.random(in: 0..<reference.count, using: &random)
                let position = list.position(ofLine: index)
                #expect(position?.firstItem == firsts[index] && position?.mainStart == starts[index])
                let probe = firsts[index] + Int.random(in: 0..<reference[index].count, using: &random)
                #expect(list.position(containingItem: probe)?.line == index, "item \(probe)")
                let y = Double(Int.random(in: -10...Int(main) + 10, using: &random))
                let expected = reference.indices.first { starts[$0] + reference[$0].thickness > y }
                #expect(list.position(endingAfter: y)?.line == expected, "main \(y)")
            }
        }
    }
}
