import Dispatch
import Glibc
import LayoutEngine
import LayoutIPC
import LayoutProtocol
import LayoutService
import Synchronization

/// The daemon's transport: a non-blocking Unix stream socket served by a reactor.
///
/// Accepts on the control queue, checks peer credentials (the daemon's uid and root only) and
/// connection caps, and assigns each connection to one of a fixed set of I/O threads
/// (`io-threads`, one per core by default), each with its own epoll set (`IOThread`). A
/// connection's thread reads, frames and runs its requests and writes the replies: inline,
/// without a thread hand-off, when the request is cheap and its view is free
/// (`ViewExecutor.run(inline:_:)`); heavy requests and busy views run on Dispatch's pool and
/// their outcomes come back through the connection's inbox.
///
/// The control queue (accepting, the watchdog) is the main queue in the daemon: a thread of its
/// own, which no request runs on, so however many CPU-heavy requests are in flight, new
/// connections are answered and the watchdog is fed.
public final class LayoutServer: @unchecked Sendable {
    public let service: LayoutService
    public let logger: Logger
    public let path: String
    /// Whether the daemon bound the socket itself (and so removes it when it stops).
    public let ownsSocketFile: Bool
    private let listener: Int32
    /// Accepting, the deadline sweep and the watchdog (`init(controlQueue:)`).
    let queue: DispatchQueue
    private var acceptSource: DispatchSourceRead?
    /// Whether the accept source is suspended (out of fds: backing off).
    private var acceptPaused = false
    /// An fd held in reserve: given up to accept and refuse a connection when the process is
    /// out of fds, so a client at the limit gets an answer instead of a wait in the backlog.
    private var reserveFD: Int32 = -1
    /// Connections the fd limit leaves room for (`RLIMIT_NOFILE` less `fdMargin`).
    public let fdCeiling: Int
    /// The I/O threads (`start`); a connection stays on the one it was given at accept.
    private var threads: [IOThread] = []
    private let ownUID = getuid()
    private let started = DispatchTime.now()

    private struct State {
        /// In effect: as loaded, except the service limits, which keep their start values.
        var settings: ServerSettings
        /// As last read from the configuration file and flags.
        var loaded: ServerSettings
        var generation = 0
        /// Open connections, refused ones included while their error line goes out.
        var connections: [ConnectionID: Connection] = [:]
        /// Open connections on each I/O thread (a new one goes to the least loaded).
        var threadLoad: [Int] = []
        /// Admitted connections (what the caps count).
        var admitted = 0
        var perUID: [UInt32: Int] = [:]
        var nextConnection = 1
        var accepted = 0
        var refused = 0
        /// Accepts that failed for want of fds (each refused through the reserve fd, or lost).
        var fdExhausted = 0
        var dropped = 0
        /// Request lines read and carried out on connections that have closed.
        var requestsRead = 0
        var requestsAnswered = 0
        var stopping = false
        var shutdownReason = ""
        var onDrained: (@Sendable () -> Void)?
        /// Connections that left for the next daemon (`handOver`).
        var handedOver: [HandedConnection] = []
    }

    private let state: Mutex<State>
    private let reloadSettings: @Sendable () throws(SettingsError) -> ServerSettings
    private let strategies: @Sendable (ServerSettings) -> StrategyRegistry
    private let notifications: ServerNotifications
    private var heartbeatTimer: DispatchSourceTimer?
    /// Where views are saved (`state-dir`), if anywhere.
    public let stateDirectory: StateDirectory?

    /// - Parameters:
    ///   - listener: a listening socket (bound by `UnixSocket.listen` or inherited).
    ///   - strategies: the registry for some settings (built-ins plus the plugins their
    ///     directories hold); called at start and again on every reload.
    ///   - reloadSettings: reads the configuration again for `daemon.reload` and SIGHUP.
    public init(
        listener: Int32, path: String, ownsSocketFile: Bool, settings: ServerSettings, logger: Logger,
        controlQueue: DispatchQueue = .main,
        strategies: @escaping @Sendable (ServerSettings) -> StrategyRegistry = { _ in .builtIn },
        notifications: ServerNotifications = ServerNotifications(),
        reloadSettings: @escaping @Sendable () throws(SettingsError) -> ServerSettings
    ) {
        let registry = strategies(settings)
        queue = controlQueue
        fdCeiling = max(1, Self.fdLimit() - Self.fdMargin)
        self.strategies = strategies
        self.notifications = notifications
        self.listener = listener
        self.path = path
        self.ownsSocketFile = ownsSocketFile
        self.logger = logger
        self.reloadSettings = reloadSettings
        state = Mutex(State(settings: settings, loaded: settings))
        let limits = ServiceLimits(
            maximumViews: settings.maximumViews,
            view: ViewLimits(
                maximumItems: settings.maximumItemsPerView, maximumBatchSize: settings.effectiveBatchSize,
                maximumWindowElements: settings.maximumWindowElements),
            maximumTotalItems: settings.maximumTotalItems, maximumLineLength: settings.maximumLineLength,
            maximumSubscriptions: settings.maximumSubscriptions)
        let service = LayoutService(registry: registry, limits: limits)
        self.service = service
        if let path = settings.stateDirectory {
            stateDirectory = StateDirectory(path: path, checkpoint: settings.stateCheckpoint, service: service, logger: logger)
        } else {
            stateDirectory = nil
        }
        service.attach(control: self)
    }

