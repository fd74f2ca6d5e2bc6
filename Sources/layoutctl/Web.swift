// `layoutctl web`: checks the daemon, listens, prints the URL, serves (WebServer.swift).
import Glibc
import LayoutdClient
import LayoutIPC
import LayoutProtocol

enum Web {
    static func run() -> Never {
        _ = positional(0, "no arguments")
        var settings = WebServerSettings(socketPath: socketPath(invocation.socket))
        settings.openView = invocation.value("--open-view")
        if let listen = invocation.value("--listen") {
            guard let (host, port) = WebServer.parseListen(listen) else {
                usageError("--listen needs HOST:PORT (127.0.0.1:7465, [::1]:0), not '\(listen)'", command: command)
            }
            settings.host = host
            settings.port = port
        }
        // For the tests only (not a documented option): a head deadline they can outwait.
        if let text = getenv("LAYOUTCTL_WEB_HEAD_DEADLINE").map({ String(cString: $0) }) {
            guard let seconds = Double(text), (0.1...3600).contains(seconds) else {
                usageError("LAYOUTCTL_WEB_HEAD_DEADLINE needs seconds from 0.1 to 3600, not '\(text)'", command: command)
            }
            settings.headDeadline = seconds
        }
        // The daemon first: a bridge to nothing would only fail later, in the browser.
        let client = connect()
        let hello = call(client, "daemon.hello", [:])
        if case .number(let limit)? = hello["limits"]?["maximumLineLength"] { settings.maximumMessageLength = Int(limit) }
        client.close()
        let listening: (fd: Int32, port: UInt16)
        switch WebServer.listen(host: settings.host, port: settings.port) {
        case .success(let value): listening = value
        case .failure(let error):
            writeError("layoutctl: web: \(error.message)\n")
            exit(error.exitCode)
        }
        if !WebServer.isLoopback(settings.host) {
            writeError("layoutctl: web: warning: \(WebServer.display(settings.host, listening.port)) is not loopback; the token in the URL is the only guard\n")
        }
        signal(SIGPIPE, SIG_IGN)
        let gateway = WebGateway(settings: settings, token: WebServer.makeToken(), listener: listening.fd, port: listening.port)
        writeOut("layoutctl web: the viewer is at \(gateway.url)\n")
        gateway.serve()
    }
}
