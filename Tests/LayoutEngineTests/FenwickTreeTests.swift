@testable import LayoutEngine
import TestSupport
import Testing

@Suite("Fenwick tree")
struct FenwickTreeTests {
    @Test("prefix sums, point updates and searches agree with a plain array", arguments: 0..<UInt64(40))
    func matchesArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        var values = (0..<Int.random(in: 0...70, using: &random)).map { _ in Int.random(in: 0...3, using: &random) }
        var tree = FenwickTree(values)
        for _ in 0..<30 {
            if !values.isEmpty, Bool.random(using: &random) {
                let index = Int.random(in: 0..<values.count, using: &random)
                let newValue = Int.random(in: 0...3, using: &random)
                tree.add(newValue - values[index], at: index)
                values[index] = newValue
            }
            var running = [0]
            for value in values { running.append(running.last! + value) }
            for count in 0...values.count { #expect(tree.prefixSum(count) == running[count]) }
            #expect(tree.total == running.last!)
            for index in values.indices { #expect(tree.value(at: index) == values[index]) }
            for target in -1...(running.last! + 2) {
                let reaching = running.firstIndex { $0 >= target } ?? values.count + 1
                let exceeding = running.firstIndex { $0 > target } ?? values.count + 1
                #expect(tree.firstCount(reaching: target) == reaching, "target \(target) in \(values)")
                #expect(tree.firstCount(reaching: target, strictly: true) == exceeding, "target \(target) > in \(values)")
            }
        }
    }
}
