import Glibc
import Synchronization

/// syslog priorities, as journald and `<N>` stderr prefixes use them.
public enum LogPriority: Int, Sendable, Comparable {
    case error = 3, warning = 4, notice = 5, info = 6, debug = 7

    public static func < (lhs: LogPriority, rhs: LogPriority) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where the daemon's log lines go. The default writes `<N>message key=value…` lines to stderr
/// (what journald parses from a service's stderr); the systemd module can replace it.
public struct Logger: Sendable {
    public var threshold: LogPriority
    public var sink: @Sendable (LogPriority, String, [(String, String)]) -> Void

    public init(threshold: LogPriority = .info, sink: @escaping @Sendable (LogPriority, String, [(String, String)]) -> Void = Logger.standardError) {
        self.threshold = threshold
        self.sink = sink
    }

    public func wants(_ priority: LogPriority) -> Bool { priority <= threshold }

    public func log(_ priority: LogPriority, _ message: String, _ fields: [(String, String)] = []) {
        guard priority <= threshold else { return }
        sink(priority, message, fields)
    }

    private static let lock = Mutex(())

    public static let standardError: @Sendable (LogPriority, String, [(String, String)]) -> Void = { priority, message, fields in
        var line = "<\(priority.rawValue)>\(message)"
        for (key, value) in fields { line += " \(key.lowercased())=\(value)" }
        line += "\n"
        let bytes = Array(line.utf8)
        lock.withLock { _ in
            var written = 0
            while written < bytes.count {
                let count = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress! + written, $0.count - written) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                written += count
            }
        }
    }
}
