import Glibc

/// The daemon's byte stream cut into lines, each at most `lineCap` bytes (without its
/// newline). A line longer than the cap is refused as soon as the cap is passed, without
/// waiting for its newline, so a peer that never ends a line costs at most the cap plus one
/// read of memory.
///
/// - Complexity: each byte is scanned for the newline once and copied at most twice (into
///   the buffer, out as its line); the buffer holds at most about twice `lineCap` plus one
///   read (64 KiB).
struct LineReader {
    /// The longest line accepted, in bytes without the newline.
    let lineCap: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts.
    private var start = 0
    /// Bytes before this index (from `start`) hold no newline: where the next scan begins.
    private var scanned = 0
    /// One read's worth: what `fill` receives into before appending.
    private var chunk = [UInt8](repeating: 0, count: 1 << 16)

    init(lineCap: Int) {
        precondition(lineCap > 0, "a line cap of at least one byte")
        self.lineCap = lineCap
    }

    /// What one `fill` got.
    enum Fill: Equatable {
        case read(Int)
        /// The peer closed its end.
        case endOfStream
        /// Nothing to read now (the socket is non-blocking).
        case wouldBlock
    }

    /// Reads once from `fd` (non-blocking) and keeps the bytes.
    mutating func fill(from fd: Int32) throws(LayoutdError) -> Fill {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeFirst(start)
            scanned -= start
            start = 0
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count > 0 {
                buffer.append(contentsOf: chunk[0..<count])
                peakBufferedByteCount = max(peakBufferedByteCount, buffer.count)
                return .read(count)
            }
            if count == 0 { return .endOfStream }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case let code: throw .transport("cannot read: \(String(cString: strerror(code)))")
            }
        }
    }

    /// The next whole line from what was read, nil when none is complete yet. Blank lines
    /// are skipped; a `\r` before the newline is dropped.
    ///
    /// - Throws: `.malformed` when a line (whole or still open) is longer than the cap.
    mutating func nextLine() throws(LayoutdError) -> [UInt8]? {
        while true {
            var index = max(scanned, start)
            while index < buffer.count, buffer[index] != 0x0A { index += 1 }
            guard index < buffer.count else {
                scanned = index
                if buffer.count - start > lineCap {
                    throw .malformed("a line longer than the line cap (\(lineCap) bytes) and not yet ended")
                }
                return nil
            }
            var end = index
            if end > start, buffer[end - 1] == 0x0D { end -= 1 }
            let length = end - start
            let line = Array(buffer[start..<end])
            start = index + 1
            scanned = start
            guard length <= lineCap else { throw .malformed("a line of \(length) bytes, longer than the line cap (\(lineCap) bytes)") }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            return line
        }
    }

    /// Whether a whole line is waiting in the buffer (no fd watch reports it: it was read already).
    var hasCompleteLine: Bool {
        buffer[max(scanned, start)...].contains(0x0A)
    }

    /// Bytes read and not yet returned as lines.
    var bufferedByteCount: Int { buffer.count - start }

    /// The most the buffer ever held, in bytes (what the hostile-server suite holds to the cap).
    private(set) var peakBufferedByteCount = 0
}
