import Glibc
import LayoutIPC

/// The client's end of the Unix socket: non-blocking, close-on-exec, and every wait bounded
/// by a deadline, so neither connecting nor sending can outlast the call that does it.
enum ClientSocket {
    /// How long a connect waits before trying again when the daemon's accept queue is full
    /// (a non-blocking Unix connect then fails with EAGAIN rather than waiting): doubling
    /// from 1 ms up to this, so a full backlog costs at most this much past the deadline.
    static let longestConnectPause: Duration = .milliseconds(50)

    /// Connects to `path`, trying again while the daemon's backlog is full, until `deadline`.
    ///
    /// - Throws: `.timeout(seconds)` when the deadline passes first; `.transport` when nothing
    ///   listens there (or any other failure), naming the path.
    static func connect(to path: String, timeout seconds: Double) throws(LayoutdError) -> Int32 {
        let deadline = Deadline(seconds: seconds)
        guard path.utf8.count <= 107 else { throw .transport("cannot connect to layoutd at \(path): the path is longer than 107 bytes") }
        var pause: Duration = .milliseconds(1)
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            guard fd >= 0 else { throw .transport("cannot connect to layoutd at \(path): socket: \(String(cString: strerror(errno)))") }
            let connected = UnixSocket.withAddress(path) { Glibc.connect(fd, $0, $1) }
            let code = errno
            if connected == 0 { return fd }
            if code == EINPROGRESS || code == EINTR {
                // The kernel finishes the connect on its own: wait for it to be writable.
                do {
                    try wait(fd, for: Int16(POLLOUT), until: deadline, timeoutSeconds: seconds)
                } catch {
                    close(fd)
                    throw error
                }
                var failure: Int32 = 0
                var length = socklen_t(MemoryLayout<Int32>.size)
                _ = getsockopt(fd, SOL_SOCKET, SO_ERROR, &failure, &length)
                if failure == 0 { return fd }
                close(fd)
                throw .transport("cannot connect to layoutd at \(path): connect: \(String(cString: strerror(failure)))")
            }
            close(fd)
            guard code == EAGAIN || code == EWOULDBLOCK else {
                throw .transport("cannot connect to layoutd at \(path): connect: \(String(cString: strerror(code)))")
            }
            // The accept queue is full: try again shortly, never past the deadline.
            let remaining = deadline.remaining ?? pause
            guard remaining > .zero else { throw .timeout(seconds) }
            sleep(for: min(pause, remaining))
            pause = min(pause * 2, longestConnectPause)
        }
    }

    /// Writes all of `bytes`, waiting for room while the socket's buffer is full.
    ///
    /// - Returns: nothing; on a failure, how many bytes went out (a request cut short leaves
    ///   the stream unusable) is in the thrown `SendFailure`.
    static func send(_ fd: Int32, _ bytes: [UInt8], until deadline: Deadline, timeoutSeconds: Double) throws(SendFailure) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT)) }
            if count > 0 {
                sent += count
                continue
            }
            let code = errno
            if count < 0, code == EINTR { continue }
            if count < 0, code == EAGAIN || code == EWOULDBLOCK {
                do {
                    try wait(fd, for: Int16(POLLOUT), until: deadline, timeoutSeconds: timeoutSeconds)
                } catch {
                    throw SendFailure(error: error, sent: sent)
                }
                continue
            }
            throw SendFailure(error: .transport("cannot send: \(String(cString: strerror(code)))"), sent: sent)
        }
    }

    /// A send that did not finish: why, and how much of the line went out.
    struct SendFailure: Error {
        var error: LayoutdError
        var sent: Int
    }

    /// Waits until `fd` is ready for `events` (or has an error or hang-up to report).
    ///
    /// - Throws: `.timeout(timeoutSeconds)` once the deadline passes.
    static func wait(_ fd: Int32, for events: Int16, until deadline: Deadline, timeoutSeconds: Double) throws(LayoutdError) {
        while true {
            var entry = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&entry, 1, deadline.pollMilliseconds)
            if ready > 0 { return }
            if ready < 0, errno == EINTR { continue }
            if ready < 0 { throw .transport("poll: \(String(cString: strerror(errno)))") }
            if deadline.hasPassed { throw .timeout(timeoutSeconds) }
        }
    }

    private static func sleep(for duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var left = timespec()
        while nanosleep(&request, &left) != 0, errno == EINTR { request = left }
    }
}

/// A moment on the monotonic clock by which something must be done; `nil` inside: never.
struct Deadline: Sendable, Comparable {
    let instant: ContinuousClock.Instant?

    /// `seconds` from now; infinite or nil: no deadline.
    init(seconds: Double?) {
        if let seconds, seconds.isFinite {
            instant = .now + .nanoseconds(Int64(max(0, seconds) * 1e9))
        } else {
            instant = nil
        }
    }

    static let never = Deadline(seconds: nil)

    /// Time left (zero once passed); nil without a deadline.
    var remaining: Duration? { instant.map { max(.zero, $0 - .now) } }

    var hasPassed: Bool { instant.map { .now >= $0 } ?? false }

    /// What poll(2) takes: milliseconds left, rounded up so a wait never ends early; -1 for none.
    var pollMilliseconds: Int32 {
        guard let remaining else { return -1 }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }

    static func < (left: Deadline, right: Deadline) -> Bool {
        switch (left.instant, right.instant) {
        case (let l?, let r?): l < r
        case (.some, nil): true
        default: false
        }
    }
}
