import Glibc

/// Where the daemon listens and clients connect, in the documented order: an explicit path
/// (`--socket`), `LAYOUTD_SOCKET`, `$XDG_RUNTIME_DIR/layoutd/ipc.sock`, then the system
/// service's `/run/layoutd/ipc.sock`.
public struct SocketPath: Hashable, Sendable {
    public enum Source: String, Sendable {
        case option = "--socket"
        case environment = "LAYOUTD_SOCKET"
        case runtimeDirectory = "XDG_RUNTIME_DIR"
        case system = "/run/layoutd"
    }

    public var path: String
    public var source: Source

    public static let systemPath = "/run/layoutd/ipc.sock"

    public init(path: String, source: Source) {
        self.path = path
        self.source = source
    }

    /// Resolves the path; empty values count as unset.
    public static func resolve(option: String?, environment: [String: String]) -> SocketPath {
        if let option, !option.isEmpty { return SocketPath(path: option, source: .option) }
        if let path = environment["LAYOUTD_SOCKET"], !path.isEmpty { return SocketPath(path: path, source: .environment) }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty {
            let base = runtime.hasSuffix("/") ? String(runtime.dropLast()) : runtime
            return SocketPath(path: base + "/layoutd/ipc.sock", source: .runtimeDirectory)
        }
        return SocketPath(path: systemPath, source: .system)
    }

    /// Resolves the path against this process's environment.
    public static func resolve(option: String?) -> SocketPath {
        var environment = [String: String]()
        for name in ["LAYOUTD_SOCKET", "XDG_RUNTIME_DIR"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return resolve(option: option, environment: environment)
    }

    /// The directory holding the socket.
    public var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
