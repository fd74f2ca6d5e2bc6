import CSocketShims
import Glibc

/// A sealed memfd holding bytes: how a service's state rides in the file descriptor store
/// across a restart (`Notifier.store(_:name:)`, then `ListenSockets.passed()`), as
/// systemd.service(5) suggests for FileDescriptorStoreMax=. Nothing touches the disk.
///
/// Sealed (no write, no resize, no further seals) before it is stored, so the next instance
/// reads exactly what this one wrote, however long the manager held it.
public enum MemoryFile {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case system(call: String, code: Int32)
        /// The file holds more than the reader's limit; nothing was read.
        case tooLarge(size: Int, limit: Int)
        /// Not a memfd carrying every seal (shrink, grow, write, seal): its bytes could change
        /// while read, so they are refused.
        case notSealed

        public var description: String {
            switch self {
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            case .tooLarge(let size, let limit): "the memory file holds \(size) bytes, more than the limit of \(limit)"
            case .notSealed: "the file is not a sealed memfd"
            }
        }
    }

    /// A new close-on-exec memfd named `name` (shown in /proc/PID/fd as memfd:NAME) holding
    /// `bytes`, sealed, its offset at 0. The caller owns the fd.
    /// - Complexity: O(n) in the bytes, written in one pass.
    public static func sealed(name: String, bytes: [UInt8]) throws(Failure) -> Int32 {
        let fd = layoutd_memfd_create(name)
        guard fd >= 0 else { throw .system(call: "memfd_create", code: errno) }
        // withUnsafeBytes rethrows untyped errors: the loop reports an errno instead.
        let failedWrite: Int32? = bytes.withUnsafeBytes { buffer in
            var written = 0
            while written < buffer.count {
                let count = write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                written += count
            }
            return nil
        }
        let failure: Failure? =
            if let failedWrite { .system(call: "write", code: failedWrite) }
            else if layoutd_memfd_seal(fd) != 0 { .system(call: "fcntl(F_ADD_SEALS)", code: errno) }
            else if lseek(fd, 0, SEEK_SET) != 0 { .system(call: "lseek", code: errno) }
            else { nil }
        if let failure {
            close(fd)
            throw failure
        }
        return fd
    }

    /// Every byte of the sealed memfd `fd`, read from offset 0 with pread (the fd's offset is
    /// neither used nor moved). Refuses a file over `limit` bytes or one without every seal,
    /// reading nothing. The caller keeps the fd.
    public static func read(_ fd: Int32, limit: Int) throws(Failure) -> [UInt8] {
        switch layoutd_memfd_is_sealed(fd) {
        case 1: break
        case 0: throw .notSealed
        default: throw .system(call: "fcntl(F_GET_SEALS)", code: errno)
        }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw .system(call: "fstat", code: errno) }
        let size = Int(status.st_size)
        guard size <= limit else { throw .tooLarge(size: size, limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        let failedRead: Int32? = bytes.withUnsafeMutableBytes { buffer in
            var done = 0
            while done < size {
                let count = pread(fd, buffer.baseAddress! + done, size - done, off_t(done))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                // Sealed against shrinking: an early end cannot happen, but never loop on it.
                guard count > 0 else { return EIO }
                done += count
            }
            return nil
        }
        if let failedRead { throw .system(call: "pread", code: failedRead) }
        return bytes
    }
}
