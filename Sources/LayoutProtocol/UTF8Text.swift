/// Request bytes as Strings, for the parsers (`JSONParser`, `HotRequest`).
///
/// `String(validating:as:)` is generic over the sequence and the encoding and is not
/// specialised for our buffers: in callgrind a quarter of all the instructions of a 1M-item
/// `view.create` were generic-metadata lookups it made (issue 41). `String(decoding:as:)` is
/// inlinable and takes a contiguous UTF-8 fast path, but it repairs invalid input with U+FFFD
/// instead of failing; the input was valid exactly when the repaired bytes are the input's own,
/// since a repair always changes them (an ill-formed sequence is never itself the encoding of
/// U+FFFD), so one comparison makes it a validation.
enum UTF8Text {
    /// The bytes as a String, or nil when they are not well-formed UTF-8.
    @inline(__always)
    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var text = String(decoding: bytes, as: UTF8.self)
        guard text.utf8.count == bytes.count else { return nil }
        let same = text.withUTF8 { decoded in equal(UnsafeRawPointer(decoded.baseAddress), UnsafeRawPointer(bytes.baseAddress), bytes.count) }
        return same ? text : nil
    }

    /// Whether `count` bytes at `a` and `b` are equal, eight at a time (a long string's check
    /// costs a fraction of its decoding).
    @inline(__always)
    private static func equal(_ a: UnsafeRawPointer?, _ b: UnsafeRawPointer?, _ count: Int) -> Bool {
        guard count > 0, let a, let b else { return true }
        var offset = 0
        while offset + 8 <= count {
            if a.loadUnaligned(fromByteOffset: offset, as: UInt64.self) != b.loadUnaligned(fromByteOffset: offset, as: UInt64.self) { return false }
            offset += 8
        }
        while offset < count {
            if a.load(fromByteOffset: offset, as: UInt8.self) != b.load(fromByteOffset: offset, as: UInt8.self) { return false }
            offset += 1
        }
        return true
    }

    /// `string(_:)` of an array's bytes.
    @inline(__always)
    static func string(_ bytes: [UInt8]) -> String? {
        bytes.withUnsafeBufferPointer { string($0) }
    }
}
