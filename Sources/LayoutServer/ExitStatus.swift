/// How layoutd exits: every `exit` in the daemon takes one of these, and layoutd(8) lists them
/// with their meaning, so the page and the code cannot disagree. 64 and 78 are sysexits(3)'s
/// EX_USAGE and EX_CONFIG, which systemd also knows by name.
public enum ExitStatus: Int32, CaseIterable, Sendable {
    /// Stopped by SIGTERM or SIGINT, or answered `--help`, `--version`, `--man` or
    /// `--print-socket-path`.
    case success = 0
    /// The socket could not be bound, or the sockets systemd passed cannot be used.
    case cannotListen = 1
    /// The command line is wrong.
    case usage = 64
    /// The settings are wrong: an unknown setting, a value out of range, a configuration file
    /// that cannot be read.
    case configuration = 78

    /// What the status tells whoever started the daemon, as layoutd(8) says it.
    public var meaning: String {
        switch self {
        case .success:
            "stopped by SIGTERM or SIGINT (after the replies drained or the shutdown-deadline passed), or answered --help, --version, --man or --print-socket-path"
        case .cannotListen:
            "could not listen: the socket path is in use by a daemon that answers, is not a socket, or cannot be bound, or the sockets systemd passed cannot be used"
        case .usage: "usage error: an unknown option, a missing or malformed value (EX_USAGE)"
        case .configuration:
            "configuration error: an unknown setting, a value out of its range, or a configuration file that cannot be read, is not a regular file or is larger than 1 MiB (EX_CONFIG)"
        }
    }
}
