import Foundation
import Glibc

/// A datagram socket bound as NOTIFY_SOCKET for one test, read with recvmsg so the fds a
/// message carries (SCM_RIGHTS) arrive as fds of this process. NOTIFY_SOCKET is process-wide:
/// the suites that use this are serialized, and `close()` unsets it.
final class NotifySocket {
    struct Message {
        let lines: [String]
        let fds: [Int32]
    }

    let fd: Int32
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "layoutd-notify-\(getpid())-\(UUID().uuidString.prefix(8)).sock"
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        setenv("NOTIFY_SOCKET", path, 1)
    }

    func close() {
        unsetenv("NOTIFY_SOCKET")
        Glibc.close(fd)
        unlink(path)
    }

    /// The next message, or nil when none arrives within `timeout` seconds.
    func receive(timeout: Double = 5) -> Message? {
        var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&waiting, 1, Int32(timeout * 1000)) == 1 else { return nil }
        var data = [UInt8](repeating: 0, count: 8192)
        let control = UnsafeMutableRawPointer.allocate(byteCount: 8192, alignment: 8)
        defer { control.deallocate() }
        let (count, controlLength): (Int, Int) = data.withUnsafeMutableBytes { buffer in
            var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
            return withUnsafeMutablePointer(to: &vector) { vector in
                var header = msghdr()
                header.msg_iov = vector
                header.msg_iovlen = 1
                header.msg_control = control
                header.msg_controllen = 8192
                let count = recvmsg(fd, &header, Int32(MSG_CMSG_CLOEXEC))
                return (count, Int(header.msg_controllen))
            }
        }
        guard count >= 0 else { return nil }
        // struct cmsghdr: size_t cmsg_len, int cmsg_level, int cmsg_type, then the data, each
        // header aligned to size_t (CMSG_* are macros Swift does not import).
        var fds = [Int32]()
        var offset = 0
        let header = MemoryLayout<Int>.size + 8
        while offset + header <= controlLength {
            let length = control.load(fromByteOffset: offset, as: Int.self)
            let level = control.load(fromByteOffset: offset + MemoryLayout<Int>.size, as: Int32.self)
            let type = control.load(fromByteOffset: offset + MemoryLayout<Int>.size + 4, as: Int32.self)
            if level == SOL_SOCKET, type == Int32(SCM_RIGHTS) {
                for index in 0..<(length - header) / 4 {
                    fds.append(control.load(fromByteOffset: offset + header + 4 * index, as: Int32.self))
                }
            }
            offset += (length + 7) & ~7
        }
        let text = String(decoding: data[0..<count], as: UTF8.self)
        return Message(lines: text.split(separator: "\n").map(String.init), fds: fds)
    }
}
