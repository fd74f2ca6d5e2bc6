// `layoutctl web`: the browser's way in. An HTTP/1.1 server on loopback TCP that serves the
// viewer page from the binary and bridges each WebSocket to its own connection on the daemon's
// Unix socket, one text message per protocol line each way.
//
// Why each check: loopback TCP is reachable by every local user (the Unix socket is 0600), so
// everything needs the random token printed in the URL; a web page the user visits elsewhere can
// make their browser connect to loopback, so the WebSocket's Origin must be this server's own; a
// DNS name re-pointed at 127.0.0.1 (DNS rebinding) arrives with a foreign Host, so the Host must be
// one of the loopback names. Messages are capped at the daemon's own line limit.
import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutIPC
import LayoutProtocol

struct WebServerSettings {
    var host = "127.0.0.1"
    var port: UInt16 = 7465
    var socketPath: String
    var openView: String?
    /// The longest message either way: the daemon's maximumLineLength (daemon.hello).
    var maximumMessageLength = 1 << 20
    /// How the connection slots are shared between the owner and other users (WebAdmission).
    var admission = WebAdmissionLimits()
    /// How long a connection has, from accept, to send its whole request head, however it
    /// trickles: a slot is held from accept on. The tests shorten it through
    /// LAYOUTCTL_WEB_HEAD_DEADLINE (Web.swift).
    var headDeadline = 10.0
    /// How long a response (a file, an error, the 101) may take to be read: a client that
    /// does not read must not hold its thread and slot.
    static let responseDeadline = 10.0
}

enum WebServer {
    /// Parses `HOST:PORT` (IPv4 literal, `localhost`, or `[IPv6]`).
    static func parseListen(_ text: String) -> (host: String, port: UInt16)? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        guard let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        return host.isEmpty ? nil : (host, port)
    }

    /// A random token of 128 bits, hex.
    static func makeToken() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
        let got = fd < 0 ? -1 : bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        if fd >= 0 { close(fd) }
        precondition(got == 16, "cannot read /dev/urandom for the token")
        return bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }

    /// Binds and listens, or a message that says what is wrong (taken port, bad address).
    static func listen(host: String, port: UInt16) -> Result<(fd: Int32, port: UInt16), WebError> {
        var v4 = in_addr()
        var v6 = in6_addr()
        let family: Int32
        if inet_pton(AF_INET, host, &v4) == 1 {
            family = AF_INET
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            family = AF_INET6
        } else {
            return .failure(WebError("--listen needs an IP address or localhost, not '\(host)'", exitCode: 64))
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return .failure(WebError("socket: \(String(cString: strerror(errno)))")) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var bound: Int32
        if family == AF_INET {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        } else {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) } }
        }
        if bound != 0 {
            let code = errno
            close(fd)
            if code == EADDRINUSE {
                return .failure(WebError("\(display(host, port)) is in use by another program; choose another port with --listen \(host.contains(":") ? "[\(host)]" : host):PORT (0 picks a free one)"))
            }
            return .failure(WebError("cannot listen on \(display(host, port)): \(String(cString: strerror(code)))"))
        }
        // A deep backlog: connections waiting to be accepted are not yet sorted by uid, and a
        // full queue drops the next SYN (a second's retransmit), the owner's as well as a
        // stranger's. The accepting thread refuses what it cannot admit at once.
        guard Glibc.listen(fd, SOMAXCONN) == 0 else {
            close(fd)
            return .failure(WebError("listen: \(String(cString: strerror(errno)))"))
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        let actual = withUnsafePointer(to: &storage) { pointer -> UInt16 in
            family == AF_INET
                ? pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
                : pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return .success((fd, actual))
    }

    static func display(_ host: String, _ port: UInt16) -> String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    static func isLoopback(_ host: String) -> Bool { host.hasPrefix("127.") || host == "::1" }
}

struct WebError: Error {
    var message: String
    var exitCode: Int32
    init(_ message: String, exitCode: Int32 = 1) {
        self.message = message
        self.exitCode = exitCode
    }
}

