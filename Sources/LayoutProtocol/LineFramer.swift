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

    /// Feeds `chunk` and returns every line it completes, without the terminator.
    ///
    /// Lines completed before an over-long one are returned (they were sent first and deserve
    /// their replies); then `failed` is set and everything after is dropped.
    public mutating func append(_ chunk: some Collection<UInt8>) -> [[UInt8]] {
        guard !failed else { return [] }
        var lines = [[UInt8]]()
        let bytes = Array(chunk)
        var start = 0
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                pending.append(contentsOf: bytes[start...])
                // A carriage return may still be waiting for its newline.
                let content = pending.last == 0x0D ? pending.count - 1 : pending.count
                if content > maximumLineLength { fail() }
                break
            }
            pending.append(contentsOf: bytes[start..<newline])
            if pending.last == 0x0D { pending.removeLast() }
            if pending.count > maximumLineLength {
                fail()
                break
            }
            if !pending.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { lines.append(pending) }
            pending.removeAll(keepingCapacity: true)
            start = newline + 1
        }
        return lines
    }

    private mutating func fail() {
        failed = true
        pending = []
    }
}
