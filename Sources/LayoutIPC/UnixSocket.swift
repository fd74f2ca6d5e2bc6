import CSocketShims
import Glibc

/// A failed system call, with its name and errno.
public struct SystemError: Error, CustomStringConvertible, Sendable {
    public var call: String
    public var code: Int32
    public var detail: String?

    public init(_ call: String, code: Int32 = errno, detail: String? = nil) {
        self.call = call
        self.code = code
        self.detail = detail
    }

    public var description: String {
        let reason = String(cString: strerror(code))
        return detail.map { "\(call) \($0): \(reason)" } ?? "\(call): \(reason)"
    }
}

/// Why `listen(at:)` would not take a socket path.
public enum ListenError: Error, CustomStringConvertible, Sendable {
    /// Another process answers on the socket.
    case alreadyServing(path: String)
    /// The path exists and is not a socket: not ours to remove.
    case notASocket(path: String)
    case pathTooLong(path: String)
    case system(SystemError)

    public var description: String {
        switch self {
        case .alreadyServing(let path): "another daemon is serving \(path)"
        case .notASocket(let path): "\(path) exists and is not a socket; not removing it"
        case .pathTooLong(let path): "socket path is longer than \(UnixSocket.maximumPathLength) bytes: \(path)"
        case .system(let error): error.description
        }
    }
}

/// Who is on the other end of a connection (SO_PEERCRED, taken at accept).
public struct PeerCredentials: Hashable, Sendable {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
}

/// Unix stream sockets: every fd close-on-exec, the daemon's ones non-blocking.
public enum UnixSocket {
    /// `sun_path` holds 108 bytes including the terminating NUL.
    public static let maximumPathLength = 107

    /// Binds and listens on `path` for the daemon.
    ///
    /// Creates the directory (0700) when missing, refuses a path where something answers,
    /// removes a stale socket that nothing answers on, and binds under umask 0177 so the socket
    /// is 0600 from its first moment (no bind-then-chmod window).
    public static func listen(at path: String, backlog: Int32 = 128) throws(ListenError) -> Int32 {
        guard path.utf8.count <= maximumPathLength else { throw .pathTooLong(path: path) }
        try makeDirectory(SocketPath(path: path, source: .option).directory)
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else { throw .notASocket(path: path) }
            if let probe = try? connect(to: path) {
                close(probe)
                throw .alreadyServing(path: path)
            }
            // Nothing answers: a daemon died without cleaning up.
            guard unlink(path) == 0 || errno == ENOENT else { throw .system(SystemError("unlink", detail: path)) }
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .system(SystemError("socket")) }
        let previousMask = umask(0o177)
        let bound = withAddress(path) { bind(fd, $0, $1) }
        let bindError = errno
        umask(previousMask)
        guard bound == 0 else {
            close(fd)
            if bindError == EADDRINUSE { throw .alreadyServing(path: path) }
            throw .system(SystemError("bind", code: bindError, detail: path))
        }
        guard Glibc.listen(fd, backlog) == 0 else {
            let error = SystemError("listen", detail: path)
            close(fd)
            throw .system(error)
        }
        return fd
    }

    /// Creates `directory` and missing parents; the last one 0700.
    static func makeDirectory(_ directory: String) throws(ListenError) {
        var status = stat()
        if stat(directory, &status) == 0 { return }
        let parent = SocketPath(path: directory, source: .option).directory
        if parent != directory { try makeDirectory(parent) }
        guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw .system(SystemError("mkdir", detail: directory)) }
    }

    /// Connects to `path` (blocking, close-on-exec): what clients do.
    public static func connect(to path: String) throws(SystemError) -> Int32 {
        guard path.utf8.count <= maximumPathLength else { throw SystemError("connect", code: ENAMETOOLONG, detail: path) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemError("socket") }
        guard withAddress(path, { Glibc.connect(fd, $0, $1) }) == 0 else {
            let error = SystemError("connect", detail: path)
            close(fd)
            throw error
        }
        return fd
    }

    /// Reads and drops whatever a non-blocking socket has to read; true at the peer's end of
    /// stream (or an error), false once nothing more is waiting. What a finished connection
    /// does before it closes: closing with unread input would reset it and lose its last lines.
    public static func discardAvailableInput(_ fd: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 { continue }
            if count < 0, errno == EINTR { continue }
            return !(count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
        }
    }

    /// Accepts one connection, non-blocking and close-on-exec; nil when none is waiting.
    public static func accept(_ listener: Int32) throws(SystemError) -> Int32? {
        while true {
            let fd = layoutd_accept(listener)
            if fd >= 0 { return fd }
            switch errno {
            case EINTR: continue
            // The peer gave up between the wake-up and the accept: nothing to do.
            case EAGAIN, EWOULDBLOCK, ECONNABORTED: return nil
            default: throw SystemError("accept")
            }
        }
    }

    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        var pid: pid_t = 0
        var uid: uid_t = 0
        var gid: gid_t = 0
        guard layoutd_peer_credentials(fd, &pid, &uid, &gid) == 0 else { throw SystemError("getsockopt(SO_PEERCRED)") }
        return PeerCredentials(pid: pid, uid: uid, gid: gid)
    }

    /// Whether `fd` is a listening Unix stream socket (for inherited fds).
    public static func isListeningUnixStream(_ fd: Int32) -> Bool {
        var type: Int32 = 0
        var accepting: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue) else { return false }
        length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &accepting, &length) == 0, accepting == 1 else { return false }
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &addressLength) }
        }
        return named == 0 && address.ss_family == sa_family_t(AF_UNIX)
    }

    /// The path a Unix socket is bound to (for logs about inherited sockets).
    public static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { bytes in
            String(decoding: bytes.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// Sets O_NONBLOCK and FD_CLOEXEC on an inherited fd.
    public static func prepareInherited(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
    }

    /// `body` with `path` as a `sockaddr_un` (the caller checked its length): for bind and
    /// connect here and in the clients' connect with a deadline (LayoutdClient's ClientSocket).
    package static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in path.utf8.enumerated() { buffer[index] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}
