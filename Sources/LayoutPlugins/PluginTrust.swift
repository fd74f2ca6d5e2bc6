import Glibc

/// Who may have written a plugin: the checks run before `dlopen`, which runs the file's
/// constructors at once, as the daemon's user (often root).
///
/// As sshd's StrictModes and polkit do: a plugin file, its directory and every directory above
/// it up to `/` must be owned by root or by layoutd's own effective uid and writable by no one
/// else, so no other local user can plant, replace or rename anything on the path between the
/// check and the `dlopen`. One exception: an ancestor with the sticky bit (`/tmp`, mode 1777)
/// is acceptable for a configured directory, since the sticky bit stops others from renaming
/// or removing our entries in it. The default directory (`<prefix>/lib/layoutd/plugins`, found
/// from the executable) gets no exception: a binary that happens to sit under a directory
/// others may write to must not pick up plugins from there.
///
/// The rules protect against bad files and careless permissions, not against hostile code in a
/// trusted file.
public enum PluginTrust {
    /// Which rules a directory's ancestors get.
    public enum Policy: Sendable {
        /// A directory named by `plugin-dir` or `--plugin-dir`: a sticky ancestor is fine.
        case configured
        /// The default directory: no ancestor may be group- or world-writable at all.
        case strict
    }

    /// What the checks look at: one `stat` of a file or directory.
    public struct Status: Sendable {
        public enum Kind: Sendable { case regular, directory, other }
        public var kind: Kind
        public var mode: UInt32
        public var owner: UInt32

        public init(kind: Kind, mode: UInt32, owner: UInt32) {
            self.kind = kind
            self.mode = mode
            self.owner = owner
        }

        init(_ info: stat) {
            switch info.st_mode & S_IFMT {
            case S_IFREG: kind = .regular
            case S_IFDIR: kind = .directory
            default: kind = .other
            }
            mode = UInt32(info.st_mode & 0o7777)
            owner = UInt32(info.st_uid)
        }
    }

    /// What is wrong with a plugin file, or nil when it may be loaded.
    public static func problem(withFile status: Status, at path: String, trusting user: UInt32 = geteuid()) -> String? {
        guard status.kind == .regular else { return "\(path) is not a regular file" }
        return problem(owner: status.owner, mode: status.mode, at: path, trusting: user)
    }

    /// What is wrong with a plugin directory (`isAncestor` false) or a directory above it, or
    /// nil when it is trusted.
    public static func problem(
        withDirectory status: Status, at path: String, isAncestor: Bool, policy: Policy, trusting user: UInt32 = geteuid()
    ) -> String? {
        guard status.kind == .directory else { return "\(path) is not a directory" }
        let sticky = status.mode & UInt32(S_ISVTX) != 0
        if isAncestor, sticky, policy == .configured {
            return problem(owner: status.owner, mode: status.mode & ~UInt32(S_IWGRP | S_IWOTH), at: path, trusting: user)
        }
        return problem(owner: status.owner, mode: status.mode, at: path, trusting: user)
    }

    // MARK: Checking the file system

    /// The directory's real path when it and every directory above it pass, else why not.
    /// `ENOENT` comes back as such, so a missing directory can be told from a refused one.
    static func checkDirectory(_ path: String, policy: Policy) -> Result<String, DirectoryProblem> {
        // Checked and then used by its real path: a symlink swapped after this cannot point
        // the scan elsewhere.
        guard let resolved = realPath(path) else {
            return .failure(errno == ENOENT ? .missing : .unreadable(String(cString: strerror(errno))))
        }
        var directory = resolved
        var isAncestor = false
        while true {
            var info = stat()
            guard lstat(directory, &info) == 0 else { return .failure(.unreadable("\(directory): \(String(cString: strerror(errno)))")) }
            if let problem = problem(withDirectory: Status(info), at: directory, isAncestor: isAncestor, policy: policy) {
                return .failure(.untrusted(problem))
            }
            if directory == "/" { return .success(resolved) }
            directory = parent(of: directory)
            isAncestor = true
        }
    }

    /// Opens a plugin file found in the trusted directory `directory` (a real path) for
    /// `dlopen`: the descriptor of the file checked, and the real path to load it by.
    ///
    /// The file is resolved (a symlink is judged by its target, whose directories are checked
    /// too), opened with `O_NOFOLLOW` and checked with `fstat`, so what is checked is what was
    /// opened. It is then loaded by that real path, not by `/proc/self/fd/N`: glibc knows a
    /// library by the name it was loaded under, so a second plugin opened later on a reused
    /// descriptor number would come back as the first one; `$ORIGIN` in a plugin's run path
    /// would point at `/proc/self/fd`; and `/proc` may be absent. Loading by path is as safe
    /// because nobody but root or layoutd's user can write the file or any directory above it:
    /// no one else can swap it between the check and the load. The caller compares the loaded
    /// path's identity with the descriptor's afterwards all the same.
    static func open(_ path: String, in directory: String, policy: Policy) -> Result<(descriptor: Int32, path: String), PluginRefusalReason> {
        guard let resolved = realPath(path) else { return .failure(PluginRefusalReason("cannot be resolved: \(String(cString: strerror(errno)))")) }
        let home = parent(of: resolved)
        if home != directory {
            switch checkDirectory(home, policy: policy) {
            case .success: break
            case .failure(let problem): return .failure(PluginRefusalReason(problem.message))
            }
        }
        let descriptor = Glibc.open(resolved, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard descriptor >= 0 else { return .failure(PluginRefusalReason("cannot be opened: \(String(cString: strerror(errno)))")) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            let message = String(cString: strerror(errno))
            close(descriptor)
            return .failure(PluginRefusalReason("cannot be examined: \(message)"))
        }
        if let problem = problem(withFile: Status(info), at: resolved) {
            close(descriptor)
            return .failure(PluginRefusalReason(problem))
        }
        return .success((descriptor, resolved))
    }

    enum DirectoryProblem: Error {
        case missing
        case unreadable(String)
        case untrusted(String)

        var message: String {
            switch self {
            case .missing: "does not exist"
            case .unreadable(let reason): "cannot be examined: \(reason)"
            case .untrusted(let reason): reason
            }
        }
    }

    // MARK: Private helpers

    private static func problem(owner: UInt32, mode: UInt32, at path: String, trusting user: UInt32) -> String? {
        if owner != 0, owner != user { return "\(path) is owned by uid \(owner), neither root nor layoutd's uid \(user)" }
        let octal = String(mode & 0o7777, radix: 8)
        let shown = String(repeating: "0", count: max(0, 4 - octal.count)) + octal
        if mode & UInt32(S_IWOTH) != 0 { return "\(path) is world-writable (mode \(shown))" }
        if mode & UInt32(S_IWGRP) != 0 { return "\(path) is group-writable (mode \(shown))" }
        return nil
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    private static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return "/" }
        return String(path[..<slash])
    }
}
