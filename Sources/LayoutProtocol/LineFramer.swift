/// Splits a byte stream into `\n`-terminated lines (`\r\n` tolerated, blank lines skipped),
/// refusing any line longer than `maximumLineLength` before it is complete, so a client cannot
/// make the daemon buffer without bound.
public struct LineFramer: Sendable {
    public enum Failure: Error, Hashable, Sendable {
        /// A line passed the limit; the stream cannot be resynchronised, so the connection ends.
        case lineTooLong(limit: Int)
    }

    public let maximumLineLength: Int
    private var pending: [UInt8] = []
    private(set) public var failed = false

    public init(maximumLineLength: Int = 1 << 20) {
        self.maximumLineLength = maximumLineLength
    }

    /// Whether a partial line is waiting for more bytes (what a stall deadline watches).
    public var hasPartialLine: Bool { !pending.isEmpty }

    /// Feeds `chunk` and returns every line it completes, without the terminator.
    ///
    /// - Throws: `lineTooLong` once a line (complete or not) exceeds the limit; after that the
    ///   framer refuses everything.
    public mutating func append(_ chunk: some Collection<UInt8>) throws(Failure) -> [[UInt8]] {
        guard !failed else { throw .lineTooLong(limit: maximumLineLength) }
        var lines = [[UInt8]]()
        let bytes = Array(chunk)
        var start = 0
        while start < bytes.count {
            guard let newline = bytes[start...].firstIndex(of: 0x0A) else {
                pending.append(contentsOf: bytes[start...])
                // A carriage return may still be waiting for its newline.
                let content = pending.last == 0x0D ? pending.count - 1 : pending.count
                if content > maximumLineLength { throw fail() }
                break
            }
            pending.append(contentsOf: bytes[start..<newline])
            if pending.last == 0x0D { pending.removeLast() }
            if pending.count > maximumLineLength { throw fail() }
            if !pending.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { lines.append(pending) }
            pending.removeAll(keepingCapacity: true)
            start = newline + 1
        }
        return lines
    }

    private mutating func fail() -> Failure {
        failed = true
        pending = []
        return .lineTooLong(limit: maximumLineLength)
    }
}
