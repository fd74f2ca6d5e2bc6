import Dispatch
import Glibc
import LayoutIPC
import LayoutProtocol
import LayoutService
import Synchronization

/// The views on disk (`state-dir`): one file a view, `<percent-encoded name>.view`, holding the
/// lines of its export (protocol/views.md, "view.export"). Written atomically (a temporary
/// file, fsync, rename, fsync of the directory), so a crash leaves the old file or the new
/// one, never half of one. A file that does not restore is renamed `<file>.refused` and never
/// stops a start.
///
/// What it keeps, and when: every view at SIGTERM/SIGINT and at a reload (`saveAll`), and
/// every `state-checkpoint` seconds the views whose epoch moved since their last save
/// (`checkpoint`), whose files it also removes for views deleted since. So a SIGKILL or a
/// crash loses at most one checkpoint interval of changes.
public final class StateDirectory: @unchecked Sendable {
    public let path: String
    private let service: LayoutService
    private let logger: Logger
    /// Each view as last saved (or restored): what a checkpoint compares with. The version
    /// names the view instance too, so a view deleted and made again at the same epoch is
    /// saved again.
    private let saved = Mutex<[String: ViewVersion]>([:])
    /// Saves run one at a time, off the I/O threads and the control queue.
    private let queue = DispatchQueue(label: "layoutd.state", qos: .utility)
    /// The periodic checkpoint, resumed by `startCheckpoints` (set once, at init: why the
    /// class is `@unchecked Sendable`).
    private let timer: DispatchSourceTimer
    private let interval: Double

    static let suffix = ".view"

    init(path: String, checkpoint interval: Double, service: LayoutService, logger: Logger) {
        self.path = path
        self.service = service
        self.logger = logger
        self.interval = interval
        timer = DispatchSource.makeTimerSource(queue: queue)
    }

    // MARK: Restoring

    /// Restores every `*.view` file (at start, before serving). A file that does not restore
    /// (not an export, another version, refused as `view.import` would refuse it) is renamed
    /// `.refused` and logged; the others restore whatever it says.
    ///
    /// - Returns: the views restored and the items they hold.
    @discardableResult
    public func restoreAll() -> (views: Int, items: Int) {
        guard ensureDirectory() else { return (0, 0) }
        var restored = (views: 0, items: 0)
        for file in Self.files(in: path).sorted() where file.hasSuffix(Self.suffix) {
            let full = "\(path)/\(file)"
            let lines: [[UInt8]]
            switch Self.contents(of: full) {
            case .success(let bytes): lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
            case .failure(let error):
                setAside(file, reason: error.description)
                continue
            }
            do {
                let view = try service.restoreView(lines: lines)
                if Self.fileName(for: view.name) != file {
                    // Restored under the name inside; saved again under its own file name.
                    unlink(full)
                    logger.log(.warning, "state file \(file) holds view '\(view.name)': saved again under its own name")
                }
                restored.views += 1
                restored.items += view.items
            } catch {
                setAside(file, reason: "\(error.name): \(error.message)")
            }
        }
        // What is on disk now is what was restored (a renamed view is saved at the next save).
        let versions = service.viewVersions
        saved.withLock { saved in
            for (name, version) in versions { saved[name] = version }
        }
        if restored.views > 0 {
            logger.log(.notice, "restored \(restored.views) views (\(restored.items) items) from \(path)")
        }
        return restored
    }

    /// Renames a file that did not restore, so the next start does not try it again and a
    /// person can look at it.
    private func setAside(_ file: String, reason: String) {
        let from = "\(path)/\(file)"
        let to = "\(from).refused"
        let moved = rename(from, to) == 0
        logger.log(.warning, "state file \(file) not restored (\(reason)); \(moved ? "renamed \(file).refused" : "left in place: \(SystemError("rename"))")")
    }

    // MARK: Saving

    /// Saves every view that changed since its last save and removes the files of views that
    /// no longer exist; returns when done (SIGTERM, reload).
    public func saveAll() {
        queue.sync { save() }
    }

