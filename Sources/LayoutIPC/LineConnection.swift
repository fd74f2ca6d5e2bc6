import Glibc

/// A blocking client connection that writes and reads `\n`-terminated lines (for tools: the
/// daemon itself is non-blocking).
public final class LineConnection {
    public let fd: Int32
    private var buffer = [UInt8]()
    private var start = 0

    public init(fd: Int32) { self.fd = fd }

    public convenience init(path: String) throws(SystemError) {
        self.init(fd: try UnixSocket.connect(to: path))
    }

    deinit { close(fd) }

    /// Fails a read that waits longer than `seconds` (nil: wait for ever).
    public func setTimeout(_ seconds: Double?) {
        var value = timeval(tv_sec: 0, tv_usec: 0)
        if let seconds {
            value.tv_sec = Int(seconds)
            value.tv_usec = Int((seconds - Double(Int(seconds))) * 1e6)
        }
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
    }

    /// Writes all of `bytes`.
    public func send(_ bytes: [UInt8]) throws(SystemError) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw SystemError("send") }
            sent += count
        }
    }

    /// The next line without its newline; nil at the end of the stream.
    ///
    /// - Throws: `EAGAIN` when the timeout passed, other errors as they come.
    public func readLine() throws(SystemError) -> ArraySlice<UInt8>? {
        while true {
            if let newline = buffer[start...].firstIndex(of: 0x0A) {
                let line = buffer[start..<newline]
                start = newline + 1
                return line
            }
            if start > 0 {
                buffer.removeFirst(start)
                start = 0
            }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            if count < 0 { throw SystemError("recv") }
            if count == 0 { return nil }
            buffer += chunk[0..<count]
        }
    }
}
