import LayoutctlKit
import Testing

/// A client frame as a browser sends it: masked with `mask`.
private func clientFrame(_ opcode: UInt8, _ payload: [UInt8], fin: Bool = true, mask: [UInt8] = [0x37, 0xFA, 0x21, 0x3D], declared: Int? = nil) -> [UInt8] {
    var out: [UInt8] = [(fin ? 0x80 : 0) | opcode]
    let length = declared ?? payload.count
    if length < 126 {
        out.append(0x80 | UInt8(length))
    } else if length <= 0xFFFF {
        out += [0x80 | 126, UInt8(length >> 8), UInt8(length & 0xFF)]
    } else {
        out.append(0x80 | 127)
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(length) >> UInt64(shift))) }
    }
    out += mask
    out += payload.enumerated().map { $0.element ^ mask[$0.offset & 3] }
    return out
}

private func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

@Suite("the web bridge's pieces: SHA-1, base64, the HTTP head, WebSocket frames")
struct WebTests {
    @Test("SHA-1 against FIPS 180 vectors, across block boundaries")
    func sha1() {
        #expect(hex(SHA1.digest([])) == "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        #expect(hex(SHA1.digest(Array("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        #expect(hex(SHA1.digest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))) == "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        #expect(hex(SHA1.digest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000))) == "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
        // 55, 56 and 64 bytes: the padding fits, just does not, and a whole block.
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 55))) == "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 56))) == "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        #expect(hex(SHA1.digest([UInt8](repeating: 0x61, count: 64))) == "0098ba824b5c16427bd7a1122a5a442a25ec644d")
    }

    @Test("base64 against RFC 4648 vectors, and malformed input refused")
    func base64() {
        let vectors = ["": "", "f": "Zg==", "fo": "Zm8=", "foo": "Zm9v", "foob": "Zm9vYg==", "fooba": "Zm9vYmE=", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
        for bad in ["Zg", "Zg=", "Z===", "Zm9v!A==", "=Zm9", "Zg==Zg==", "Zm=v"] { #expect(Base64.decode(bad) == nil, "\(bad)") }
    }

    @Test("the handshake's accept value is RFC 6455's example; a key that is not 16 bytes is refused")
    func accept() {
        #expect(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        #expect(WebSocketHandshake.accept(key: "c2hvcnQ=") == nil)
        #expect(WebSocketHandshake.accept(key: "not base64!") == nil)
    }

    @Test("a request head: parsed whole, incomplete until CRLFCRLF, every malformation refused with its status")
    func httpHead() throws {
        let text = "GET /tok/socket?x=1 HTTP/1.1\r\nHost: 127.0.0.1:80\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\nrest"
        guard case .request(let request, let consumed) = HTTPRequest.parse(Array(text.utf8)) else { Issue.record("not parsed"); return }
        #expect(consumed == text.utf8.count - 4)
        #expect(request.method == "GET" && request.path == "/tok/socket" && request.target == "/tok/socket?x=1")
        #expect(request.header("host") == "127.0.0.1:80")
        #expect(request.headerLists("Connection", "upgrade"))
        #expect(!request.headerLists("Connection", "close"))
        #expect(HTTPRequest.parse(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8)) == .incomplete)
        let refused: [(String, Int)] = [
            ("GET / HTTP/2\r\n\r\n", 505), ("GET  / HTTP/1.1\r\n\r\n", 400), ("GET x HTTP/1.1\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nNo colon\r\n\r\n", 400), ("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nA: b\nc\r\n\r\n", 400), ("GET / HTTP/1.1\r\nA: \u{7F}\r\n\r\n", 400),
            ("GET / HTTP/1.1\r\nA: é\r\n\r\n", 400),
        ]
        for (head, status) in refused {
            guard case .invalid(let got, _) = HTTPRequest.parse(Array(head.utf8)) else { Issue.record("accepted \(head.debugDescription)"); continue }
            #expect(got == status, "\(head.debugDescription)")
        }
        // A repeated Host is no Host at all; an endless head is refused before its end arrives.
        guard case .request(let twice, _) = HTTPRequest.parse(Array("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n".utf8)) else { return }
        #expect(twice.header("Host") == nil)
        let endless = Array("GET / HTTP/1.1\r\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: HTTPRequest.maximumHeadLength)
        guard case .invalid(431, _) = HTTPRequest.parse(endless) else { Issue.record("an endless head was not refused"); return }
    }

    @Test("frames decode the same however the bytes are split, fragments make one message, pings and closes pass")
    func framesInPieces() {
        let stream = clientFrame(0x1, Array("{\"id\":1}".utf8)) + clientFrame(0x9, [1, 2]) + clientFrame(0x1, Array("ab".utf8), fin: false)
            + clientFrame(0x0, Array("cd".utf8), fin: false) + clientFrame(0xA, []) + clientFrame(0x0, Array("é".utf8))
            + clientFrame(0x1, [UInt8](repeating: 0x20, count: 70_000)) + clientFrame(0x8, [0x03, 0xE8] + Array("bye".utf8))
        let expected: [WebSocketDecoder.Event] = [
            .text(Array("{\"id\":1}".utf8)), .ping([1, 2]), .pong, .text(Array("abcdé".utf8)), .text([UInt8](repeating: 0x20, count: 70_000)),
            .close(code: 1000, reason: "bye"),
        ]
        for piece in [1, 2, 3, 7, 125, 4096, stream.count] {
            var decoder = WebSocketDecoder(maximumMessageLength: 100_000)
            var events: [WebSocketDecoder.Event] = []
            var start = 0
            while start < stream.count {
                decoder.feed(stream[start..<min(start + piece, stream.count)])
                start += piece
                while let event = decoder.next() { events.append(event) }
            }
            #expect(events == expected, "in pieces of \(piece)")
        }
    }

    @Test("what a browser never sends ends the connection with the RFC's code, from the header alone when it can")
    func refusals() {
        func first(_ bytes: [UInt8], limit: Int = 1000) -> WebSocketDecoder.Event? {
            var decoder = WebSocketDecoder(maximumMessageLength: limit)
            decoder.feed(bytes)
            let event = decoder.next()
            #expect(decoder.next() == nil, "nothing after a failure")
            return event
        }
        func code(_ event: WebSocketDecoder.Event?) -> WebSocketCloseCode? {
            if case .failure(let code, _) = event { return code }
            return nil
        }
        #expect(code(first(Array(clientFrame(0x1, [], declared: 1001).prefix(8)))) == .messageTooBig)
        #expect(code(first(Array(clientFrame(0x1, [], declared: 1 << 40).prefix(14)))) == .messageTooBig)
        var decoder = WebSocketDecoder(maximumMessageLength: 1000)
        decoder.feed(clientFrame(0x1, [UInt8](repeating: 0x61, count: 600), fin: false) + clientFrame(0x0, [UInt8](repeating: 0x61, count: 600)))
        #expect(code(decoder.next()) == .messageTooBig, "fragments that add up to more than the limit")
        var unmasked = clientFrame(0x1, Array("{}".utf8))
        unmasked[1] &= 0x7F
        #expect(code(first(unmasked)) == .protocolError)
        #expect(code(first(clientFrame(0x2, [1]))) == .unsupportedData)
        #expect(code(first(clientFrame(0x1, [0xFF]))) == .invalidPayload)
        #expect(code(first(clientFrame(0x1, [0xC3], fin: false) + clientFrame(0x0, [0xA9]))) == nil, "UTF-8 split across fragments is fine")
        #expect(code(first(clientFrame(0x0, [1]))) == .protocolError)
        #expect(code(first(clientFrame(0x3, [1]))) == .protocolError)
        #expect(code(first(clientFrame(0x9, [], fin: false))) == .protocolError)
        #expect(code(first(clientFrame(0x9, [UInt8](repeating: 0, count: 126)))) == .protocolError)
        #expect(code(first(clientFrame(0x8, [3]))) == .protocolError)
        var reserved = clientFrame(0x1, [1])
        reserved[0] |= 0x40
        #expect(code(first(reserved)) == .protocolError)
        var two = WebSocketDecoder(maximumMessageLength: 1000)
        two.feed(clientFrame(0x1, [0x61], fin: false) + clientFrame(0x1, [0x62]))
        #expect(code(two.next()) == .protocolError, "a new message inside a fragmented one")
    }

    @Test("server frames: the three length forms, unmasked; a close reason cut to fit on a character boundary")
    func encoder() {
        #expect(WebSocketEncoder.frame(.text, Array("hi".utf8)) == [0x81, 2, 0x68, 0x69])
        #expect(Array(WebSocketEncoder.frame(.text, [UInt8](repeating: 0, count: 300)).prefix(4)) == [0x81, 126, 1, 44])
        #expect(Array(WebSocketEncoder.frame(.text, [UInt8](repeating: 0, count: 70_000)).prefix(10)) == [0x81, 127, 0, 0, 0, 0, 0, 1, 0x11, 0x70])
        let close = WebSocketEncoder.close(.messageTooBig, String(repeating: "é", count: 100))
        #expect(close[0] == 0x88 && Int(close[1]) <= 125 && close[2] == 0x03 && close[3] == 0xF1)
        #expect(String(validating: close[4...], as: UTF8.self) != nil)
    }
}