    public var settings: ServerSettings { state.withLock { $0.settings } }

    // MARK: Running

    /// Starts accepting; returns at once.
    public func start() {
        UnixSocket.prepareInherited(listener)
        reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let count = IOThread.count(for: settings.ioThreads)
        threads = (0..<count).map { IOThread(index: $0) }
        for thread in threads { thread.start() }
        state.withLock { $0.threadLoad = Array(repeating: 0, count: count) }
        if settings.maximumConnections > fdCeiling {
            logger.log(.notice, "the fd limit leaves room for \(fdCeiling) connections; max-connections (\(settings.maximumConnections)) is lowered to that")
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: listener, queue: queue)
        source.setEventHandler { [unowned self] in acceptWaiting() }
        source.resume()
        acceptSource = source
        // Each I/O thread sweeps its own connections' deadlines every half second.
        stateDirectory?.startCheckpoints()
    }

    private func acceptWaiting() {
        // Once stopping, connections stay in the backlog: with the socket held by systemd,
        // the next daemon serves them.
        while !state.withLock({ $0.stopping }) {
            let fd: Int32
            do {
                guard let accepted = try UnixSocket.accept(listener) else { return }
                fd = accepted
            } catch {
                guard error.code == EMFILE || error.code == ENFILE else {
                    logger.log(.error, "accept failed: \(error)", throttledAs: .acceptFailed)
                    return
                }
                return outOfFDs(error)
            }
            admit(fd)
        }
    }

    /// Out of fds: refuse one waiting client through the reserve fd (it gets a
    /// `LimitExceeded` line rather than hanging in the backlog), then stop accepting for a
    /// moment, since the accept source would otherwise fire again at once and spin.
    private func outOfFDs(_ error: SystemError) {
        let refused: Bool
        if reserveFD >= 0 {
            Glibc.close(reserveFD)
            reserveFD = -1
            if let fd = try? UnixSocket.accept(listener) {
                Self.refuseAtOnce(fd, with: Self.connectionLimit(maximum: 0, perUID: settings.maximumConnectionsPerUID, reason: "file descriptors"))
                refused = true
            } else {
                refused = false
            }
            reserveFD = open("/dev/null", O_RDONLY | O_CLOEXEC)
        } else {
            refused = false
        }
        state.withLock {
            $0.fdExhausted += 1
            if refused { $0.refused += 1 }
        }
        logger.log(.error, "accept failed: \(error); pausing accepts for \(Int(Self.fdBackoff * 1000)) ms", throttledAs: .acceptFailed)
        guard !acceptPaused else { return }
        acceptPaused = true
        acceptSource?.suspend()
        queue.asyncAfter(deadline: .now() + Self.fdBackoff) { [self] in
            guard acceptPaused else { return }
            acceptPaused = false
            acceptSource?.resume()
        }
    }

    /// How long accepting pauses after running out of fds.
    static let fdBackoff = 0.1
    /// Fds kept free of connections: the listener, the reserve, Dispatch's own, stdio, the
    /// journal and notify sockets, a configuration file or plugin being read, /proc reads.
    static let fdMargin = 64

