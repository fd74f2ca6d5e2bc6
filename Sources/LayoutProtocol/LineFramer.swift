/// Splits a byte stream into `\n`-terminated lines (`\r\n` tolerated, blank lines skipped),
/// refusing any line longer than `maximumLineLength` before it is complete, so a client cannot
/// make the daemon buffer without bound.
public struct LineFramer: Sendable {
    /// Applies to lines not yet complete; a reload may change it.
    public var maximumLineLength: Int
    private var pending: [UInt8] = []
    /// A line passed the limit. The stream cannot be resynchronised after that, so the framer
    /// returns nothing more and the connection ends.
    public private(set) var failed = false

    public init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// Whether a partial line is waiting for more bytes (what a stall deadline watches).
    public var hasPartialLine: Bool { !pending.isEmpty }

    /// The bytes of the partial line (what a restart hands to the next daemon, which feeds
    /// them to its framer before anything it reads).
    public var partialLine: [UInt8] { pending }

    /// Feeds `chunk` and returns every line it completes, without the terminator.
    ///
    /// Lines completed before an over-long one are returned (they were sent first and deserve
    /// their replies); then `failed` is set and everything after is dropped.
    public mutating func append(_ chunk: some Collection<UInt8>) -> [[UInt8]] {
        var lines = [[UInt8]]()
        Array(chunk).withUnsafeBytes { bytes in append(bytes) { lines.append($0) } }
        return lines
    }

    /// Feeds `chunk` (an I/O thread's read buffer, framed in place) and calls `line` with every
    /// line it completes, without the terminator, in order. Each byte is looked at once to
    /// find the newline and copied once, so taking in a 1 MiB line costs tens of microseconds.
    public mutating func append(_ chunk: UnsafeRawBufferPointer, _ line: ([UInt8]) -> Void) {
        guard !failed else { return }
        var start = 0
        while start < chunk.count {
            var newline = start
            while newline < chunk.count, chunk[newline] != 0x0A { newline += 1 }
            pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[start..<newline]))
            guard newline < chunk.count else {
                // A carriage return may still be waiting for its newline.
                let content = pending.last == 0x0D ? pending.count - 1 : pending.count
                if content > maximumLineLength { fail() }
                return
            }
            if pending.last == 0x0D { pending.removeLast() }
            if pending.count > maximumLineLength { return fail() }
            if pending.contains(where: { $0 != 0x20 && $0 != 0x09 }) { line(pending) }
            pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
            start = newline + 1
        }
    }

    private mutating func fail() {
        failed = true
        pending = []
    }
}
