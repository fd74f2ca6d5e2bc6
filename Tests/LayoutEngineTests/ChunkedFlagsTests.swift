@testable import LayoutEngine
import TestSupport
import Testing

@Suite("chunked flags")
struct ChunkedFlagsTests {
    @Test("prefix sums, searches and edits agree with a plain array across splits", arguments: 0..<UInt64(8))
    func matchesArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var reference = (0..<Int.random(in: 0...1500, using: &random)).map { _ in UInt8.random(in: 0...1, using: &random) }
        var flags = ChunkedFlags(reference)
        for step in 0..<400 {
            switch Int.random(in: 0..<4, using: &random) {
            case 0, 1:
                // Insert mostly near the front so one chunk overflows and splits.
                let index = step % 3 == 0 ? Int.random(in: 0...reference.count, using: &random) : min(reference.count, 3)
                let values = (0..<Int.random(in: 1...6, using: &random)).map { _ in UInt8.random(in: 0...1, using: &random) }
                reference.insert(contentsOf: values, at: index)
                flags.insert(contentsOf: values, at: index)
            case 2 where !reference.isEmpty:
                let index = Int.random(in: 0..<reference.count, using: &random)
                reference.remove(at: index)
                flags.remove(at: index)
            default:
                guard !reference.isEmpty else { continue }
                let index = Int.random(in: 0..<reference.count, using: &random)
                let value = UInt8.random(in: 0...1, using: &random)
                reference[index] = value
                flags.set(value, at: index)
            }
            #expect(flags.count == reference.count)
            #expect(flags.total == reference.reduce(0) { $0 + Int($1) })
            for _ in 0..<5 {
                let count = Int.random(in: 0...reference.count, using: &random)
                #expect(flags.prefixSum(count) == reference[..<count].reduce(0) { $0 + Int($1) })
                let target = Int.random(in: 0...(flags.total + 1), using: &random)
                var running = 0
                var expected = target <= 0 ? 0 : reference.count + 1
                if target > 0 {
                    for (index, value) in reference.enumerated() {
                        running += Int(value)
                        if running >= target {
                            expected = index + 1
                            break
                        }
                    }
                }
                #expect(flags.firstCount(reaching: target) == expected, "target \(target)")
                if !reference.isEmpty {
                    let index = Int.random(in: 0..<reference.count, using: &random)
                    #expect(flags[index] == reference[index])
                }
            }
        }
        #expect(flags.chunks.count > 1 || reference.count <= ChunkedFlags.chunkCapacity * 2)
    }
}
