/// The fuzzer's input as a source of numbers, so structured generators (`ViewFuzzer`) turn
/// libFuzzer's byte mutations into mutations of a view.
///
/// Each number takes one byte as its top eight bits, so `Int.random(in:)` maps a byte
/// monotonically onto its range: nearby bytes give nearby choices, which is what lets the
/// fuzzer's comparisons steer. (The fixed low bits keep Swift's rejection step, which tests
/// the low half of the product, from discarding small bytes.) When the bytes run out it goes on with SplitMix64
/// seeded from the input's length (Swift's bounded random draws may ask again and must
/// terminate), and `isExhausted` tells the driver to stop.
public struct FuzzBytes: RandomNumberGenerator {
    private let bytes: [UInt8]
    private var position = 0
    private var fallback: UInt64

    public init(_ bytes: some Collection<UInt8>) {
        self.bytes = Array(bytes)
        fallback = UInt64(self.bytes.count) &* 0x9E37_79B9_7F4A_7C15
    }

    public var isExhausted: Bool { position >= bytes.count }

    /// The next byte itself, for decisions that want all 256 values (chunk sizes, limits).
    public mutating func byte() -> UInt8 {
        guard position < bytes.count else { return UInt8(truncatingIfNeeded: splitMix()) }
        defer { position += 1 }
        return bytes[position]
    }

    /// The bytes not yet consumed.
    public mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.count }
        return bytes[min(position, bytes.count)...]
    }

    public mutating func next() -> UInt64 {
        guard position < bytes.count else { return splitMix() }
        defer { position += 1 }
        return UInt64(bytes[position]) << 56 | 0x0055_5555_5555_5555
    }

    private mutating func splitMix() -> UInt64 {
        fallback &+= 0x9E37_79B9_7F4A_7C15
        var z = fallback
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
