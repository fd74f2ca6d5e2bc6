import Glibc
import LayoutIPC
import LayoutServer
import Testing

@Suite("server settings")
struct ServerSettingsTests {
    @Test("a configuration file sets values by name, with comments and blank lines")
    func configuration() throws {
        var settings = ServerSettings()
        try settings.apply(configuration: "# limits\n\nmax-line-length = 4096  # small\noutput-cap=65536\r\npartial-line-timeout = 2.5\n", file: "test.conf")
        #expect(settings.maximumLineLength == 4096)
        #expect(settings.outputCap == 65536)
        #expect(settings.partialLineTimeout == 2.5)
        #expect(settings.changes(from: ServerSettings()) == ["max-line-length", "output-cap", "partial-line-timeout"])
    }

    @Test(
        "bad lines are refused with the file, the line number and the setting",
        arguments: [
            ("max-line-length = lots", "test.conf:1: max-line-length must be a positive integer, not 'lots'"),
            ("\nmax-line-length = -1", "test.conf:2: max-line-length must be a positive integer, not '-1'"),
            ("colour = red", "test.conf:1: unknown setting 'colour'"),
            ("output-cap", "test.conf:1: expected 'name = value'"),
            ("write-stall-timeout = nan", "test.conf:1: write-stall-timeout must be a positive number of seconds, not 'nan'"),
            // Out of range: a limit cannot be made absurd or turned off.
            ("partial-line-timeout = 1e-300", "test.conf:1: partial-line-timeout must be between 0.01 and 86400.0 seconds, not 1e-300"),
            ("max-line-length = 10", "test.conf:1: max-line-length must be between 256 and 1073741824, not 10"),
            ("max-batch = 100000000", "test.conf:1: max-batch must be between 1 and 67108864, not 100000000"),
        ])
    func refusals(text: String, message: String) {
        var settings = ServerSettings()
        #expect(throws: SettingsError.self) { try settings.apply(configuration: text, file: "test.conf") }
        do {
            try settings.apply(configuration: text, file: "test.conf")
        } catch {
            #expect(error.message == message)
        }
    }
}

@Suite("socket discovery and listening")
struct SocketTests {
    @Test("the documented discovery order")
    func discovery() {
        #expect(SocketPath.resolve(option: "/a.sock", environment: ["LAYOUTD_SOCKET": "/b.sock"]) == SocketPath(path: "/a.sock", source: .option))
        #expect(SocketPath.resolve(option: nil, environment: ["LAYOUTD_SOCKET": "/b.sock", "XDG_RUNTIME_DIR": "/run/user/7"]).path == "/b.sock")
        #expect(SocketPath.resolve(option: "", environment: ["LAYOUTD_SOCKET": "", "XDG_RUNTIME_DIR": "/run/user/7/"]).path == "/run/user/7/layoutd/ipc.sock")
        #expect(SocketPath.resolve(option: nil, environment: [:]) == SocketPath(path: "/run/layoutd/ipc.sock", source: .system))
        #expect(SocketPath(path: "/run/user/7/layoutd/ipc.sock", source: .option).directory == "/run/user/7/layoutd")
    }

    @Test("listen creates a 0700 directory and a 0600 socket, refuses a live one and replaces a stale one")
    func listening() throws {
        var template = Array("/tmp/layoutd-unit-XXXXXX".utf8CString)
        let base = String(cString: try #require(mkdtemp(&template)))
        let path = base + "/nested/run/ipc.sock"
        let first = try UnixSocket.listen(at: path)
        var status = stat()
        #expect(stat(base + "/nested/run", &status) == 0)
        #expect(status.st_mode & 0o777 == 0o700)
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & 0o777 == 0o600)
        #expect(throws: ListenError.self) { _ = try UnixSocket.listen(at: path) }
        // A client sees the listener's uid.
        let client = try UnixSocket.connect(to: path)
        var accepted: Int32?
        for _ in 0..<100 {
            accepted = try UnixSocket.accept(first)
            if accepted != nil { break }
            usleep(10000)
        }
        let server = try #require(accepted)
        #expect(try UnixSocket.peerCredentials(server).uid == getuid())
        #expect(fcntl(server, F_GETFD) & FD_CLOEXEC != 0)
        #expect(fcntl(server, F_GETFL) & O_NONBLOCK != 0)
        #expect(UnixSocket.isListeningUnixStream(first))
        #expect(!UnixSocket.isListeningUnixStream(server))
        close(client)
        close(server)
        close(first)
        // Closed without unlinking: stale, so the next daemon takes it over.
        let second = try UnixSocket.listen(at: path)
        close(second)
        unlink(path)
        let regular = base + "/file"
        close(open(regular, O_CREAT | O_WRONLY, 0o600))
        #expect(throws: ListenError.self) { _ = try UnixSocket.listen(at: regular) }
        #expect(access(regular, F_OK) == 0)
        #expect(throws: ListenError.self) { _ = try UnixSocket.listen(at: base + "/" + String(repeating: "x", count: 120)) }
    }
}