/// The running server: accepts, admits by the peer's uid (WebAdmission), and gives each
/// admitted connection a thread of its own.
final class WebGateway: @unchecked Sendable {
    let settings: WebServerSettings
    let token: String
    let listener: Int32
    let port: UInt16
    /// The Host values a request may carry: the loopback names on this port (and the listen address).
    let hosts: Set<String>
    let admission: WebAdmission
    /// The uid running `layoutctl web`: its connections may use every slot.
    let owner = geteuid()

    init(settings: WebServerSettings, token: String, listener: Int32, port: UInt16) {
        self.settings = settings
        self.token = token
        self.listener = listener
        self.port = port
        hosts = ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", WebServer.display(settings.host, port)]
        admission = WebAdmission(limits: settings.admission)
    }

    var url: String {
        let host = WebServer.isLoopback(settings.host) || settings.host == "0.0.0.0" || settings.host == "::" ? "127.0.0.1" : settings.host
        return "http://\(WebServer.display(host, port))/\(token)/" + (settings.openView.map { "#view=" + Self.fragmentEscape($0) } ?? "")
    }

    static func fragmentEscape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            let c = Character(Unicode.Scalar(byte))
            if byte < 128 && (c.isLetter || c.isNumber || "-._~".contains(c)) { out.append(c) } else { out += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        }
        return out
    }

    func serve() -> Never {
        while true {
            let fd = accept(listener, nil, nil)
            if fd < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                // Out of descriptors: wait a little rather than spin.
                usleep(50_000)
                continue
            }
            // The head deadline counts from here: a connection holds its slot from accept on.
            let accepted = monotonicSeconds()
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            // Non-blocking: every wait is a poll with a deadline, and the bridge writes each way
            // as the peer accepts.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            // Every message is written whole: Nagle's wait for an ACK would only add delay
            // (40 ms with the browser's delayed ACKs) to each reply and event.
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            let peer: WebAdmissionCounts.Peer = LoopbackPeer.uid(of: fd).map { $0 == owner ? .owner : .stranger($0) } ?? .stranger(nil)
            switch admission.admit(peer) {
            case .failure(let refused):
                WebConnection.sendLastWords(fd, HTTPResponse.error(503, refused.refusal.message).serialized())
                close(fd)
            case .success(let ticket):
                let started = DetachedThread.start { [self] in
                    WebConnection(fd: fd, gateway: self, ticket: ticket, accepted: accepted).run()
                    close(fd)
                    admission.release(ticket)
                }
                if !started {
                    WebConnection.sendLastWords(fd, HTTPResponse.error(503, "layoutctl web cannot start a thread for this connection").serialized())
                    close(fd)
                    admission.release(ticket)
                }
            }
        }
    }
}

/// One TCP connection: a request head, then a response, or the WebSocket bridge.
struct WebConnection {
    let fd: Int32
    let gateway: WebGateway
    let ticket: WebAdmission.Ticket
    /// When the connection was accepted (monotonicSeconds): the head deadline counts from here.
    let accepted: Double

    /// The last words to a peer that may not read them (a refusal, a late head): one
    /// non-blocking send of what fits, then its unread input is read away, so the close that
    /// follows is a FIN and not a reset that could destroy the words in flight.
    static func sendLastWords(_ fd: Int32, _ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress!, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        _ = UnixSocket.discardAvailableInput(fd)
    }

