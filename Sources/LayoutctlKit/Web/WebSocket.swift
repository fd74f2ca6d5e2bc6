// WebSocket (RFC 6455) as a server speaks it: the handshake's accept value, frames from the
// browser decoded incrementally with every limit checked before anything is buffered, and
// frames to the browser encoded.

public enum WebSocketHandshake {
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Sec-WebSocket-Accept for a client's Sec-WebSocket-Key, or nil when the key is not the
    /// base64 of 16 bytes (§4.2.1 item 5).
    public static func accept(key: String) -> String? {
        guard let nonce = Base64.decode(key), nonce.count == 16 else { return nil }
        return Base64.encode(SHA1.digest(Array((key + guid).utf8)))
    }
}

public enum WebSocketOpcode: UInt8, Sendable {
    case continuation = 0x0, text = 0x1, binary = 0x2, close = 0x8, ping = 0x9, pong = 0xA
}

/// Close codes the bridge sends (§7.4.1).
public enum WebSocketCloseCode: UInt16, Sendable {
    case normal = 1000
    case goingAway = 1001
    case protocolError = 1002
    case unsupportedData = 1003
    case invalidPayload = 1007
    case policyViolation = 1008
    case messageTooBig = 1009
    case internalError = 1011
}

public struct WebSocketDecoder: Sendable {
    /// What the bytes so far make.
    public enum Event: Equatable, Sendable {
        /// A complete text message (valid UTF-8).
        case text([UInt8])
        case ping([UInt8])
        case pong
        /// The peer's close frame: its code (1005 when it gave none) and reason.
        case close(code: UInt16, reason: String)
        /// The peer broke the protocol or a limit: close with this code; read nothing more.
        case failure(WebSocketCloseCode, String)
    }

    /// The longest message (the sum of its fragments) accepted.
    public let maximumMessageLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var message: [UInt8] = []
    private var inMessage = false
    private var failed = false

    public init(maximumMessageLength: Int) {
        self.maximumMessageLength = maximumMessageLength
    }

    public mutating func feed(_ bytes: some Sequence<UInt8>) {
        if start > 0 && start >= buffer.count / 2 {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// The next event, or nil when more bytes are needed. After a `.failure` it returns nil.
    public mutating func next() -> Event? {
        // A loop, not recursion: one read may hold thousands of small fragments.
        while !failed {
            let fin: Bool, opcode: WebSocketOpcode, payload: [UInt8]
            switch frame() {
            case .incomplete: return nil
            case .refused(let code, let reason): return fail(code, reason)
            case .whole(let f, let o, let p): (fin, opcode, payload) = (f, o, p)
            }
            switch opcode {
            case .ping: return .ping(payload)
            case .pong: return .pong
            case .close:
                guard payload.count != 1 else { return fail(.protocolError, "a close frame of one byte") }
                // Nothing is read after a close (§5.5.1), with or without a code.
                failed = true
                if payload.isEmpty { return .close(code: 1005, reason: "") }
                let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
                guard let reason = String(validating: payload[2...], as: UTF8.self) else { return fail(.invalidPayload, "a close reason that is not UTF-8") }
                return .close(code: code, reason: reason)
            case .binary:
                return fail(.unsupportedData, "binary messages are not protocol lines; send text")
            case .text:
                guard !inMessage else { return fail(.protocolError, "a new message before the last one's final fragment") }
                message = payload
                inMessage = true
            case .continuation:
                guard inMessage else { return fail(.protocolError, "a continuation frame outside a message") }
                message += payload
            }
            guard fin else { continue }
            inMessage = false
            let complete = message
            message = []
            guard String(validating: complete, as: UTF8.self) != nil else { return fail(.invalidPayload, "a text message that is not UTF-8") }
            return .text(complete)
        }
        return nil
    }

    private enum Frame {
        case incomplete
        case refused(WebSocketCloseCode, String)
        case whole(fin: Bool, opcode: WebSocketOpcode, payload: [UInt8])
    }

    /// Takes one whole frame off the buffer, unmasked, with its header checked (limits first,
    /// from the header alone).
    private mutating func frame() -> Frame {
        let available = buffer.count - start
        guard available >= 2 else { return .incomplete }
        let b0 = buffer[start], b1 = buffer[start + 1]
        let fin = b0 & 0x80 != 0
        guard b0 & 0x70 == 0 else { return .refused(.protocolError, "reserved bits set (no extension was negotiated)") }
        guard let opcode = WebSocketOpcode(rawValue: b0 & 0x0F) else { return .refused(.protocolError, "unknown opcode \(b0 & 0x0F)") }
        guard b1 & 0x80 != 0 else { return .refused(.protocolError, "a browser's frames must be masked") }
        var length = UInt64(b1 & 0x7F)
        var header = 2
        if length == 126 {
            guard available >= 4 else { return .incomplete }
            length = UInt64(buffer[start + 2]) << 8 | UInt64(buffer[start + 3])
            header = 4
        } else if length == 127 {
            guard available >= 10 else { return .incomplete }
            length = 0
            for i in 0..<8 { length = length << 8 | UInt64(buffer[start + 2 + i]) }
            guard length >> 63 == 0 else { return .refused(.protocolError, "a 64-bit length with the top bit set") }
            header = 10
        }
        if opcode.rawValue & 0x8 != 0 {
            guard fin else { return .refused(.protocolError, "a fragmented control frame") }
            guard length <= 125 else { return .refused(.protocolError, "a control frame over 125 bytes") }
        } else {
            // Checked from the header alone, before the payload is read or buffered.
            guard length <= UInt64(maximumMessageLength - message.count) else {
                return .refused(.messageTooBig, "a message over \(maximumMessageLength) bytes")
            }
        }
        header += 4
        guard available >= header + Int(length) else { return .incomplete }
        let mask = Array(buffer[(start + header - 4)..<(start + header)])
        var payload = Array(buffer[(start + header)..<(start + header + Int(length))])
        for i in payload.indices { payload[i] ^= mask[i & 3] }
        start += header + Int(length)
        return .whole(fin: fin, opcode: opcode, payload: payload)
    }

    private mutating func fail(_ code: WebSocketCloseCode, _ reason: String) -> Event {
        failed = true
        return .failure(code, reason)
    }
}

public enum WebSocketEncoder {
    /// One unfragmented, unmasked frame (a server never masks, §5.1).
    public static func frame(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>) -> [UInt8] {
        var out: [UInt8] = [0x80 | opcode.rawValue]
        let count = payload.count
        if count < 126 {
            out.append(UInt8(count))
        } else if count <= 0xFFFF {
            out += [126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            out.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        out.append(contentsOf: payload)
        return out
    }

    /// A close frame with a code and a reason (cut to fit a control frame's 125 bytes).
    public static func close(_ code: WebSocketCloseCode, _ reason: String) -> [UInt8] {
        var payload = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        var text = Array(reason.utf8)
        while text.count > 123 || String(validating: text, as: UTF8.self) == nil { text.removeLast() }
        payload += text
        return frame(.close, payload)
    }
}
