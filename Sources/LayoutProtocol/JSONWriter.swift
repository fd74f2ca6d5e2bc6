/// Writes JSON as UTF-8 bytes, compactly (no spaces), keys in the order given.
///
/// Everything goes into one growing byte buffer, written through a raw pointer: a record of
/// known shape (an element's attributes, an invalidation's fixed part) reserves its worst case
/// once, then writes its constant keys as pre-made byte runs (`,"frame":{"x":` is one copy of
/// a `StaticString`, never escaped), its numbers digit by digit (`JSONNumber`) and its strings
/// after one scan that finds nothing to escape in ids and names. A record is written into the
/// array's spare capacity (`Array.append(addingCapacity:initializingWith:)`), which is never
/// zero-filled first (issue 41: zeroing the buffer was a share of every reply's encoding);
/// `finish()` hands the bytes over without a copy, and a caller may start a writer on bytes it
/// already holds (`init(appendingTo:)`), so a reply's envelope, its result and its newline are
/// one buffer.
public struct JSONWriter: Sendable {
    /// The bytes written, and capacity beyond them that is not initialised.
    private var storage: [UInt8]

    /// How many bytes are written.
    public var count: Int { storage.count }

    public init(capacity: Int = 256) {
        storage = []
        storage.reserveCapacity(max(capacity, 64))
    }

    /// A writer that appends to `bytes` (which it takes over: no copy while it is unique).
    public init(appendingTo bytes: [UInt8], reserving extra: Int = 256) {
        storage = bytes
        storage.reserveCapacity(bytes.count + max(extra, 64))
    }

    /// The bytes written so far.
    public var bytes: [UInt8] { storage }

    /// The bytes written, handed over without copying them.
    public consuming func finish() -> [UInt8] { storage }

    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = JSONWriter()
        writer.write(value)
        return writer.finish()
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    // MARK: Values

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: write(raw: "null")
        case .bool(let flag): write(raw: flag ? "true" : "false")
        case .number(let number): write(number)
        case .string(let string): write(string)
        case .array(let elements):
            append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                write(element)
            }
            append(UInt8(ascii: "]"))
        case .object(let object):
            append(UInt8(ascii: "{"))
            for (index, pair) in object.pairs.enumerated() {
                if index > 0 { append(UInt8(ascii: ",")) }
                write(pair.key)
                append(UInt8(ascii: ":"))
                write(pair.value)
            }
            append(UInt8(ascii: "}"))
        }
    }

    /// A finite number: integers without a fraction, others in Swift's shortest round-trip
    /// form (`JSONNumber.write`). Non-finite numbers have no JSON form; they are written as
    /// `null`, and callers validate before they get here.
    public mutating func write(_ number: Double) {
        withSpace(JSONNumber.maximumLength) { JSONNumber.write(number, at: $0) }
    }

    /// Digits straight into the buffer.
    public mutating func writeInteger(_ value: Int64) {
        withSpace(JSONNumber.maximumLength) { JSONNumber.write(integer: value, at: $0) }
    }

    /// A string with `"`, `\` and control characters escaped; everything else as UTF-8.
    public mutating func write(_ string: String) {
        withSpace(JSONString.maximumLength(string)) { JSONString.write(string, at: $0) }
    }

    public mutating func write(_ flag: Bool) {
        write(raw: flag ? "true" : "false")
    }

    /// Appends a value this writer type already encoded (one encoding of an invalidation is
    /// shared by the reply and every subscriber's event instead of being encoded per line).
    public mutating func write(encoded value: [UInt8]) {
        withSpace(value.count) { out in
            value.withUnsafeBufferPointer { source in
                if let base = source.baseAddress { out.update(from: base, count: source.count) }
            }
            return out + value.count
        }
    }

    /// Appends bytes known to be valid JSON text as they are: constant keys and punctuation
    /// (`,"frame":{"x":`), never scanned or escaped.
    public mutating func write(raw text: StaticString) {
        withSpace(text.utf8CodeUnitCount) { JSONRaw.write(text, at: $0) }
    }

    /// Appends the `"key":` part of an object member; callers write the value next.
    public mutating func writeKey(_ key: String, first: Bool) {
        if !first { append(UInt8(ascii: ",")) }
        write(key)
        append(UInt8(ascii: ":"))
    }

    public mutating func append(_ byte: UInt8) {
        withSpace(1) { out in
            out.pointee = byte
            return out + 1
        }
    }

    // MARK: Raw access

    /// Reserves `maximum` bytes and lets `body` write at most that many from the pointer it is
    /// given; `body` returns the pointer past its last byte. One capacity check for a whole
    /// record: what the hot writers (attributes, invalidations) use.
    ///
    /// - Complexity: O(1) amortized beyond what `body` writes (the capacity grows
    ///   geometrically, as `append` does).
    @inline(__always)
    public mutating func withSpace(_ maximum: Int, _ body: (UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8>) {
        guard maximum > 0 else { return }  // nothing to write (and no buffer to write it in)
        storage.append(addingCapacity: maximum) { span in
            span.withUnsafeMutableBufferPointer { buffer, initialized in
                let start = buffer.baseAddress! + initialized
                let end = body(start)
                precondition(end - start <= maximum, "a JSON record wrote past the space it reserved")
                initialized += end - start
            }
        }
    }
}

/// Constant byte runs.
public enum JSONRaw {
    @inline(__always)
    public static func write(_ text: StaticString, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let length = text.utf8CodeUnitCount
        out.update(from: text.utf8Start, count: length)
        return out + length
    }
}

