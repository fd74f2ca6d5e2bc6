import LayoutProtocol
import Testing
import TestSupport

/// The parsers' strings are validated by decoding and comparing (`UTF8Text`), not by the
/// generic `String(validating:as:)`, which cost a quarter of a large parse in metadata lookups.
/// Here the two must agree, byte for byte, on what is UTF-8: random byte strings biased toward
/// UTF-8's structure (lead bytes, continuations, the edges of each range, surrogates, U+FFFD
/// itself), in a string with no escape (the fast path) and after one (the decoding path).
@Suite("string validation")
struct StringValidationTests {
    /// Bytes a string may hold unescaped, weighted toward where UTF-8 is easy to get wrong.
    static let interesting: [UInt8] = [
        0x41, 0x7A, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xBD, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xED,
        0xEF, 0xBB, 0xF0, 0xF4, 0xF5, 0xFF,
    ]

    @Test("the parser accepts exactly the byte strings the standard library calls UTF-8", arguments: 0..<4)
    func agreesWithTheStandardLibrary(seed: UInt64) throws {
        var random = SeededGenerator(seed: 0x5707_0000 + seed)
        var accepted = 0
        for _ in 0..<20_000 {
            let count = Int(random.next() % 9)
            let content = (0..<count).map { _ in Self.interesting[Int(random.next() % UInt64(Self.interesting.count))] }
            let expected = String(validating: content, as: UTF8.self)
            accepted += expected == nil ? 0 : 1
            for escaped in [false, true] {
                let prefix: [UInt8] = escaped ? Array("\\n".utf8) : []
                let line = [0x22] + prefix + content + [0x22]
                let parsed = try? JSONParser.parse(line)
                if let expected {
                    #expect(parsed == .string((escaped ? "\n" : "") + expected), "\(content) escaped: \(escaped)")
                } else {
                    #expect(parsed == nil, "\(content) is not UTF-8, escaped: \(escaped)")
                }
                // The byte decoder of the hot requests reads view names the same way.
                let request = Array(#"{"id":1,"method":"view.scroll","params":{"view":"#.utf8) + line + Array(#","offset":{"x":0,"y":1}}}"#.utf8)
                let hot = HotRequest.decode(request)
                if expected == nil { #expect(hot == nil, "\(content): the byte decoder took what is not UTF-8") }
            }
        }
        // Both outcomes are well represented, so the agreement means something.
        #expect(accepted > 2_000 && accepted < 18_000, "accepted \(accepted) of 20000")
    }

    @Test("U+FFFD written by the client is kept, not mistaken for a repair")
    func replacementCharacterItself() throws {
        let line: [UInt8] = [0x22, 0xEF, 0xBF, 0xBD, 0x22]
        #expect(try JSONParser.parse(line) == .string("\u{FFFD}"))
        #expect(throws: JSONError.self) { try JSONParser.parse([0x22, 0xEF, 0xBF, 0x22]) }
    }
}
