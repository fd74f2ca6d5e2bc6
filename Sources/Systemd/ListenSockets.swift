import CSystemd
import Glibc
import Synchronization

/// File descriptors the service manager passed to this process at start (sd_listen_fds(3)):
/// socket units' sockets first (socket activation), then the file descriptor store's
/// (`FDSTORE=1`, see `Notifier.store(_:name:)`), each with its name from LISTEN_FDNAMES.
public enum ListenSockets {
    /// One passed file descriptor. It is close-on-exec (sd_listen_fds sets FD_CLOEXEC on every
    /// one), and this process owns it: whatever the caller does not use, it should close.
    public struct Passed: Equatable, Sendable {
        /// The socket unit's `FileDescriptorName=`, the store's `FDNAME=`, "stored" for a stored
        /// fd sent without a name, "unknown" when the manager gave none.
        public let name: String
        public let fd: Int32

        public init(name: String, fd: Int32) {
            self.name = name
            self.fd = fd
        }
    }

    public enum Failure: Error, CustomStringConvertible, Sendable {
        case system(call: String, code: Int32)
        /// Sockets were passed, but none with this name is a listening Unix stream socket.
        case notFound(name: String, passed: [String])

        public var description: String {
            switch self {
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            case .notFound(let name, let passed):
                "systemd passed sockets \(passed.isEmpty ? "(none)" : passed.joined(separator: ", ")), but none named '\(name)' is a listening Unix stream socket"
            }
        }
    }

    /// Every passed file descriptor with its name, in order (fd 3, 4, …). The LISTEN_*
    /// variables are read once per process and then cleared, so children never see them;
    /// every later call returns the same list (the caller that took an fd has it; the list
    /// does not track what was closed since).
    public static func passed() throws(Failure) -> [Passed] {
        try received.withLock { (cached: inout Result<[Passed], Failure>?) throws(Failure) -> [Passed] in
            if cached == nil { cached = receive() }
            return try cached!.get()
        }
    }

    /// The listening Unix stream socket named `name` (`FileDescriptorName=`), or nil when
    /// systemd passed nothing. A single unnamed socket is accepted as well, since
    /// `systemd-socket-activate` without `--fdname` passes "unknown". Reads what `passed()`
    /// reads: other passed fds (the fd store's connections and state) stay available there.
    public static func take(named name: String) throws(Failure) -> Int32? {
        try listener(named: name, in: passed())
    }

    /// `take(named:)`'s choice among `passed`: the first listening Unix stream socket named
    /// `name`; nil when `passed` is empty; `notFound` when fds were passed but none fits.
    public static func listener(named name: String, in passed: [Passed]) throws(Failure) -> Int32? {
        guard !passed.isEmpty else { return nil }
        let candidates = passed.filter { $0.name == name || (passed.count == 1 && $0.name == "unknown") }
        for candidate in candidates where sd_is_socket_unix(candidate.fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 {
            return candidate.fd
        }
        throw .notFound(name: name, passed: passed.map(\.name))
    }

    // MARK: Private

    /// What the environment said, once: sd_listen_fds_with_names clears it as it reads.
    private static let received = Mutex<Result<[Passed], Failure>?>(nil)

    private static func receive() -> Result<[Passed], Failure> {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        // Checks LISTEN_PID against getpid(), sets FD_CLOEXEC on each fd, unsets LISTEN_*.
        let count = sd_listen_fds_with_names(1, &names)
        guard count >= 0 else { return .failure(.system(call: "sd_listen_fds_with_names", code: -count)) }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        return .success((0..<Int(count)).map { index in
            Passed(name: names?[index].map { String(cString: $0) } ?? "unknown", fd: SD_LISTEN_FDS_START + Int32(index))
        })
    }
}
