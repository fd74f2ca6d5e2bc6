import CSystemd
import Glibc

/// journald's native protocol, used when stderr is connected to the journal.
public enum Journal {
    /// Whether `JOURNAL_STREAM` (set by systemd for services) names the file stderr is: then
    /// native entries with fields replace `<N>` lines.
    public static var isStandardErrorJournal: Bool {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        var status = stat()
        guard fstat(STDERR_FILENO, &status) == 0 else { return false }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }

    /// Sends one entry: MESSAGE, PRIORITY, SYSLOG_IDENTIFIER and `fields` (upper-case names).
    ///
    /// - Returns: false when journald did not take it (the caller then writes to stderr).
    @discardableResult
    public static func send(priority: Int, message: String, identifier: String, fields: [(String, String)]) -> Bool {
        var entries = ["MESSAGE=\(message)", "PRIORITY=\(priority)", "SYSLOG_IDENTIFIER=\(identifier)"]
        for (name, value) in fields { entries.append("\(name.uppercased())=\(value)") }
        // Each entry as its own buffer; an iovec points at each.
        let buffers = entries.map { Array($0.utf8) }
        var vectors = [iovec]()
        vectors.reserveCapacity(buffers.count)
        return withPointers(buffers, index: 0, vectors: &vectors)
    }

    private static func withPointers(_ buffers: [[UInt8]], index: Int, vectors: inout [iovec]) -> Bool {
        guard index < buffers.count else {
            return vectors.withUnsafeBufferPointer { sd_journal_sendv($0.baseAddress, Int32($0.count)) } == 0
        }
        return buffers[index].withUnsafeBytes { bytes in
            vectors.append(iovec(iov_base: UnsafeMutableRawPointer(mutating: bytes.baseAddress), iov_len: bytes.count))
            return withPointers(buffers, index: index + 1, vectors: &vectors)
        }
    }
}
