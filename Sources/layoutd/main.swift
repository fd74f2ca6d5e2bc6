import CSocketShims
import Dispatch
import Glibc
import LayoutIPC
import LayoutPlugins
import LayoutProtocol
import LayoutServer
import LayoutService
import Systemd

// layoutd: the layout daemon. Options, then settings (defaults < --config file < flags), then
// the socket, then serve until SIGTERM/SIGINT; SIGHUP re-reads the configuration.
// The options, --help and the man pages come from tables in LayoutServer (`DaemonOption`,
// `ServerSettings.keys`, `ExitStatus`, `ManualPage`), so none of them can say what the code
// does not do.

/// `<prefix>/lib/layoutd/plugins` for a layoutd installed as `<prefix>/bin/layoutd`: found from
/// the executable, so a relocated install finds its own plugins. The loader skips it whole
/// when any directory above it may be written by others (`PluginTrust.Policy.strict`): a
/// binary copied under such a prefix must not load what any local user put there.
let defaultPluginDirectory: String? = {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    guard length > 0 else { return nil }
    let executable = String(decoding: buffer[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    guard let slash = executable.lastIndex(of: "/") else { return nil }
    let binDirectory = executable[..<slash]
    guard let parentSlash = binDirectory.lastIndex(of: "/") else { return nil }
    return String(binDirectory[..<parentSlash]) + "/lib/layoutd/plugins"
}()

/// `layoutd --help`, from the same table as the parser and layoutd(8).
let usage = DaemonOption.usage(DaemonOption.Context(defaultPluginDirectory: defaultPluginDirectory ?? "(none)"))

func printError(_ text: String) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}

func fail(_ message: String, status: ExitStatus) -> Never {
    printError("layoutd: \(message)\n")
    exit(status.rawValue)
}

/// The options, or the answer to `--help`, `--version` or `--man` and an exit.
func parseOptions(_ arguments: [String]) -> DaemonOptions {
    let options: DaemonOptions
    do {
        options = try DaemonOption.parse(arguments)
    } catch {
        fail(error.showsUsage ? "\(error.message)\n\(usage)" : error.message, status: .usage)
    }
    switch options.request {
    case nil: return options
    case .help: print(usage, terminator: "")
    case .version: print("layoutd \(LayoutDaemon.version) (protocol 1)")
    case .manual(let page): print(page.roff(version: LayoutDaemon.version), terminator: "")
    }
    exit(ExitStatus.success.rawValue)
}

/// Defaults, then the configuration file, then `--set` flags.
func loadSettings(_ options: DaemonOptions) throws(SettingsError) -> ServerSettings {
    var settings = ServerSettings()
    settings.defaultPluginDirectory = defaultPluginDirectory
    // systemd's StateDirectory= (the first, when there are several): views are saved there
    // unless the file or a flag says otherwise (`state-dir = none`).
    if let directories = getenv("STATE_DIRECTORY").map({ String(cString: $0) }),
        let first = directories.split(separator: ":").first
    {
        settings.stateDirectory = String(first)
    }
    if let path = options.config {
        try settings.apply(configuration: try readConfiguration(path), file: path)
    }
    for (name, value) in options.overrides {
        do {
            try settings.set(name, to: value)
        } catch {
            throw SettingsError("--set \(name): \(error.message)")
        }
    }
    try settings.validate()
    return settings
}

/// The most a configuration file may hold: far more than any real one, little memory.
let maximumConfigurationBytes = 1 << 20

/// A configuration file's text. Opened without blocking, so a FIFO or a device put in its
/// place cannot hang a start or a reload, and refused unless it is a regular file of at most
/// `maximumConfigurationBytes` (a directory would otherwise read as empty: all defaults).
func readConfiguration(_ path: String) throws(SettingsError) -> String {
    func failure(_ doing: String) -> SettingsError { SettingsError("cannot \(doing) \(path): \(String(cString: strerror(errno)))") }
    let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
    guard descriptor >= 0 else { throw failure("read") }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { throw failure("examine") }
    switch info.st_mode & S_IFMT {
    case S_IFREG: break
    case S_IFDIR: throw SettingsError("\(path) is a directory")
    default: throw SettingsError("\(path) is not a regular file")
    }
    let tooLarge = SettingsError("\(path) is larger than 1 MiB")
    guard info.st_size <= maximumConfigurationBytes else { throw tooLarge }
    var bytes = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let count = read(descriptor, &buffer, buffer.count)
        if count < 0, errno == EINTR { continue }
        guard count >= 0 else { throw failure("read") }
        if count == 0 { break }
        bytes += buffer[0..<count]
        // It may grow while being read.
        guard bytes.count <= maximumConfigurationBytes else { throw tooLarge }
    }
    return String(decoding: bytes, as: UTF8.self)
}

enum LayoutDaemon {
    static let version = Release.version
}

/// The names this daemon gives what it puts in the service manager's fd store.
enum HandoverNames {
    static let state = "state"
    static let listener = "listener"
    static let connectionPrefix = "conn."
    /// The most the state may be: far more than the views' limits allow.
    static let maximumStateBytes = 1 << 36