    /// The soft fd limit, as `main` raised it.
    static func fdLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1024 }
        return Int(min(limit.rlim_cur, rlim_t(Int32.max)))
    }

    /// Raises the soft fd limit to the hard one (what systemd's `LimitNOFILE=` sets for the
    /// units); returns the soft limit in effect.
    @discardableResult
    public static func raiseFDLimit() -> Int {
        var limit = rlimit()
        if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            // May fail under a seccomp filter (setrlimit is in @resources): the units set the
            // limit themselves.
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return fdLimit()
    }

    private static func connectionLimit(maximum: Int, perUID: Int, reason: String = "connections") -> WireError {
        WireError(
            name: "LimitExceeded", message: reason == "connections" ? "too many connections" : "the daemon is out of file descriptors",
            data: ["limit": .string(reason), "maximum": .number(Double(maximum)), "maximumPerUID": .number(Double(perUID))])
    }

    /// A refused connection gets its error line (it fits in the socket's buffer) and our side
    /// shut down at once. Then, rather than close with the client's first request unread
    /// (which turns its end of stream into a reset, and its write into EPIPE), it waits for
    /// the client to close, `refusalLinger` at most, and never more than
    /// `maximumLingeringRefusals` at a time (past that it closes at once): a connect flood
    /// holds no more than that many fds, for no more than that long.
    private func refuse(_ fd: Int32, with error: WireError) {
        Self.sendRefusal(fd, error)
        guard lingeringRefusals < Self.maximumLingeringRefusals else { return Self.discardAndClose(fd) }
        lingeringRefusals += 1
        // Touched on `queue` only (its handlers and the timer below run there).
        nonisolated(unsafe) let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            if UnixSocket.discardAvailableInput(fd) { source.cancel() }
        }
        source.setCancelHandler { [self] in
            Glibc.close(fd)
            lingeringRefusals -= 1
        }
        source.resume()
        queue.asyncAfter(deadline: .now() + Self.refusalLinger) { source.cancel() }
    }

    /// Refused connections waiting for their client to close (touched on `queue` only).
    private var lingeringRefusals = 0
    static let refusalLinger = 0.25
    /// Within `fdMargin`, beside the daemon's own fds.
    static let maximumLingeringRefusals = 16

    private static func sendRefusal(_ fd: Int32, _ error: WireError) {
        let line = Envelope.error(id: nil, error)
        _ = line.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    private static func discardAndClose(_ fd: Int32) {
        _ = UnixSocket.discardAvailableInput(fd)
        Glibc.close(fd)
    }

    /// Out of fds: the one client accepted through the reserve is answered and closed at once.
    private static func refuseAtOnce(_ fd: Int32, with error: WireError) {
        sendRefusal(fd, error)
        discardAndClose(fd)
    }

    private enum Admission {
        case admitted(Connection, stopping: (reason: String, deadline: Double)?)
        case refused(WireError, why: String)
    }

    private func admit(_ fd: Int32) {
        guard let peer = try? UnixSocket.peerCredentials(fd) else {
            close(fd)
            return
        }
        let peerFields = [("LAYOUTD_PEER_PID", String(peer.pid)), ("LAYOUTD_PEER_UID", String(peer.uid))]
        let admission: Admission = state.withLock { state in
            let settings = state.settings
            let maximum = min(settings.maximumConnections, fdCeiling)
            if peer.uid != ownUID, peer.uid != 0 {
                state.refused += 1
                return .refused(WireError(name: "PermissionDenied", message: "uid \(peer.uid) may not use this daemon", data: ["uid": .number(Double(peer.uid))]), why: "uid not allowed")
            }
            if state.admitted >= maximum || state.perUID[peer.uid, default: 0] >= settings.maximumConnectionsPerUID {
                state.refused += 1
                return .refused(Self.connectionLimit(maximum: maximum, perUID: settings.maximumConnectionsPerUID), why: "over the connection limits")
            }
            let connection = register(fd, peer: peer, in: &state)
            state.accepted += 1
            // Accepted in the instant shutdown began: it drains like the others.
            return .admitted(connection, stopping: state.stopping ? (state.shutdownReason, settings.shutdownDeadline) : nil)
        }
        guard case .admitted(let connection, let stopping) = admission else {
            if case .refused(let error, let why) = admission {
                // Logged first: once the line is out, the client may look for it.
                logger.log(.warning, "refused a connection: \(why)", peerFields, throttledAs: .refusedConnection)
                refuse(fd, with: error)
            }
            return
        }
        logger.log(.debug, "connection accepted", connection.fields)
        connection.start()
        if let stopping {
            connection.post { connection.beginShutdown(reason: stopping.reason, deadline: stopping.deadline) }
        }
    }

    /// A new connection on the least loaded I/O thread, counted by the caps.
    private func register(_ fd: Int32, peer: PeerCredentials, in state: inout State) -> Connection {
        let index = state.threadLoad.indices.min { state.threadLoad[$0] < state.threadLoad[$1] } ?? 0
        state.threadLoad[index] += 1
        let connection = Connection(
            id: state.nextConnection, fd: fd, peer: peer, thread: threads[index], server: self, service: service,
            settings: state.settings)
        state.nextConnection += 1
        state.connections[connection.id] = connection
        state.admitted += 1
        state.perUID[peer.uid, default: 0] += 1
        return connection
    }

    /// A connection the previous daemon handed over, counted as admitted (not refused for
    /// the caps: it was admitted once already); nil once stopping.
    func admitHandedOver(_ fd: Int32, peer: PeerCredentials) -> Connection? {
        state.withLock { state in state.stopping ? nil : register(fd, peer: peer, in: &state) }
    }

    /// A connection left for the next daemon (`Connection.handOverIfQuiet`).
    func handedOver(_ record: HandedConnection) {
        state.withLock { $0.handedOver.append(record) }
    }

    func takeHandedOver() -> [HandedConnection] {
        state.withLock { state in
            defer { state.handedOver = [] }
            return state.handedOver
        }
    }

    /// Hands an event to its connection's inbox (dropped when the connection is gone).
    func deliver(_ event: Event) {
        guard let connection = state.withLock({ $0.connections[event.connection] }) else { return }
        connection.deliver(event)
    }

    func remove(_ connection: Connection, read: Int, answered: Int) {
        let drained: (@Sendable () -> Void)? = state.withLock { state in
            guard state.connections.removeValue(forKey: connection.id) != nil else { return nil }
            state.requestsRead += read
            state.requestsAnswered += answered
            state.admitted -= 1
            state.threadLoad[connection.thread.index] -= 1
            state.perUID[connection.peer.uid, default: 1] -= 1
            if state.perUID[connection.peer.uid] == 0 { state.perUID[connection.peer.uid] = nil }
            guard state.stopping, state.connections.isEmpty else { return nil }
            defer { state.onDrained = nil }
            return state.onDrained
        }
        drained?()
    }

    func countDropped() { state.withLock { $0.dropped += 1 } }

    /// Request lines read and carried out on closed connections, and connections still open.
    public var totals: (read: Int, answered: Int, open: Int) {
        state.withLock { ($0.requestsRead, $0.requestsAnswered, $0.admitted) }
    }

    // MARK: Stopping and reloading

    /// Stops accepting, sends `daemon.shutdown` to every connection, answers every request
    /// already read and calls `completion` once all connections closed or the deadline passed.
    public func shutdown(reason: String, completion: @escaping @Sendable (_ drained: Bool) -> Void) {
        cancelAccepting()
        if ownsSocketFile { unlink(path) }
        let once = Mutex(false)
        let finish: @Sendable (Bool) -> Void = { drained in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return }
            completion(drained)
        }
        let (connections, deadline) = beginStopping(reason: reason) { finish(true) }
        logger.log(.notice, "stopping (\(reason)): draining \(connections.count) connections")
        if connections.isEmpty { finish(true) }
        for connection in connections {
            connection.post { connection.beginShutdown(reason: reason, deadline: deadline) }
        }
        queue.asyncAfter(deadline: .now() + deadline) { finish(false) }
    }

    func cancelAccepting() {
        acceptSource?.cancel()
    }

    /// Marks the server stopping; `onDrained` runs once the last connection is gone.
    /// - Returns: the connections open now and the shutdown deadline.
    func beginStopping(reason: String, onDrained: @escaping @Sendable () -> Void) -> ([Connection], Double) {
        state.withLock { state in
            state.stopping = true
            state.shutdownReason = reason
            state.onDrained = onDrained
            return (Array(state.connections.values), state.settings.shutdownDeadline)
        }
    }

    /// Re-reads the configuration: connection settings apply at once, service limits at the
    /// next start. A bad file changes nothing.
    public func reload() -> Result<ReloadResult, WireError> {
        notifications.reloading()
        defer { notifications.ready(statusSummary()) }
        let fresh: ServerSettings
        do {
            fresh = try reloadSettings()
        } catch {
            logger.log(.error, "reload failed: \(error.message)")
            return .failure(WireError(name: "ReloadFailed", message: error.message))
        }
        let (generation, changed, restart, connections) = state.withLock { state in
            let changed = fresh.changes(from: state.loaded)
            var applied = fresh
            // Service limits keep their start values until a restart; say which differ.
            for key in ServerSettings.keys where key.restart { key.copy(from: state.settings, into: &applied) }
            // The state directory is opened at start (`StateDirectory`): a reload keeps it.
            applied.stateDirectory = state.settings.stateDirectory
            let restart = fresh.changes(from: applied)
            state.loaded = fresh
            state.settings = applied
            state.generation += 1
            return (state.generation, changed, restart, Array(state.connections.values))
        }
        let applied = settings
        for connection in connections {
            connection.post { connection.apply(applied) }
        }
        let before = Set(service.registry.descriptors.map(\.name))
        let registry = strategies(applied)
        service.replaceRegistry(registry)
        let added = registry.descriptors.map(\.name).filter { !before.contains($0) }
        logger.log(.notice, "configuration reloaded (generation \(generation)); changed: \(changed.isEmpty ? "nothing" : changed.joined(separator: ", "))")
        // A reload is also a save point: what changed since the last checkpoint goes to disk.
        stateDirectory?.checkpoint()
        return .success(ReloadResult(
            generation: generation, changed: changed, restartRequired: restart, strategiesAdded: added,
            pluginsRefused: registry.refusals.map(\.path)))
    }

    // MARK: Health

    /// Calls `beat` every `interval` seconds while the daemon is healthy, from the control
    /// queue. What a beat proves: the control queue runs (it accepts), every I/O thread turns
    /// (it took a probe from its mailbox) and every view's executor answered a probe within
    /// `watchdog-view-timeout`. A view busy with
    /// one long request is healthy until then (the probe waits behind it); one that has not
    /// answered for longer is taken as stuck, the beats stop, and systemd's watchdog restarts
    /// the daemon.
    public func heartbeat(every interval: Double, _ beat: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + interval, repeating: interval, leeway: .milliseconds(Int(interval * 50)))
        timer.setEventHandler { [unowned self] in
            let limit = settings.watchdogViewTimeout
            let (age, view) = service.probeViews()
            guard age < limit else {
                logger.log(.warning, "view '\(view ?? "")' has not answered for \(Int(age)) s (watchdog-view-timeout \(limit) s); withholding the watchdog ping")
                return
            }
            // Every I/O thread turns: it took its mailbox since the last probe or lately.
            let now = DispatchTime.now().uptimeNanoseconds
            let threadAges = threads.map { (Double($0.probe(now: now)) / 1e9, $0.index) }
            if let (threadAge, index) = threadAges.max(by: { $0.0 < $1.0 }), threadAge >= limit {
                logger.log(.warning, "I/O thread \(index) has not answered for \(Int(threadAge)) s (watchdog-view-timeout \(limit) s); withholding the watchdog ping")
                return
            }
            beat()
        }
        timer.resume()
        heartbeatTimer = timer
    }

    /// A one-line summary for STATUS=.
    public func statusSummary() -> String {
        let (connections, generation) = state.withLock { ($0.admitted, $0.generation) }
        let views = service.viewNames.count
        return "\(views) view\(views == 1 ? "" : "s"), \(connections) connection\(connections == 1 ? "" : "s"), \(service.requestsServed) requests, configuration \(generation)"
    }

    // MARK: Status

    public func transportStatus() -> TransportStatus {
        let state = state.withLock { ($0.admitted, $0.accepted, $0.refused, $0.dropped, $0.generation, $0.fdExhausted) }
        return TransportStatus(
            uptime: Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9, generation: state.4,
            openConnections: state.0, acceptedConnections: state.1, refusedConnections: state.2, droppedConnections: state.3,
            fdExhausted: state.5, maximumConnections: min(settings.maximumConnections, fdCeiling), residentBytes: Self.residentBytes())
    }

    /// Resident set size from /proc/self/statm (resident pages × page size); 0 when unreadable.
    public static func residentBytes() -> Int {
        guard let file = fopen("/proc/self/statm", "r") else { return 0 }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 128)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { return 0 }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let fields = text.split(separator: " ").compactMap { Int($0) }
        guard fields.count >= 2 else { return 0 }
        return fields[1] * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}

/// What the server tells the service manager around reloads (systemd's RELOADING=1, then
/// READY=1 with a status line). No-ops by default.
public struct ServerNotifications: Sendable {
    public var reloading: @Sendable () -> Void
    public var ready: @Sendable (_ status: String) -> Void

    public init(reloading: @escaping @Sendable () -> Void = {}, ready: @escaping @Sendable (_ status: String) -> Void = { _ in }) {
        self.reloading = reloading
        self.ready = ready
    }
}

extension LayoutServer: DaemonControl {
    public func reloadConfiguration() -> Result<ReloadResult, WireError> { reload() }
    public var maximumLineLength: Int { settings.maximumLineLength }
}
