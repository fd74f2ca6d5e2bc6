/// Strings stored back to back as UTF-8 in one byte array, with each one's end offset: what a
/// chunk of item ids costs is its bytes plus four bytes an id, instead of a 16-byte `String`
/// each plus a heap object for every id longer than 15 bytes.
///
/// Ids compare as Swift's `String` does (canonical equivalence), which for ASCII ids, and any
/// two identical byte sequences, is a byte comparison: the engine keeps one rule of identity
/// for ids everywhere (the index, selections, element keys).
struct IDArena: RandomAccessCollection, Sendable {
    private(set) var bytes: [UInt8] = []
    /// `ends[i]` is one past the last byte of id `i`. 32 bits: a chunk holds at most a few
    /// thousand ids, far from 4 GiB of them.
    private(set) var ends: [UInt32] = []

    init() {}

    /// An arena of `ids` with no spare capacity.
    init(_ ids: some Collection<String>) {
        var total = 0
        for id in ids { total += id.utf8.count }
        bytes.reserveCapacity(total)
        ends.reserveCapacity(ids.count)
        for id in ids { append(id) }
    }

    var startIndex: Int { 0 }
    var endIndex: Int { ends.count }

    subscript(index: Int) -> String {
        let range = byteRange(of: index)
        return bytes.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[range]), as: UTF8.self) }
    }

    /// Where id `index` lies in `bytes`.
    func byteRange(of index: Int) -> Range<Int> {
        (index == 0 ? 0 : Int(ends[index - 1]))..<Int(ends[index])
    }

    /// Calls `body` with id `index`'s UTF-8 bytes, without making a `String` of them.
    func withUTF8<Result>(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        let range = byteRange(of: index)
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// Whether id `index` is the id `utf8`, as `String` equality has it: the same bytes, or, when
    /// either is not ASCII, canonically equivalent text (a composed "é" and "e" with a
    /// combining accent are one id).
    func id(at index: Int, equals utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        let range = byteRange(of: index)
        return bytes.withUnsafeBufferPointer { stored in
            let own = UnsafeBufferPointer(rebasing: stored[range])
            if own.count == utf8.count, own.count == 0 || memoryEqual(own.baseAddress!, utf8.baseAddress!, own.count) { return true }
            guard !(Self.isASCII(own) && Self.isASCII(utf8)) else { return false }
            return String(decoding: own, as: UTF8.self) == String(decoding: utf8, as: UTF8.self)
        }
    }

    private static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        utf8.allSatisfy { $0 < 0x80 }
    }

    mutating func append(_ id: String) {
        bytes.append(contentsOf: id.utf8)
        precondition(bytes.count <= Int(UInt32.max), "an id arena holds less than 4 GiB")
        ends.append(UInt32(bytes.count))
    }

    /// Inserts `ids` before id `index`.
    ///
    /// - Complexity: O(bytes after the insertion point + bytes inserted).
    mutating func insert(contentsOf ids: some Collection<String>, at index: Int) {
        guard index < count else {
            for id in ids { append(id) }
            return
        }
        let start = index == 0 ? 0 : Int(ends[index - 1])
        var inserted = [UInt8]()
        var newEnds = [UInt32]()
        newEnds.reserveCapacity(ids.count)
        for id in ids {
            inserted.append(contentsOf: id.utf8)
            newEnds.append(UInt32(start + inserted.count))
        }
        precondition(bytes.count + inserted.count <= Int(UInt32.max), "an id arena holds less than 4 GiB")
        bytes.insert(contentsOf: inserted, at: start)
        let shift = UInt32(inserted.count)
        for position in index..<ends.count { ends[position] += shift }
        ends.insert(contentsOf: newEnds, at: index)
    }

    /// - Complexity: O(bytes after the id).
    mutating func remove(at index: Int) {
        let range = byteRange(of: index)
        bytes.removeSubrange(range)
        ends.remove(at: index)
        let shift = UInt32(range.count)
        for position in index..<ends.count { ends[position] -= shift }
    }

    /// Ids `range` as an arena of their own, with no spare capacity.
    func extracting(_ range: Range<Int>) -> IDArena {
        var part = IDArena()
        guard !range.isEmpty else { return part }
        let first = range.lowerBound == 0 ? 0 : Int(ends[range.lowerBound - 1])
        part.bytes = Array(bytes[first..<Int(ends[range.upperBound - 1])])
        part.ends = ends[range].map { $0 - UInt32(first) }
        return part
    }
}

/// `memcmp` without Foundation or Glibc: the engine imports neither.
@inline(__always)
func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var offset = 0
    while offset + 8 <= count {
        let left = UnsafeRawPointer(a + offset).loadUnaligned(as: UInt64.self)
        let right = UnsafeRawPointer(b + offset).loadUnaligned(as: UInt64.self)
        guard left == right else { return false }
        offset += 8
    }
    while offset < count {
        guard a[offset] == b[offset] else { return false }
        offset += 1
    }
    return true
}
