/// The fuzzer's input as a source of numbers, so structured generators (`ViewFuzzer`) turn
/// libFuzzer's byte mutations into mutations of a view.
///
/// Each number takes one byte as its top eight bits, so `Int.random(in:)` maps a byte
/// monotonically onto its range: nearby bytes give nearby choices, which is what lets the
/// fuzzer's comparisons steer. (The fixed low bits keep Swift's rejection step, which tests
/// the low half of the product, from discarding small bytes.) When the bytes run out it goes
/// on with a `SeededGenerator` seeded from the input's length (Swift's bounded random draws may
/// ask again and must terminate), and `isExhausted` tells the driver to stop.
public struct FuzzBytes: RandomNumberGenerator {
    private let bytes: [UInt8]
    private var position = 0
    private var fallback: SeededGenerator

    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        fallback = SeededGenerator(seed: UInt64(self.bytes.count))
    }

    public var isExhausted: Bool { position >= bytes.count }

    /// The next byte itself, for decisions that want all 256 values (chunk sizes, limits).
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return UInt8(truncatingIfNeeded: fallback.next()) }
        defer { position += 1 }
        return bytes[position]
    }

    /// The bytes not yet consumed.
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[min(position, bytes.count)...]
    }

    public mutating func next() -> UInt64 {
        guard position < bytes.count else { return fallback.next() }
        defer { position += 1 }
        return UInt64(bytes[position]) << 56 | 0x0055_5555_5555_5555
    }
}