/// Numbers as the protocol writes them, without `String` for the common ones.
///
/// The reference format (what the daemon always wrote): a finite integral value below 1e15 in
/// magnitude as its integer digits (`-0.0` as `0`); anything else finite as
/// `Double.description`, Swift's shortest round-trip form; non-finite as `null`. The fast
/// paths produce those bytes exactly for integers and for values with at most three decimals
/// below 1e9 (halves, quarters, eighths, the layout numbers), and only the rest goes through
/// `description` (`Tests/LayoutProtocolTests/NumberWritingTests` compares millions of random
/// and edge values against the reference).
public enum JSONNumber {
    /// The most bytes one number takes (`-2.2250738585072014e-308` is 24).
    public static let maximumLength = 32

    /// Why the three-decimal path is exact: `value` is the double nearest to `m / 1000`
    /// (division is correctly rounded), so the decimal `m / 1000` (trailing zeros dropped,
    /// at most 12 significant digits below 1e9) reads back as `value`. Two different decimals
    /// of at most 15 significant digits never read back as the same double, so no decimal
    /// shorter than it does: it is the shortest round-trip form `description` writes, and at
    /// this magnitude (≥ 0.001, < 1e9) `description` writes it positionally.
    @inline(__always)
    public static func write(_ value: Double, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let magnitude = abs(value)
        if magnitude < 1e15 {
            let integral = Int64(value)
            if Double(integral) == value { return write(integer: integral, at: out) }
            if magnitude < 1e9 {
                let scaled = value * 1000
                let thousandths = Int64(scaled)
                if Double(thousandths) == scaled, Double(thousandths) / 1000 == value {
                    return write(thousandths: thousandths, at: out)
                }
            }
        }
        guard value.isFinite else { return JSONRaw.write("null", at: out) }
        var text = value.description
        return text.withUTF8 { utf8 in
            out.update(from: utf8.baseAddress!, count: utf8.count)
            return out + utf8.count
        }
    }

    /// `00`…`99`, for writing two digits at a time.
    private static let pairs: StaticString =
        "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"

    @inline(__always)
    public static func write(integer value: Int64, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = out
        if value < 0 {
            out.pointee = UInt8(ascii: "-")
            out += 1
        }
        return write(magnitude: value.magnitude, at: out)
    }

    @inline(__always)
    static func write(magnitude: UInt64, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        if magnitude < 10 {
            out.pointee = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude)
            return out + 1
        }
        var length = 2
        var bound: UInt64 = 100
        while length < 20, magnitude >= bound {
            length += 1
            bound &*= 10
        }
        var rest = magnitude
        var cursor = out + length
        let digits = pairs.utf8Start
        while rest >= 100 {
            let pair = Int(rest % 100) * 2
            rest /= 100
            cursor -= 2
            cursor[0] = digits[pair]
            cursor[1] = digits[pair + 1]
        }
        if rest >= 10 {
            let pair = Int(rest) * 2
            cursor -= 2
            cursor[0] = digits[pair]
            cursor[1] = digits[pair + 1]
        } else {
            cursor -= 1
            cursor[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return out + length
    }

    /// `value / 1000` with at most three decimals, trailing zeros dropped (`value` is not a
    /// multiple of 1000).
    @inline(__always)
    static func write(thousandths value: Int64, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var out = out
        if value < 0 {
            out.pointee = UInt8(ascii: "-")
            out += 1
        }
        let magnitude = value.magnitude
        out = write(magnitude: magnitude / 1000, at: out)
        out.pointee = UInt8(ascii: ".")
        out += 1
        let fraction = magnitude % 1000
        out[0] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100)
        out[1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 10 % 10)
        out[2] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction % 10)
        return out + (fraction % 10 != 0 ? 3 : fraction % 100 != 0 ? 2 : 1)
    }
}

/// Strings as JSON: quoted, with `"`, `\` and control characters escaped.
public enum JSONString {
    /// The most bytes `string` can take written (every byte a `\u00XX` escape, and quotes).
    @inline(__always)
    public static func maximumLength(_ string: String) -> Int { 6 * string.utf8.count + 2 }

    @inline(__always)
    public static func write(_ string: String, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var string = string
        return string.withUTF8 { write(utf8: $0, at: out) }
    }

    /// Ids and names rarely need escaping: one scan, then one copy when they do not.
    @inline(__always)
    public static func write(utf8: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var cursor = out
        cursor.pointee = UInt8(ascii: "\"")
        cursor += 1
        var clean = true
        for byte in utf8 where byte < 0x20 || byte == 0x22 || byte == 0x5C {
            clean = false
            break
        }
        if clean {
            if let base = utf8.baseAddress { cursor.update(from: base, count: utf8.count) }
            cursor += utf8.count
        } else {
            cursor = escaped(utf8, at: cursor)
        }
        cursor.pointee = UInt8(ascii: "\"")
        return cursor + 1
    }

    private static func escaped(_ utf8: UnsafeBufferPointer<UInt8>, at out: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        let hex: StaticString = "0123456789abcdef"
        var cursor = out
        func put(_ bytes: UInt8...) {
            for byte in bytes {
                cursor.pointee = byte
                cursor += 1
            }
        }
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""): put(0x5C, 0x22)
            case UInt8(ascii: "\\"): put(0x5C, 0x5C)
            case 0x0A: put(0x5C, UInt8(ascii: "n"))
            case 0x0D: put(0x5C, UInt8(ascii: "r"))
            case 0x09: put(0x5C, UInt8(ascii: "t"))
            case 0..<0x20:
                put(0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0xF)])
            default: put(byte)
            }
        }
        return cursor
    }
}
