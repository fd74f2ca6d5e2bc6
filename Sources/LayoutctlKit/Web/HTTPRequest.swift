// The request head of HTTP/1.1 (RFC 9112) as `layoutctl web` reads it: a request line and
// header fields, nothing else (the bridge serves GET only, so there is never a body).

public struct HTTPRequest: Sendable, Equatable {
    public var method: String
    /// The request target as sent (origin-form: path and query).
    public var target: String
    public var version: String
    /// Header fields in order; names as sent. Look them up with `header(_:)`.
    public var headers: [(name: String, value: String)]

    /// The value of the only field named `name` (case-insensitive); nil when there is none or
    /// more than one (a repeated Host or Origin is a smuggling attempt, not a choice).
    public func header(_ name: String) -> String? {
        let matches = headers.filter { $0.name.lowercased() == name.lowercased() }
        return matches.count == 1 ? matches[0].value : nil
    }

    /// Whether a comma-separated field (Connection, Upgrade) lists `token` (case-insensitive).
    public func headerLists(_ name: String, _ token: String) -> Bool {
        headers.filter { $0.name.lowercased() == name.lowercased() }
            .flatMap { $0.value.split(separator: ",") }
            .contains { $0.trimmingSpaces.lowercased() == token.lowercased() }
    }

    /// The path without the query.
    public var path: String { String(target.prefix { $0 != "?" }) }

    public static func == (a: HTTPRequest, b: HTTPRequest) -> Bool {
        a.method == b.method && a.target == b.target && a.version == b.version
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }

    public init(method: String, target: String, version: String, headers: [(name: String, value: String)]) {
        self.method = method
        self.target = target
        self.version = version
        self.headers = headers
    }

    /// What reading a request head from the front of a buffer gives.
    public enum Parse: Equatable {
        /// Not all of the head has arrived (and it is still under the limit).
        case incomplete
        /// The head, and how many bytes of the buffer it took.
        case request(HTTPRequest, consumed: Int)
        /// The status to answer with and why; the connection is closed after it.
        case invalid(status: Int, reason: String)
    }

    public static let maximumHeadLength = 16384
    public static let maximumHeaderCount = 100

    /// Reads one request head from the start of `buffer`.
    public static func parse(_ buffer: [UInt8]) -> Parse {
        guard let end = headEnd(buffer) else {
            return buffer.count > maximumHeadLength ? .invalid(status: 431, reason: "the request head is over \(maximumHeadLength) bytes") : .incomplete
        }
        guard end <= maximumHeadLength else { return .invalid(status: 431, reason: "the request head is over \(maximumHeadLength) bytes") }
        // Field values are ASCII in practice; anything else (or a control byte) is refused.
        let head = buffer[..<end]
        guard head.allSatisfy({ $0 == 9 || ($0 >= 32 && $0 < 127) || $0 == 13 || $0 == 10 }) else {
            return .invalid(status: 400, reason: "the request head has a byte that is not printable ASCII")
        }
        var lines = crlfLines(Array(head))
        guard !lines.isEmpty else { return .invalid(status: 400, reason: "empty request") }
        let first = lines.removeFirst()
        guard !first.utf8.contains(10), !first.utf8.contains(13) else { return .invalid(status: 400, reason: "a bare CR or LF in the head") }
        let requestLine = first.split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3, !requestLine[0].isEmpty, requestLine[1].hasPrefix("/") else {
            return .invalid(status: 400, reason: "the request line is not 'METHOD /target HTTP/1.1'")
        }
        guard requestLine[2] == "HTTP/1.1" || requestLine[2] == "HTTP/1.0" else {
            return .invalid(status: 505, reason: "HTTP/1.1 only, not \(requestLine[2])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard !line.utf8.contains(10), !line.utf8.contains(13) else { return .invalid(status: 400, reason: "a bare CR or LF in the head") }
            guard let colon = line.firstIndex(of: ":") else { return .invalid(status: 400, reason: "a header line has no ':'") }
            let name = String(line[..<colon])
            // RFC 9112 §5.1: no whitespace between the name and the colon; obsolete line folding is refused.
            guard !name.isEmpty, name.allSatisfy({ $0.isLetter || $0.isNumber || "!#$%&'*+-.^_`|~".contains($0) }) else {
                return .invalid(status: 400, reason: "bad header name '\(name)'")
            }
            headers.append((name, String(line[line.index(after: colon)...]).trimmingSpaces))
            guard headers.count <= maximumHeaderCount else { return .invalid(status: 431, reason: "more than \(maximumHeaderCount) header fields") }
        }
        let request = HTTPRequest(method: String(requestLine[0]), target: String(requestLine[1]), version: String(requestLine[2]), headers: headers)
        return .request(request, consumed: end + 4)
    }

    /// The index of the CRLFCRLF that ends the head.
    private static func headEnd(_ buffer: [UInt8]) -> Int? {
        guard buffer.count >= 4 else { return nil }
        for i in 0...(buffer.count - 4) where buffer[i] == 13 && buffer[i + 1] == 10 && buffer[i + 2] == 13 && buffer[i + 3] == 10 {
            return i
        }
        return nil
    }
}

/// An HTTP/1.1 response with a complete body, always `Connection: close`.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text error response.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array((message + "\n").utf8))
    }

    public static func reason(_ status: Int) -> String {
        switch status {
        case 101: return "Switching Protocols"
        case 200: return "OK"
        case 400: return "Bad Request"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 421: return "Misdirected Request"
        case 426: return "Upgrade Required"
        case 431: return "Request Header Fields Too Large"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Error"
        }
    }

    public func serialized() -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reason(status))\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + body
    }
}

extension StringProtocol {
    var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}

/// The head's lines, split at CRLF only: a bare CR or LF stays inside its line, where the
/// parser refuses it.
private func crlfLines(_ bytes: [UInt8]) -> [String] {
    var lines: [String] = []
    var lineStart = 0
    var i = 0
    while i < bytes.count {
        if bytes[i] == 13, i + 1 < bytes.count, bytes[i + 1] == 10 {
            lines.append(String(decoding: bytes[lineStart..<i], as: UTF8.self))
            i += 2
            lineStart = i
        } else {
            i += 1
        }
    }
    lines.append(String(decoding: bytes[lineStart...], as: UTF8.self))
    return lines
}
