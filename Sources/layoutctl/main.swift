// layoutctl: drives layoutd from a shell. Every command, with its options, help and handler, is
// an entry of `Commands.catalog` (Commands.swift); this file parses the command line and runs
// the command's handler.
//
// Exit codes: 0 ok, 1 could not talk to the daemon or a bad reply, 2 the daemon refused,
// 3 timeout, 64 usage.
import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutIPC
import LayoutProtocol

let version = Release.version

// MARK: Output

func writeOut(_ text: String) {
    let bytes = Array(text.utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress! + written, $0.count - written) }
        if count <= 0 { exit(1) }
        written += count
    }
}

func writeError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func usageError(_ message: String, command: Command? = nil) -> Never {
    writeError("layoutctl: \(message)\n")
    writeError(command.map { "Run 'layoutctl help \($0.name)'.\n" } ?? "Run 'layoutctl help'.\n")
    exit(64)
}

func fail(_ error: LayoutdError) -> Never {
    switch error {
    case .transport(let message):
        writeError("layoutctl: \(message)\n")
        exit(1)
    case .refused(let wire):
        writeError("layoutctl: \(wire.name): \(wire.message)\n")
        exit(2)
    case .timeout(let seconds):
        writeError("layoutctl: Timeout: no reply within \(formatNumber(.number(seconds))) s\n")
        exit(3)
    case .malformed(let message):
        writeError("layoutctl: \(message)\n")
        exit(1)
    }
}

// MARK: Arguments

func socketPath(_ option: String?) -> String { SocketPath.resolve(option: option).path }

// MARK: Running

/// The command line as parsed; the handlers and their helpers read it.
let invocation: Invocation = {
    switch Commands.catalog.parse(Array(CommandLine.arguments.dropFirst())) {
    case .run(let invocation): return invocation
    case .version:
        writeOut("layoutctl \(version)\n")
        exit(0)
    case .help(let command):
        writeOut(command.map(CommandCatalog.help(for:)) ?? Commands.catalog.overview(version: version))
        exit(0)
    case .socketPath(let option):
        writeOut(socketPath(option) + "\n")
        exit(0)
    case .noCommand:
        writeError(Commands.catalog.overview(version: version))
        exit(64)
    case .usage(let message, let command):
        usageError(message, command: command)
    }
}()
let command = invocation.command
command.run(invocation)
exit(0)