    /// Whether a passed fd's name is one this daemon stores (not a socket unit's).
    static func isOurs(_ name: String) -> Bool {
        name == state || name == listener || name.hasPrefix(connectionPrefix)
    }
}

/// The state the previous daemon stored (`state`), if it did and it reads.
func readHandedOverState(_ passed: [ListenSockets.Passed]) -> (state: HandoverState, fd: Int32)? {
    guard let stored = passed.first(where: { $0.name == HandoverNames.state }) else { return nil }
    do {
        let bytes = try MemoryFile.read(stored.fd, limit: HandoverNames.maximumStateBytes)
        return (try HandoverState.decode(bytes), stored.fd)
    } catch {
        printError("layoutd: the state the previous daemon stored does not read (\(error)); starting without it\n")
        return nil
    }
}

let options = parseOptions(Array(CommandLine.arguments.dropFirst()))
// Before any view or thread allocates: memory a load frees goes back (see FreedMemory).
FreedMemory.configureAllocator()
let socketPath = SocketPath.resolve(option: options.socket)
if options.printSocketPath {
    print(socketPath.path)
    exit(ExitStatus.success.rawValue)
}

let settings: ServerSettings
do {
    settings = try loadSettings(options)
} catch {
    fail(error.message, status: .configuration)
}