    /// The same, queued (the periodic checkpoint).
    func checkpoint() {
        queue.async { [self] in save() }
    }

    /// Starts the periodic checkpoint (once).
    func startCheckpoints() {
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(max(1, Int(interval * 100))))
        timer.setEventHandler { [weak self] in self?.save() }
        timer.resume()
    }

    func stopCheckpoints() {
        timer.cancel()
    }

    /// On `queue`.
    private func save() {
        guard ensureDirectory() else { return }
        let versions = service.viewVersions
        let before = saved.withLock { $0 }
        var wrote = 0
        for (name, version) in versions where before[name] != version {
            guard let (_, lines) = service.savedLines(ofView: name) else { continue }
            var bytes = [UInt8]()
            bytes.reserveCapacity(lines.reduce(0) { $0 + $1.count + 1 })
            for line in lines {
                bytes += line
                bytes.append(UInt8(ascii: "\n"))
            }
            if let error = Self.writeAtomically("\(path)/\(Self.fileName(for: name))", bytes, directory: path) {
                logger.log(.error, "cannot save view '\(name)' to \(path): \(error)")
                continue
            }
            // The version read before the export: a change meanwhile is saved next time.
            saved.withLock { $0[name] = version }
            wrote += 1
        }
        // Views deleted since their last save: their files go.
        var removed = 0
        for name in before.keys where versions[name] == nil {
            if unlink("\(path)/\(Self.fileName(for: name))") == 0 { removed += 1 }
            saved.withLock { $0[name] = nil }
        }
        if wrote + removed > 0 {
            logger.log(.info, "saved \(wrote) views to \(path)\(removed > 0 ? ", removed \(removed)" : "")")
        }
    }

    // MARK: Files

    /// `<name>.view` with every byte outside `[A-Za-z0-9._-]` as `%XX` (and a leading `.` too,
    /// so no name makes a hidden file): any view name is one file name, and back.
    static func fileName(for name: String) -> String {
        var text = ""
        for (index, byte) in name.utf8.enumerated() {
            let plain = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || (byte == UInt8(ascii: ".") && index > 0)
            if plain {
                text.append(Character(Unicode.Scalar(byte)))
            } else {
                let hex = Array("0123456789ABCDEF")
                text += "%\(hex[Int(byte >> 4)])\(hex[Int(byte & 15)])"
            }
        }
        return text + suffix
    }

    private func ensureDirectory() -> Bool {
        if mkdir(path, 0o700) == 0 || errno == EEXIST { return true }
        logger.log(.error, "cannot use state-dir \(path): \(SystemError("mkdir"))", throttledAs: nil)
        return false
    }

    static func files(in directory: String) -> [String] {
        guard let handle = opendir(directory) else { return [] }
        defer { closedir(handle) }
        var names = [String]()
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// A regular file's bytes (not following a link out of the directory: `O_NOFOLLOW`).
    static func contents(of path: String) -> Result<[UInt8], SystemError> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return .failure(SystemError("open")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(SystemError("fstat")) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(SystemError("open", code: EINVAL, detail: "(not a regular file)")) }
        var bytes = [UInt8]()
        bytes.reserveCapacity(Int(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = Glibc.read(fd, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .failure(SystemError("read")) }
            if count == 0 { break }
            bytes += buffer[0..<count]
        }
        return .success(bytes)
    }

    /// Writes `bytes` to a new file beside `path`, flushes it, renames it over `path` and
    /// flushes the directory: a crash at any point leaves the old file or the new one.
    /// - Returns: what failed, or nil.
    static func writeAtomically(_ path: String, _ bytes: [UInt8], directory: String) -> SystemError? {
        let temporary = "\(path).tmp"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return SystemError("open") }
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = SystemError("write")
                close(fd)
                unlink(temporary)
                return error
            }
            written += count
        }
        guard fsync(fd) == 0 else {
            let error = SystemError("fsync")
            close(fd)
            unlink(temporary)
            return error
        }
        close(fd)
        guard rename(temporary, path) == 0 else {
            let error = SystemError("rename")
            unlink(temporary)
            return error
        }
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
        return nil
    }
}
