import Glibc
import Systemd
import Testing

@Suite("memory files")
struct MemoryFileTests {
    @Test("bytes written come back, and the file can no longer change")
    func roundTripAndSealed() throws {
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let fd = try MemoryFile.sealed(name: "state", bytes: bytes)
        defer { close(fd) }
        #expect(try MemoryFile.read(fd, limit: bytes.count) == bytes)
        #expect(lseek(fd, 0, SEEK_CUR) == 0, "read moved the offset")
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(write(fd, "x", 1) == -1 && errno == EPERM)
        #expect(ftruncate(fd, 0) == -1 && errno == EPERM)
        #expect(linkTarget(of: fd).hasPrefix("/memfd:state"))
    }

    @Test("an empty file round-trips")
    func empty() throws {
        let fd = try MemoryFile.sealed(name: "empty", bytes: [])
        defer { close(fd) }
        #expect(try MemoryFile.read(fd, limit: 0) == [])
    }

    @Test("a file over the limit is refused before reading")
    func overLimit() throws {
        let fd = try MemoryFile.sealed(name: "state", bytes: [1, 2, 3])
        defer { close(fd) }
        #expect(throws: MemoryFile.Failure.tooLarge(size: 3, limit: 2)) { try MemoryFile.read(fd, limit: 2) }
    }

    @Test("an unsealed file or a pipe is refused")
    func notSealed() throws {
        var pipeFDs: [Int32] = [0, 0]
        #expect(pipe(&pipeFDs) == 0)
        defer { pipeFDs.forEach { close($0) } }
        #expect(throws: MemoryFile.Failure.notSealed) { try MemoryFile.read(pipeFDs[0], limit: 10) }
        #expect(throws: MemoryFile.Failure.system(call: "fcntl(F_GET_SEALS)", code: EBADF)) { try MemoryFile.read(99_999, limit: 10) }
    }

    /// What /proc/self/fd/FD points to: "/memfd:NAME (deleted)" for a memfd.
    private func linkTarget(of fd: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, 255)
        return String(decoding: buffer[0..<max(0, count)].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