// Writes to a closed socket return EPIPE instead of killing the daemon.
signal(SIGPIPE, SIG_IGN)
// Requests run on as many threads as are busy (the overcommitting pool), and glibc gives each
// thread an arena of its own up to 8 per core: memory one thread freed was not reused by the
// next, and the memory test's peak grew from 150 to 255 MiB. One arena per core keeps what
// is freed in use; MALLOC_ARENA_MAX, when set, still wins.
if getenv("MALLOC_ARENA_MAX") == nil {
    _ = layoutd_set_malloc_arena_max(Int32(max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
}
// Every connection is an fd: take the hard limit (the units set LimitNOFILE=); the server
// keeps max-connections a margin below what this leaves.
LayoutServer.raiseFDLimit()

// Under systemd with stderr connected to the journal: native entries with fields. Otherwise
// `<N>message` lines, which journald also understands from a plain stderr stream. The
// journal's fields are length-delimited, so values go as they are; MESSAGE is kept printable.
let logger: Logger
if Journal.isStandardErrorJournal {
    logger = Logger(threshold: options.logLevel, sink: { priority, message, fields in
        let printable = LogEscaping.escape(message, for: .journalMessage)
        if !Journal.send(priority: priority.rawValue, message: printable, identifier: "layoutd", fields: fields) {
            Logger.standardError(priority, message, fields)
        }
    })
} else {
    logger = Logger(threshold: options.logLevel)
}

// What systemd passed: the socket unit's listener (socket activation), and after a restart
// through the fd store the previous daemon's listener, connections and state.
let passed: [ListenSockets.Passed]
do {
    passed = try ListenSockets.passed()
} catch {
    fail("cannot use the file descriptors systemd passed: \(error)", status: .cannotListen)
}
let storedListener = passed.first { $0.name == HandoverNames.listener }
let handed = readHandedOverState(passed)

// A socket systemd passed (socket activation) wins over binding one ourselves.
let listener: Int32
let activated: Bool
do {
    if let stored = storedListener {
        // Our own listener, kept by the store across the restart: still ours to remove.
        listener = stored.fd
        activated = false
    } else if let inherited = try ListenSockets.listener(named: "ipc", in: passed.filter { !HandoverNames.isOurs($0.name) }) {
        listener = inherited
        activated = true
    } else {
        listener = try UnixSocket.listen(at: socketPath.path)
        activated = false
    }
} catch let error as ListenSockets.Failure {
    fail("cannot use the sockets systemd passed: \(error)", status: .cannotListen)
} catch {
    fail("cannot listen: \(error)", status: .cannotListen)
}
let servedPath = activated ? (UnixSocket.boundPath(of: listener) ?? socketPath.path) : socketPath.path

let notifier = Notifier()
let plugins = PluginLoader { severity, message in
    let priority: LogPriority = switch severity {
    case .debug: .debug
    case .info: .info
    case .warning: .warning
    }
    logger.log(priority, message)
}
let server = LayoutServer(
    listener: listener, path: servedPath, ownsSocketFile: !activated, settings: settings, logger: logger,
    strategies: { settings in plugins.scan(settings.pluginDirectories, defaultDirectory: settings.defaultPluginDirectory).registry },
    notifications: ServerNotifications(reloading: { notifier.reloading() }, ready: { notifier.ready(status: $0) }),
    reloadSettings: { () throws(SettingsError) in try loadSettings(options) })
// The views: the previous daemon's (handed over) when there are some, else the state
// directory's.
if let handed {
    server.restoreViews(from: handed.state)
} else {
    server.stateDirectory?.restoreAll()
}
server.start()
if let handed {
    takeOver(handed, passed: passed)
} else {
    // Stored by a daemon whose state did not read (or none): nothing to carry on with.
    for entry in passed where HandoverNames.isOurs(entry.name) && entry.fd != listener {
        close(entry.fd)
        try? notifier.removeStored(named: entry.name)
    }
}
logger.log(
    .notice,
    activated
        ? "layoutd \(LayoutDaemon.version) serving \(servedPath) (socket passed by systemd)"
        : "layoutd \(LayoutDaemon.version) listening on \(servedPath) (from \(socketPath.source.rawValue))")
// READY=1 only now: the registry is loaded and the socket accepts.
notifier.ready(status: server.statusSummary())
if let interval = Notifier.watchdogInterval() {
    // Half the interval, as sd_watchdog_enabled(3) advises; each ping proves the accept loop,
    // every I/O thread and every view's executor answered.
    server.heartbeat(every: interval / 2) {
        notifier.watchdog()
        notifier.status(server.statusSummary())
    }
    logger.log(.info, "watchdog enabled: a ping every \(interval / 2) s")
} else if notifier.isEnabled {
    server.heartbeat(every: 5) { notifier.status(server.statusSummary()) }
}
if isatty(STDERR_FILENO) == 1 {
    printError("""
        Talk to it (one JSON request per line):
          echo '{"id":1,"method":"daemon.hello"}' | socat - UNIX-CONNECT:\(socketPath.path)
        Stop it with Ctrl-C.

        """)
}

/// Takes back what the previous daemon stored: each connection by name, then removes every
/// name this daemon used from the store (they are this daemon's now, and a connection the
/// store still held would never see its end). Names it does not know are closed and removed.
func takeOver(_ handed: (state: HandoverState, fd: Int32), passed: [ListenSockets.Passed]) {
    let byName = Dictionary(passed.map { ($0.name, $0.fd) }, uniquingKeysWith: { first, _ in first })
    var adopted = 0
    for var record in handed.state.connections {
        guard let fd = byName[record.name] else { continue }
        record.fd = fd
        if server.adopt(record) { adopted += 1 }
    }
    let known = Set(handed.state.connections.map(\.name) + [HandoverNames.state, HandoverNames.listener])
    for entry in passed where HandoverNames.isOurs(entry.name) {
        if !known.contains(entry.name) { close(entry.fd) }
        try? notifier.removeStored(named: entry.name)
    }
    close(handed.fd)
    logger.log(.notice, "took over \(adopted) of \(handed.state.connections.count) connections and \(handed.state.views.count) views from the previous daemon")
}

/// Hands everything to the store: the state first (past FileDescriptorStoreMax= systemd drops
/// what comes last), then our own listener, then each connection; then waits until systemd has
/// them all (a barrier) before the process exits.
func store(_ state: HandoverState, listener: Int32?) {
    do {
        let memory = try MemoryFile.sealed(name: "layoutd-state", bytes: state.encoded())
        try notifier.store([memory], name: HandoverNames.state, poll: false)
        close(memory)
        if let listener { try notifier.store([listener], name: HandoverNames.listener, poll: false) }
        for connection in state.connections {
            try notifier.store([connection.fd], name: connection.name)
        }
    } catch {
        logger.log(.error, "cannot hand over to the fd store: \(error); the clients will reconnect")
    }
    let delivery = notifier.barrier(timeout: 10)
    logger.log(.notice, "handed over \(state.connections.count) connections and \(state.views.count) views (\(delivery))")
    notifier.flush(timeout: 1)
}

var signalSources: [DispatchSourceSignal] = []
for (number, name) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .main)
    source.setEventHandler {
        if server.settings.fileDescriptorStore == 1, notifier.isEnabled {
            notifier.stopping(status: "restarting (\(name)): handing over to the next daemon")
            server.handOver { state in
                server.stateDirectory?.saveAll()
                store(state, listener: activated ? nil : listener)
                exit(ExitStatus.success.rawValue)
            }
            return
        }
        notifier.stopping(status: "stopping (\(name)): answering what was read")
        server.shutdown(reason: name) { drained in
            let totals = server.totals
            let summary = "stopped (\(name)): \(totals.read) requests read, \(totals.answered) answered"
            logger.log(.notice, drained ? summary : summary + "; \(totals.open) connections still open at the deadline")
            server.stateDirectory?.saveAll()
            notifier.flush(timeout: 1)
            exit(ExitStatus.success.rawValue)
        }
    }
    source.resume()
    signalSources.append(source)
}
/// SIGHUP reloads on `queue`. A function, not top-level code: a closure written there would
/// belong to the main actor, and running it on another queue traps.
func reloadOnHangup(_ server: LayoutServer, on queue: DispatchQueue) -> DispatchSourceSignal {
    signal(SIGHUP, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: queue)
    source.setEventHandler { _ = server.reload() }
    source.resume()
    return source
}

// A reload reads the file and scans the plugin directories: on its own queue, so however long
// that takes, SIGTERM and SIGINT on the main queue are handled at once.
let hangup = reloadOnHangup(server, on: DispatchQueue(label: "layoutd.reload"))

dispatchMain()
