/// How log text is made safe: whatever a client puts in a view name or a method, a text log
/// line stays exactly one line and its fields cannot be forged.
public enum LogEscaping {
    /// Where a piece of text goes.
    public enum Context: Sendable {
        /// The message of a `<N>message key=value…` line: also `=` is escaped, so no
        /// `key=value` can appear before the real fields.
        case message
        /// A field value of a text line: quoted (`key="a b"`) when empty or when its escaped
        /// form holds whitespace, `=` or `"`, with `"` escaped inside.
        case value
        /// A journal entry's MESSAGE: kept printable. The journal's fields are separate and
        /// binary-safe, so nothing else needs escaping there.
        case journalMessage
    }

    /// `text` with every character that could end a line or mislead a reader escaped:
    ///
    /// - `\` as `\\`; newline, carriage return and tab as `\n`, `\r`, `\t`;
    /// - other C0 controls and DEL as `\xHH` (`\x1b`, `\x7f`);
    /// - C1 controls (U+0080–U+009F, NEL among them), the line and paragraph separators
    ///   U+2028/U+2029 and the bidirectional embedding, override and isolate controls
    ///   (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) as `\uHHHH`;
    /// - in `.message`, `=` as `\x3d`; in `.value`, `"` as `\"`, and the whole value quoted
    ///   when needed.
    ///
    /// Pure; the result holds no control character at all.
    ///
    /// - Complexity: O(n) in the text's length; text that needs nothing is returned as is.
    public static func escape(_ text: String, for context: Context) -> String {
        let quoted = context == .value
            && (text.isEmpty || text.unicodeScalars.contains { needsQuotes($0) && !misleads($0) })
        guard quoted || text.unicodeScalars.contains(where: { needsEscape($0, context) }) else { return text }
        var result = quoted ? "\"" : ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            if needsEscape(scalar, context) { result += escaped(scalar) } else { result.unicodeScalars.append(scalar) }
        }
        if quoted { result += "\"" }
        return result
    }

    // MARK: Private helpers

    private static func needsQuotes(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "=" || scalar == "\"" || scalar.properties.isWhitespace
    }

    /// Controls, line separators and bidirectional controls: escaped in every context.
    private static func misleads(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    private static func needsEscape(_ scalar: Unicode.Scalar, _ context: Context) -> Bool {
        switch scalar {
        case "\\": true
        case "=": context == .message
        case "\"": context == .value
        default: misleads(scalar)
        }
    }

    private static func escaped(_ scalar: Unicode.Scalar) -> String {
        switch scalar {
        case "\n": return "\\n"
        case "\r": return "\\r"
        case "\t": return "\\t"
        case "\\": return "\\\\"
        case "\"": return "\\\""
        default:
            let value = scalar.value
            return value < 0x80 ? "\\x" + hex(value, digits: 2) : "\\u" + hex(value, digits: 4)
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
