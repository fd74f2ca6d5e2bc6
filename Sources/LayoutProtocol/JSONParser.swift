/// Why a byte sequence is not the JSON the protocol accepts, and where.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Byte offset of the problem in the input.
    public var offset: Int
    public var reason: String

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict JSON parser (RFC 8259) over UTF-8 bytes.
///
/// Strict where it matters to a daemon: the text must be valid UTF-8 (overlong forms, encoded
/// surrogates and truncated sequences are refused, as are unpaired `\u` surrogates); numbers
/// must be finite; object keys must be unique and at most `maximumKeysPerObject`; nesting is
/// limited; nothing may follow the value but whitespace.
public struct JSONParser {
    public static let defaultMaximumDepth = 64
    /// Keys one object may have. No protocol object comes near it; the cap keeps the cost of
    /// what later reads an object (lookups by key) bounded.
    public static let maximumKeysPerObject = 1024

    /// Parses one JSON value from `bytes`.
    ///
    /// - Complexity: O(n) in the input length.
    public static func parse(_ bytes: some Collection<UInt8>, maximumDepth: Int = defaultMaximumDepth) throws(JSONError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONError) -> JSONValue in
            var parser = Cursor(bytes: buffer, maximumDepth: maximumDepth)
            parser.skipWhitespace()
            let value = try parser.value(depth: 0)
            parser.skipWhitespace()
            guard parser.position == buffer.count else { throw parser.error("unexpected characters after the value") }
            return value
        }
    }

    public static func parse(_ text: String, maximumDepth: Int = defaultMaximumDepth) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8), maximumDepth: maximumDepth)
    }

    /// The value that starts at `position` of `bytes`, read as `parse` reads it when it lies
    /// `depth` containers deep in the whole text (a member of `params` is 2 deep: the nesting
    /// limit holds exactly as for the whole line), and the offset just past it. For the load
    /// decoder (`LoadRequest`), which reads the params' small members with the parser itself.
    static func value(in bytes: UnsafeBufferPointer<UInt8>, at position: Int, depth: Int) throws(JSONError) -> (value: JSONValue, end: Int) {
        var parser = Cursor(bytes: bytes, maximumDepth: defaultMaximumDepth)
        parser.position = position
        let value = try parser.value(depth: depth)
        return (value, parser.position)
    }
}

private struct Cursor {
    let bytes: UnsafeBufferPointer<UInt8>
    let maximumDepth: Int
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>, maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    func error(_ reason: String) -> JSONError { JSONError(offset: position, reason: reason) }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while position < bytes.count {
            switch bytes[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error(byte >= 0x80 ? "unexpected non-ASCII byte" : "unexpected character '\(Character(Unicode.Scalar(byte)))'")
        }
    }

    mutating func literal(_ word: String, _ value: JSONValue) throws(JSONError) -> JSONValue {
        for expected in word.utf8 {
            guard current == expected else { throw error("invalid literal, expected \(word)") }
            position += 1
        }
        return value
    }

    mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        position += 1
        var pairs = [(key: String, value: JSONValue)]()
        // Duplicate keys are found by a scan while objects are small (protocol objects have a
        // handful of keys) and by a set beyond that, so an object costs O(keys), not O(keys²):
        // a 32k-key line once cost seconds of CPU before any limit applied.
        var seen = Set<String>()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(JSONObject(uniquePairs: pairs))
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyStart = position
            let key = try string()
            guard pairs.count < JSONParser.maximumKeysPerObject else {
                throw JSONError(offset: keyStart, reason: "an object with more than \(JSONParser.maximumKeysPerObject) keys")
            }
            let duplicate: Bool
            if pairs.count < Self.scannedKeys {
                duplicate = pairs.contains { $0.key == key }
            } else {
                if seen.isEmpty { seen = Set(pairs.map(\.key)) }
                duplicate = !seen.insert(key).inserted
            }
            guard !duplicate else { throw JSONError(offset: keyStart, reason: "duplicate key '\(key)'") }
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':'") }
            position += 1
            skipWhitespace()
            pairs.append((key, try value(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return .object(JSONObject(uniquePairs: pairs))
            default: throw error("expected ',' or '}'")
            }
        }
    }

    /// Objects up to this many keys check duplicates by scanning (cheaper than hashing).
    static let scannedKeys = 16

    mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= maximumDepth else { throw error("nesting deeper than \(maximumDepth)") }
        position += 1
        var elements = [JSONValue]()
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return .array(elements)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    /// A string from the opening quote; the bytes between escapes are validated as UTF-8.
    mutating func string() throws(JSONError) -> String {
        position += 1
        let start = position
        // Fast path: no escapes.
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[start..<position])
                guard let text = UTF8Text.string(slice) else {
                    throw JSONError(offset: start, reason: "invalid UTF-8 in a string")
                }
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("unescaped control character in a string") }
            position += 1
        }
        var decoded = [UInt8](bytes[start..<position])
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = UTF8Text.string(decoded) else {
                    throw JSONError(offset: start, reason: "invalid UTF-8 in a string")
                }
                position += 1
                return text
            case UInt8(ascii: "\\"):
                position += 1
                guard let escape = current else { throw error("unexpected end of input in an escape") }
                position += 1
                if escape == UInt8(ascii: "u") {
                    try unicodeEscape(into: &decoded)
                } else {
                    guard let byte = JSONEscape.byte(for: escape) else { throw error("invalid escape") }
                    decoded.append(byte)
                }
            default:
                if byte < 0x20 { throw error("unescaped control character in a string") }
                decoded.append(byte)
                position += 1
            }
        }
        throw error("unterminated string")
    }

    /// Appends the UTF-8 bytes of a `\uXXXX` escape (after the `u`), joining surrogate pairs;
    /// no allocation per escape (a line of escapes once cost one `String` each).
    mutating func unicodeEscape(into decoded: inout [UInt8]) throws(JSONError) {
        let first = try hex4()
        var scalarValue = first
        if (0xD800...0xDBFF).contains(first) {
            guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                throw error("unpaired surrogate in \\u escape")
            }
            position += 2
            let second = try hex4()
            guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired surrogate in \\u escape") }
            scalarValue = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(first) {
            throw error("unpaired surrogate in \\u escape")
        }
        guard let scalar = Unicode.Scalar(scalarValue), let encoded = UTF8.encode(scalar) else { throw error("invalid \\u escape") }
        decoded.append(contentsOf: encoded)
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current else { throw error("unexpected end of input in \\u escape") }
            guard let digit = JSONEscape.hexDigit(byte) else { throw error("invalid hex digit in \\u escape") }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    /// A number by the JSON grammar; small integers take a fast path.
    mutating func number() throws(JSONError) -> Double {
        let start = position
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            position += 1
        }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("expected a digit")
        }
        var integer: Int64 = 0
        var digits = 0
        if first == UInt8(ascii: "0") {
            position += 1
            if let next = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                throw error("leading zeros are not allowed")
            }
        } else {
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                if digits < 18 { integer = integer * 10 + Int64(byte - UInt8(ascii: "0")) }
                digits += 1
                position += 1
            }
        }
        var simple = digits <= 15
        if current == UInt8(ascii: ".") {
            simple = false
            position += 1
            guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                throw error("expected a digit after '.'")
            }
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            simple = false
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                throw error("expected a digit in the exponent")
            }
            while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { position += 1 }
        }
        if simple { return Double(negative ? -integer : integer) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONError(offset: start, reason: "number out of range")
        }
        return value
    }
}

/// What a string escape means, for both readers of JSON strings (`JSONParser` and the hot
/// requests' byte decoder), so they cannot disagree.
enum JSONEscape {
    /// The byte a one-character escape (the character after the backslash) stands for; nil for `u`
    /// (four hex digits follow) and for anything that is not an escape.
    @inline(__always)
    static func byte(for escape: UInt8) -> UInt8? {
        switch escape {
        case UInt8(ascii: "\""): 0x22
        case UInt8(ascii: "\\"): 0x5C
        case UInt8(ascii: "/"): 0x2F
        case UInt8(ascii: "b"): 0x08
        case UInt8(ascii: "f"): 0x0C
        case UInt8(ascii: "n"): 0x0A
        case UInt8(ascii: "r"): 0x0D
        case UInt8(ascii: "t"): 0x09
        default: nil
        }
    }

    /// The value of a hex digit of a `\u` escape, nil for any other byte.
    @inline(__always)
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