    /// Writes everything to the non-blocking `fd`, waiting for it to drain until `deadline`
    /// (monotonicSeconds); false when the peer is gone or too slow.
    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8], deadline: Double) -> Bool {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + written, $0.count - written, Int32(MSG_NOSIGNAL)) }
            if count > 0 {
                written += count
            } else if count < 0 && errno == EINTR {
                continue
            } else if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                guard wait(fd, for: Int16(POLLOUT), until: deadline) else { return false }
            } else {
                return false
            }
        }
        return true
    }

    /// Waits until `fd` is ready for `events` (or has hung up); false once `deadline` passed.
    static func wait(_ fd: Int32, for events: Int16, until deadline: Double) -> Bool {
        while true {
            let remaining = deadline - monotonicSeconds()
            guard remaining > 0 else { return false }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining * 1000, 3_600_000).rounded(.up)))
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return false }
        }
    }

    func respond(_ response: HTTPResponse) {
        Self.sendAll(fd, response.serialized(), deadline: monotonicSeconds() + WebServerSettings.responseDeadline)
    }

    func run() {
        let deadline = accepted + gateway.settings.headDeadline
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            switch HTTPRequest.parse(buffer) {
            case .invalid(let status, let reason):
                gateway.admission.headDone(ticket)
                return respond(.error(status, reason))
            case .request(let request, let consumed):
                gateway.admission.headDone(ticket)
                return handle(request, leftover: Array(buffer[consumed...]))
            case .incomplete:
                guard Self.wait(fd, for: Int16(POLLIN), until: deadline) else {
                    // A head not complete in time, however it trickled, loses its slot. A 408
                    // says why to a client that is merely slow (a browser retries it).
                    let seconds = gateway.settings.headDeadline
                    return Self.sendLastWords(fd, HTTPResponse.error(408, "the request head was not complete within \(seconds) s of connecting").serialized())
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                guard count > 0 else { return }
                buffer += chunk[..<count]
            }
        }
    }
    func handle(_ request: HTTPRequest, leftover: [UInt8]) {
        guard let host = request.header("Host"), gateway.hosts.contains(host.lowercased()) else {
            return respond(.error(421, "this server answers only to \(gateway.hosts.sorted().joined(separator: ", ")) (a foreign Host is refused: DNS rebinding)"))
        }
        guard request.method == "GET" else {
            var response = HTTPResponse.error(405, "GET only")
            response.headers.append(("Allow", "GET"))
            return respond(response)
        }
        let prefix = "/" + gateway.token + "/"
        let path = request.path
        guard path.utf8.count >= prefix.utf8.count, constantTimeEqual(Array(path.utf8.prefix(prefix.utf8.count)), Array(prefix.utf8)) else {
            return respond(.error(403, "a missing or wrong token: open the URL layoutctl web printed"))
        }
        let name = String(path.dropFirst(prefix.count))
        if name == "socket" { return upgrade(request, host: host, leftover: leftover) }
        guard let asset = WebAssets.files[name.isEmpty ? "index.html" : name] else { return respond(.error(404, "no such file: \(name)")) }
        respond(HTTPResponse(status: 200, headers: [
            ("Content-Type", asset.type),
            ("Cache-Control", "no-store"),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            // Nothing but this server: no network resources, no inline script.
            ("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src ws://\(host); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
        ], body: asset.bytes))
    }

    func upgrade(_ request: HTTPRequest, host: String, leftover: [UInt8]) {
        guard let origin = request.header("Origin"), origin.lowercased() == "http://" + host.lowercased() else {
            return respond(.error(403, "the WebSocket's Origin must be this server (http://\(host)), not \(request.header("Origin") ?? "missing")"))
        }
        guard request.header("Upgrade")?.lowercased() == "websocket", request.headerLists("Connection", "upgrade") else {
            return respond(.error(426, "this URL is the viewer's WebSocket"))
        }
        guard request.header("Sec-WebSocket-Version") == "13" else {
            var response = HTTPResponse.error(426, "WebSocket version 13 only")
            response.headers.append(("Sec-WebSocket-Version", "13"))
            return respond(response)
        }
        guard let key = request.header("Sec-WebSocket-Key"), let accept = WebSocketHandshake.accept(key: key) else {
            return respond(.error(400, "a missing or malformed Sec-WebSocket-Key"))
        }
        let daemon: Int32
        do {
            daemon = try UnixSocket.connect(to: gateway.settings.socketPath)
        } catch {
            return respond(.error(502, "cannot reach layoutd at \(gateway.settings.socketPath): \(error)"))
        }
        defer { close(daemon) }
        _ = fcntl(daemon, F_SETFL, fcntl(daemon, F_GETFL) | O_NONBLOCK)
        let head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: \(accept)\r\n\r\n"
        guard Self.sendAll(fd, Array(head.utf8), deadline: monotonicSeconds() + WebServerSettings.responseDeadline) else { return }
        var bridge = WebBridge(browser: fd, daemon: daemon, maximumMessageLength: gateway.settings.maximumMessageLength)
        bridge.run(leftover: leftover)
    }
}

/// CLOCK_MONOTONIC in seconds: deadlines that a change of the wall clock does not move.
func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
}
