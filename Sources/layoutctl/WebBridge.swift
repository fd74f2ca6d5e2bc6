// The WebSocket bridge: one browser WebSocket and one daemon connection, shuttled both ways at
// once. Each text message becomes a protocol line, each line a text message.
//
// Why full duplex: the daemon pauses reading a connection whose output or request queue is
// over its caps, until that output is read. A bridge that waits for the daemon to take a
// request before it reads the daemon's replies deadlocks there, and the daemon drops it after
// its write-stall timeout (a page pipelining 5,000 view.query got 12 replies, then close 1001).
// So both sockets are non-blocking and each direction has its own bounded queue:
//
// - to the daemon: the browser is read only while less than one message's worth
//   (`maximumMessageLength`) waits, so a daemon that pauses its input pauses the browser;
// - to the browser: the daemon is read whatever the other direction does, while less than
//   `browserQueueBound` waits. Past that the page reads more slowly than the daemon answers,
//   and the daemon is left to see it, as it would a slow direct client: it holds the
//   connection's next requests and coalesces its subscriptions into view.resync;
// - a browser that takes no byte of waiting frames for `browserStallTimeout` is disconnected
//   (a close frame could not reach it).
import Glibc
import LayoutctlKit

struct WebBridge {
    /// Bytes of frames waiting for the browser at which the daemon is no longer read.
    static let browserQueueBound = 4 << 20
    /// A browser that takes none of its waiting frames for this long is dropped: the daemon's
    /// own write-stall timeout (10 s by default).
    static let browserStallTimeout = 10.0

    let browser: Int32
    let daemon: Int32
    /// The longest message from the browser, and the bound of the queue to the daemon.
    let maximumMessageLength: Int

    /// Where the bridge is in its life.
    private enum Phase {
        /// Both ways open.
        case shuttling
        /// Last words (a close frame) are queued for the browser: nothing more is read, and the
        /// bridge ends once the browser has them (or stalls).
        case closing
    }

    private var phase = Phase.shuttling
    private var decoder: WebSocketDecoder
    private var toBrowser = ByteQueue()
    private var toDaemon = ByteQueue()
    /// The daemon's output after its last complete line.
    private var partialLine: [UInt8] = []
    /// Bytes of `partialLine` known to hold no newline: a long line is scanned once, not once a read.
    private var scanned = 0

    init(browser: Int32, daemon: Int32, maximumMessageLength: Int) {
        self.browser = browser
        self.daemon = daemon
        self.maximumMessageLength = maximumMessageLength
        decoder = WebSocketDecoder(maximumMessageLength: maximumMessageLength)
    }

    /// Shuttles until either side closes; `leftover`: the bytes that followed the request head.
    mutating func run(leftover: [UInt8]) {
        decoder.feed(leftover)
        drainDecoder()
        var chunk = [UInt8](repeating: 0, count: 65536)
        var stalledSince = monotonicSeconds()
        while true {
            // Write what each side takes now, then wait for whatever can move next.
            if !toDaemon.isEmpty, toDaemon.write(to: daemon) == .gone, phase == .shuttling {
                finish(with: WebSocketEncoder.close(.goingAway, "the daemon closed the connection"))
            }
            let now = monotonicSeconds()
            if !toBrowser.isEmpty {
                switch toBrowser.write(to: browser) {
                case .gone: return
                case .progress: stalledSince = now
                case .blocked: break
                }
            }
            if toBrowser.isEmpty {
                if phase == .closing { return }
                stalledSince = now
            }
            var timeout: Int32 = -1
            if !toBrowser.isEmpty {
                let remaining = stalledSince + Self.browserStallTimeout - now
                guard remaining > 0 else { return }
                timeout = Int32((remaining * 1000).rounded(.up))
            }
            let readingDaemon = phase == .shuttling && toBrowser.count < Self.browserQueueBound
            // Reading the browser can queue pongs for it as well as lines for the daemon.
            let readingBrowser = readingDaemon && toDaemon.count < maximumMessageLength
            var descriptors = [
                Self.interest(browser, reading: readingBrowser, writing: !toBrowser.isEmpty),
                Self.interest(daemon, reading: readingDaemon, writing: phase == .shuttling && !toDaemon.isEmpty),
            ]
            let ready = poll(&descriptors, 2, timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if descriptors[0].revents & Int16(POLLNVAL | POLLERR) != 0 { return }
            if readingDaemon, descriptors[1].revents != 0, !readDaemon(&chunk) {
                finish(with: WebSocketEncoder.close(.goingAway, "the daemon closed the connection"))
            }
            if readingBrowser, phase == .shuttling, descriptors[0].revents != 0 {
                let count = chunk.withUnsafeMutableBytes { recv(browser, $0.baseAddress, $0.count, 0) }
                if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { continue }
                guard count > 0 else { return }
                decoder.feed(chunk[..<count])
                drainDecoder()
            }
        }
    }

    // MARK: Internals

    /// Reads what the daemon has and queues each complete line as a text frame; false when the
    /// daemon closed the connection.
    private mutating func readDaemon(_ chunk: inout [UInt8]) -> Bool {
        let count = chunk.withUnsafeMutableBytes { recv(daemon, $0.baseAddress, $0.count, 0) }
        if count < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) { return true }
        guard count > 0 else { return false }
        partialLine += chunk[..<count]
        var start = 0
        while let newline = partialLine[max(start, scanned)...].firstIndex(of: 10) {
            var end = newline
            if end > start && partialLine[end - 1] == 13 { end -= 1 }
            toBrowser.appendFrame(.text, partialLine[start..<end])
            start = newline + 1
        }
        partialLine.removeFirst(start)
        scanned = partialLine.count
        return true
    }

