// The JSONWriter the daemon used before issue 19's encoder (commit dc77f24), kept only here so
// that `make bench` measures old and new in one run. Not used by anything else.
import LayoutGeometry
import LayoutProtocol

struct LegacyJSONWriter: Sendable {
    public private(set) var bytes: [UInt8] = []

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    public static func encode(_ value: JSONValue) -> [UInt8] {
        var writer = LegacyJSONWriter()
        writer.write(value)
        return writer.bytes
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: encode(value), as: UTF8.self)
    }

    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeRaw("null")
        case .bool(let flag): writeRaw(flag ? "true" : "false")
        case .number(let number): write(number)
        case .string(let string): write(string)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(element)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            bytes.append(UInt8(ascii: "{"))
            for (index, pair) in object.pairs.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                write(pair.key)
                bytes.append(UInt8(ascii: ":"))
                write(pair.value)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A finite number: integers without a fraction, others in Swift's shortest round-trip
    /// form. Non-finite numbers have no JSON form; they are written as `null`, and callers
    /// validate before they get here.
    public mutating func write(_ number: Double) {
        guard number.isFinite else {
            writeRaw("null")
            return
        }
        if number == number.rounded(), abs(number) < 1e15 {
            writeInteger(Int64(number))
        } else if abs(number) < 1e9, let thousandths = Optional((number * 1000).rounded()),
            number == thousandths / 1000, thousandths == number * 1000
        {
            // Layout numbers are mostly halves and quarters: write them without `String`.
            // `number` is the double nearest to thousandths/1000, and no shorter decimal lands
            // on it at this magnitude, so this is the shortest round-trip form, as
            // `description` would write it.
            writeThousandths(Int64(thousandths))
        } else {
            writeRaw(number.description)
        }
    }

    /// Digits straight into the buffer: most numbers on the wire are integral (frames, ids,
    /// epochs), and going through `String` allocated for each one.
    mutating func writeInteger(_ value: Int64) {
        if value == 0 {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    private mutating func writeThousandths(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        let magnitude = value.magnitude
        writeInteger(Int64(magnitude / 1000))
        var fraction = magnitude % 1000
        var digits = 3
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        bytes.append(UInt8(ascii: "."))
        var divisor: UInt64 = digits == 3 ? 100 : digits == 2 ? 10 : 1
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / divisor % 10))
            divisor /= 10
        }
    }

    /// A string with `"`, `\` and control characters escaped; everything else as UTF-8.
    public mutating func write(_ string: String) {
        // Ids and names rarely need escaping: copy them whole when they do not.
        if !string.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) {
            bytes.append(UInt8(ascii: "\""))
            bytes.append(contentsOf: string.utf8)
            bytes.append(UInt8(ascii: "\""))
            return
        }
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends a value this writer type already encoded (one encoding of an invalidation is
    /// shared by the reply and every subscriber's event instead of being encoded per line).
    public mutating func write(encoded value: [UInt8]) {
        bytes.append(contentsOf: value)
    }

    /// Appends the `"key":` part of an object member; callers write the value next.
    public mutating func writeKey(_ key: String, first: Bool) {
        if !first { bytes.append(UInt8(ascii: ",")) }
        write(key)
        bytes.append(UInt8(ascii: ":"))
    }

    public mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    private mutating func writeRaw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}

extension LegacyJSONWriter {
    /// The previous direct attributes writer (plain attributes: no transform, no effects).
    mutating func write(_ attributes: WireAttributes) {
        append(UInt8(ascii: "{"))
        writeKey("id", first: true)
        write(attributes.id)
        writeKey("kind", first: false)
        write(attributes.kind)
        writeKey("section", first: false)
        writeInteger(Int64(attributes.section))
        if let item = attributes.item {
            writeKey("item", first: false)
            writeInteger(Int64(item))
        }
        writeKey("frame", first: false)
        append(UInt8(ascii: "{"))
        writeKey("x", first: true)
        write(attributes.frame.minX)
        writeKey("y", first: false)
        write(attributes.frame.minY)
        writeKey("width", first: false)
        write(attributes.frame.width)
        writeKey("height", first: false)
        write(attributes.frame.height)
        append(UInt8(ascii: "}"))
        writeKey("zIndex", first: false)
        writeInteger(Int64(attributes.zIndex))
        writeKey("alpha", first: false)
        write(attributes.alpha)
        writeKey("hidden", first: false)
        write(.bool(attributes.hidden))
        append(UInt8(ascii: "}"))
    }
}
