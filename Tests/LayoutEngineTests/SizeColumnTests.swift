@testable import LayoutEngine
import LayoutGeometry
import TestSupport
import Testing

@Suite("size columns")
struct SizeColumnTests {
    @Test("a column takes the narrowest exact form", arguments: [
        ([Size](), 0),
        ([Size(width: 10, height: 20), Size(width: 10, height: 20)], 0),
        ([Size(width: 10, height: 20), Size(width: 10.5, height: 0.25)], 8),
        ([Size(width: 10, height: 20), Size(width: 0.1, height: 1)], 16),
        ([Size(width: 1e300, height: 1)], 0),
        ([Size(width: 1e300, height: 1), .zero], 16),
    ])
    func narrowest(sizes: [Size], bytesPerItem: Int) {
        let column = SizeColumn(sizes)
        #expect(column.bytesPerItem == bytesPerItem)
        #expect(Array(column) == sizes)
    }

    /// Values from a small pool so that uniform runs happen, with some that only doubles hold.
    @Test("edits widen the form as needed and agree with an array", arguments: 0..<UInt64(30))
    func matchesArray(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let pool = [Size(width: 10, height: 20), Size(width: 3.5, height: 7), Size(width: 0.1, height: 2), Size(width: 1, height: 1e-3)]
        func size() -> Size { pool[Int.random(in: 0..<(seed % 2 == 0 ? 2 : pool.count), using: &random)] }
        var reference = (0..<Int.random(in: 0...6, using: &random)).map { _ in size() }
        var column = SizeColumn(reference)
        for _ in 0..<100 {
            switch Int.random(in: 0..<3, using: &random) {
            case 0:
                let sizes = (0..<Int.random(in: 1...3, using: &random)).map { _ in size() }
                let offset = Int.random(in: 0...reference.count, using: &random)
                reference.insert(contentsOf: sizes, at: offset)
                column.insert(contentsOf: sizes, at: offset)
            case 1 where !reference.isEmpty:
                let offset = Int.random(in: 0..<reference.count, using: &random)
                reference.remove(at: offset)
                column.remove(at: offset)
            default:
                guard !reference.isEmpty else { continue }
                let offset = Int.random(in: 0..<reference.count, using: &random)
                let new = size()
                reference[offset] = new
                column[offset] = new
            }
            #expect(Array(column) == reference, "seed \(seed)")
            let copied = [Size](unsafeUninitializedCapacity: column.count) { buffer, initialized in
                column.copy(into: buffer.baseAddress!)
                initialized = column.count
            }
            #expect(copied == reference, "seed \(seed)")
        }
        // Rebuilt, a column is as narrow as its sizes allow.
        #expect(SizeColumn(Array(column)).bytesPerItem <= column.bytesPerItem)
    }
}