    /// Handles every complete event from the browser.
    private mutating func drainDecoder() {
        while phase == .shuttling, let event = decoder.next() {
            switch event {
            case .text(let message):
                // One message is one line: a CR or LF inside would be two requests, or half of one.
                if message.contains(10) || message.contains(13) {
                    finish(with: WebSocketEncoder.close(.invalidPayload, "a message is one protocol line: no CR or LF inside"))
                } else {
                    toDaemon.append(message)
                    toDaemon.append(CollectionOfOne(10))
                }
            case .ping(let payload):
                toBrowser.appendFrame(.pong, payload)
            case .pong:
                continue
            case .close(let code, _):
                finish(with: code == 1005 ? WebSocketEncoder.frame(.close, []) : WebSocketEncoder.close(.normal, ""))
            case .failure(let code, let reason):
                finish(with: WebSocketEncoder.close(code, reason))
            }
        }
    }

    /// Queues the browser's last frame, behind the frames already waiting: nothing more is read.
    private mutating func finish(with close: [UInt8]) {
        guard phase == .shuttling else { return }
        toBrowser.append(close)
        phase = .closing
    }

    private static func interest(_ fd: Int32, reading: Bool, writing: Bool) -> pollfd {
        let events = (reading ? Int16(POLLIN) : 0) | (writing ? Int16(POLLOUT) : 0)
        // A negative fd is left out of the poll: a side neither read nor written now must not
        // wake it with a hang-up it cannot act on yet.
        return pollfd(fd: events == 0 ? -1 : fd, events: events, revents: 0)
    }
}

/// Bytes waiting for a non-blocking socket, written as it accepts them.
struct ByteQueue {
    enum Written: Equatable {
        /// Some bytes went (perhaps all).
        case progress
        /// The socket took nothing now.
        case blocked
        /// The peer is gone.
        case gone
    }

    private var bytes: [UInt8] = []
    private var start = 0

    var count: Int { bytes.count - start }
    var isEmpty: Bool { start == bytes.count }

    mutating func append(_ more: some Collection<UInt8>) {
        bytes.append(contentsOf: more)
    }

    /// One unfragmented, unmasked frame, encoded in place (WebSocketEncoder's framing).
    mutating func appendFrame(_ opcode: WebSocketOpcode, _ payload: some Collection<UInt8>) {
        let count = payload.count
        bytes.append(0x80 | opcode.rawValue)
        if count < 126 {
            bytes.append(UInt8(count))
        } else if count <= 0xFFFF {
            bytes += [126, UInt8(count >> 8), UInt8(count & 0xFF)]
        } else {
            bytes.append(127)
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: UInt64(count) >> UInt64(shift))) }
        }
        bytes.append(contentsOf: payload)
    }

    /// Writes what `fd` takes now.
    mutating func write(to fd: Int32) -> Written {
        var outcome = Written.blocked
        while start < bytes.count {
            let written = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + start, $0.count - start, Int32(MSG_NOSIGNAL)) }
            if written > 0 {
                start += written
                outcome = .progress
            } else if written < 0 && errno == EINTR {
                continue
            } else if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                break
            } else {
                return .gone
            }
        }
        if start == bytes.count {
            // Keep a modest buffer for the next burst; give a big one back.
            bytes.removeAll(keepingCapacity: bytes.capacity <= 1 << 20)
            start = 0
        } else if start > 1 << 16, start * 2 > bytes.count {
            bytes.removeFirst(start)
            start = 0
        }
        return outcome
    }
}
