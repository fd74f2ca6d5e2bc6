import CSystemd
import Glibc

/// Sockets systemd passed to this process (socket activation).
public enum ListenSockets {
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

    /// The listening Unix stream socket named `name` (`FileDescriptorName=`), or nil when
    /// systemd passed no sockets. A single unnamed socket is accepted as well, since
    /// `systemd-socket-activate` without `--fdname` passes "unknown". Clears the LISTEN_*
    /// variables so children never see them.
    public static func take(named name: String) throws(Failure) -> Int32? {
        var names: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
        let count = sd_listen_fds_with_names(1, &names)
        guard count >= 0 else { throw .system(call: "sd_listen_fds_with_names", code: -count) }
        defer {
            if let names {
                for index in 0..<Int(count) { free(names[index]) }
                free(names)
            }
        }
        guard count > 0 else { return nil }
        var passed = [String]()
        for index in 0..<Int(count) {
            passed.append(names?[index].map { String(cString: $0) } ?? "unknown")
        }
        let start = SD_LISTEN_FDS_START
        let candidates = (0..<Int(count)).filter { passed[$0] == name || (count == 1 && passed[$0] == "unknown") }
        for index in candidates {
            let fd = start + Int32(index)
            if sd_is_socket_unix(fd, Int32(SOCK_STREAM.rawValue), 1, nil, 0) > 0 { return fd }
        }
        throw .notFound(name: name, passed: passed)
    }
}
