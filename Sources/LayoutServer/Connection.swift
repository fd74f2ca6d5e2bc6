import Dispatch
import Glibc
import LayoutIPC
import LayoutProtocol
import LayoutService
import Synchronization

/// One client connection. Everything here is confined to its I/O thread (`thread`).
///
/// Requests run one at a time in the order they arrived (pipelined lines wait in `queued`), so
/// replies keep request order and a request's own events follow its reply. A cheap request
/// runs inline on the I/O thread when its view is free; a heavy one (by method, or a line over
/// `inlineLineLimit`) runs on a pool thread, and its outcome comes back through the inbox.
/// Output goes through a buffer written as the socket accepts it (EPOLLOUT is watched only
/// while output waits); a client that stops reading pauses its own input and has its
/// subscriptions coalesced into one `view.resync` each, and is dropped when it makes no write
/// progress for `writeStallTimeout`.
final class Connection: @unchecked Sendable {
    let id: ConnectionID
    let peer: PeerCredentials
    let thread: IOThread
    private let fd: Int32
    private unowned let server: LayoutServer
    private let service: LayoutService
    private var settings: ServerSettings

    /// Where the connection is in its life: the one place its state lives.
    private enum Phase {
        /// Serving. `running`: a request is in flight (at most one).
        case open(Input, running: Bool)
        /// Output done and our side shut down, nothing running; reading and discarding until the
        /// client closes (or `lingerTimeout` after `since`), since closing with unread input
        /// would reset the connection and lose the last lines.
        case lingering(since: DispatchTime)
        /// The fd is closed and output dropped; the service forgets the connection once the
        /// request still `running` (if any) has returned.
        case closed(running: Bool)
        /// The service and the server forgot it.
        case finished
    }

    private enum Input: Equatable {
        /// Reading (EPOLLIN watched).
        case reading
        /// Backpressure: many requests or bytes queued, or much unread output.
        case paused
        /// No more input: end of stream (`peerClosed`), a fatal line, an overflow or shutdown.
        /// Closes once what was read is answered and written.
        case ended(peerClosed: Bool)
    }

    private var phase: Phase = .open(.reading, running: false)
    /// The epoll events now registered for `fd` (a cache of the kernel's, 0 when not in the
    /// set): EPOLLIN while reading or lingering, EPOLLOUT while output waits.
    private var interest: UInt32 = 0

    private var running: Bool {
        switch phase {
        case .open(_, let running), .closed(let running): running
        case .lingering, .finished: false
        }
    }

    private var closed: Bool {
        switch phase {
        case .closed, .finished: true
        case .open, .lingering: false
        }
    }

    private var lingering: Bool {
        if case .lingering = phase { return true }
        return false
    }

    private var input: Input? {
        if case .open(let input, _) = phase { return input }
        return nil
    }

    private var inputClosed: Bool {
        switch phase {
        case .open(let input, _): if case .ended = input { true } else { false }
        default: true
        }
    }

    private func setRunning(_ value: Bool) {
        switch phase {
        case .open(let input, _): phase = .open(input, running: value)
        case .closed: phase = .closed(running: value)
        case .lingering, .finished: precondition(!value, "a request started on a finished connection")
        }
    }

    /// Items posted from other threads (and from this one, for later), drained in order on
    /// `thread`; `scheduled` while the connection is on the thread's ready list.
    private let inbox = Mutex<(items: [(@Sendable () -> Void)?], head: Int, scheduled: Bool)>(([], 0, false))
    /// Where this connection's heavy requests run (made on first use).
    private var offloadQueue: DispatchQueue?
    /// A `pump` is posted to the thread's task list (the turn budget ran out).
    private var pumpScheduled = false

    /// Request lines longer than this are parsed and run off the I/O thread, so one client's
    /// huge line never stalls the other connections of its thread.
    static let inlineLineLimit = 65536

    private var framer: LineFramer
    /// Complete lines waiting for the request before them, or a last error line, from
    /// `queuedHead` on. Slots before it are emptied as they are taken: a taken line must not
    /// stay in memory until the array is next compacted (the soak measured 80 MiB held that
    /// way by 16 connections pipelining 20 KB lines).
    private var queued: [Pending?] = []
    private var queuedHead = 0
    /// Bytes of the request lines waiting in `queued`: what bounds a pipelining client's
    /// memory, since a count alone allows that many maximum-length lines.
    private var queuedBytes = 0

    private var output: [UInt8] = []
    private var outputStart = 0
    private var sequencer = EventSequencer()
    /// Subscriptions whose events were coalesced away, with how many.
    private var lagging: [Int: Int] = [:]
    private var resyncRequested: Set<Int> = []

    /// When the partial line now being read got its first byte (nil between lines): one line
    /// must be complete within `partialLineDeadline` however it trickles in.
    private var partialLineStarted: DispatchTime?
    /// Queued requests wait while unsent output is over `outputCap`; set when one did.
    private var waitingForOutput = false
    /// Output passed `outputLimit`: the connection got `OutputOverflow` and takes nothing more.
    private var overflowed = false

    private var lastReadProgress: DispatchTime = .now()
    private var lastWriteProgress: DispatchTime = .now()

    /// Set by `beginHandover`: once quiet, the connection goes to the next daemon instead of
    /// closing (`LayoutServer+Handover.swift`).
    private var handingOver = false

    /// Complete request lines read, and those carried out (answered, or notifications done).
    private(set) var requestsRead = 0
    private(set) var requestsAnswered = 0

    private enum Pending {
        case request([UInt8])
        /// A connection-level error line, after which the connection closes.
        case fatal([UInt8])
    }

    init(
        id: ConnectionID, fd: Int32, peer: PeerCredentials, thread: IOThread, server: LayoutServer, service: LayoutService,
        settings: ServerSettings
    ) {
        fields = [("LAYOUTD_CONNECTION", String(id)), ("LAYOUTD_PEER_PID", String(peer.pid)), ("LAYOUTD_PEER_UID", String(peer.uid))]
        self.id = id
        self.fd = fd
        self.peer = peer
        self.thread = thread
        self.server = server
        self.service = service
        self.settings = settings
        framer = LineFramer(maximumLineLength: settings.maximumLineLength)
    }

    private var unsent: Int { output.count - outputStart }

    // MARK: Inbox (any thread)

    /// Runs `work` on the connection's thread, after everything posted to it before.
    func post(_ work: @escaping @Sendable () -> Void) {
        let schedule = inbox.withLock { inbox in
            inbox.items.append(work)
            guard !inbox.scheduled else { return false }
            inbox.scheduled = true
            return true
        }
        if schedule { thread.schedule(self) }
    }

    /// On the thread: runs the inbox's items in order, one at a time (an item may drain the
    /// inbox again, as an inline reply does; it then carries on from the next item).
    func drainInbox() {
        corking(drainItems)
    }

    private func drainItems() {
        while let item = inbox.withLock({ inbox -> (@Sendable () -> Void)? in
            guard inbox.head < inbox.items.count else {
                inbox.items.removeAll(keepingCapacity: inbox.items.capacity <= 256)
                inbox.head = 0
                inbox.scheduled = false
                return nil
            }
            defer {
                inbox.items[inbox.head] = nil
                inbox.head += 1
            }
            return inbox.items[inbox.head]
        }) {
            item()
        }
    }

    // MARK: Lifecycle

    /// Joins the thread's epoll set (from any thread).
    func start() {
        post { [self] in updateInterest() }
    }

    /// The daemon is stopping: take in what the client already sent, say so, read nothing
    /// more, answer what was read, then close.
    func beginShutdown(reason: String, deadline: Double) {
        guard !closed else { return }
        if input == .reading { readAvailable() }
        enqueue(event: Event(
            connection: id, name: "daemon.shutdown", subscription: nil,
            params: JSONWriter.encode(.object(["reason": .string(reason), "deadline": .number(deadline)]))))
        stopReading()
        closeIfDrained()
    }

    /// The daemon is restarting through the service manager's fd store: read nothing more
    /// (what the client sends stays in the socket for the next daemon), finish the requests
    /// already read and write their replies, then go to the next daemon as it is
    /// (`handOverIfQuiet`). No `daemon.shutdown`: for the client the connection goes on.
    func beginHandover() {
        guard !closed else { return }
        handingOver = true
        stopReading()
        pump()
        closeIfDrained()
    }

    /// Once nothing runs and nothing is queued: the connection's state (unwritten output
    /// included) is recorded for the next daemon and the connection leaves this one without its
    /// fd being closed. A request
    /// still running at the deadline cannot be carried over: that connection is closed (the
    /// client sees the end and reconnects).
    func handOverIfQuiet(force: Bool) {
        guard handingOver, !closed else { return }
        guard case .open(let input, running: false) = phase, queuedHead >= queued.count else {
            if force { close(reason: "a request was still running when the daemon restarted") }
            return
        }
        if case .ended(peerClosed: true) = input { return close(reason: "done") }
        // Output the client has not read yet goes along (the next daemon writes it first):
        // waiting for a client that does not read would hold every other one up.
        let record = HandedConnection(
            name: "conn.\(id)", fd: fd, uid: peer.uid, nextSeq: sequencer.next, partialLine: framer.partialLine,
            output: Array(output[outputStart...]), subscriptions: service.subscriptions(of: id).map { HandedConnection.Subscription(id: $0.id, view: $0.view) })
        server.handedOver(record)
        // Leaves without closing the fd: it belongs to the service manager's store now.
        phase = .closed(running: false)
        if interest != 0 { thread.watch(fd, self, from: interest, to: 0) }
        interest = 0
        thread.forget(fd)
        output = []
        outputStart = 0
        server.logger.log(.debug, "connection handed over", fields)
        finish()
    }

    /// A connection taken over from the previous daemon, step one (on the thread, before its
    /// subscriptions are restored in the service): the event numbers it had reached, the
    /// output it had not written, the partial line it had read, and every subscription it held
    /// marked lagging. From here an event for one of them is coalesced into its `view.resync`:
    /// another taken-over connection may already be mutating the view, and an event that found
    /// a fresh sequencer would go out as seq 1, before the handed-over output. Nothing is
    /// written until `resume` (the turn stays corked): a flush now would also ask for the
    /// resyncs, which the service could not yet answer.
    func takeOver(_ record: HandedConnection) {
        corked += 1
        sequencer = EventSequencer(next: record.nextSeq)
        if !record.partialLine.isEmpty {
            _ = framer.append(record.partialLine)
            partialLineStarted = .now()
        }
        output = record.output
        outputStart = 0
        for subscription in record.subscriptions { lagging[subscription.id] = 0 }
    }

    /// Step two, once the service holds the subscriptions that could be restored (`kept`):
    /// reading starts, the handed-over output is written first, then one `view.resync` for
    /// each kept subscription (one whose view is gone is forgotten).
    func resume(keeping kept: Set<Int>) {
        corked -= 1
        lagging = lagging.filter { kept.contains($0.key) }
        updateInterest()
        if unsent > 0 { flush() } else { requestResyncs() }
    }

    /// New limits from a reload: the line cap applies to the line being read and later ones.
    func apply(_ settings: ServerSettings) {
        self.settings = settings
        framer.maximumLineLength = settings.maximumLineLength
    }

    /// Closes now, dropping unsent output.
    func close(reason: String) {
        guard !closed else { return }
        server.logger.log(reason == "done" ? .debug : .info, "connection closed: \(reason)", fields, throttledAs: reason == "done" ? nil : .connectionClosed)
        let wasRunning = running
        phase = .closed(running: wasRunning)
        if interest != 0 { thread.watch(fd, self, from: interest, to: 0) }
        interest = 0
        thread.forget(fd)
        output = []
        outputStart = 0
        // Counted gone before the peer can see the close: a client that waits for our end of
        // the stream and then asks daemon.status finds this connection no longer open.
        finish()
        Glibc.close(fd)
    }

    /// At the close (and, for a request still running then, once it ends): the service forgets
    /// this connection once no request of it runs.
    private func finish() {
        guard case .closed(running: false) = phase else { return }
        phase = .finished
        service.disconnect(id)
        server.remove(self, read: requestsRead, answered: requestsAnswered)
    }

    /// This connection's log fields, made once: every request's log call starts from them.
    let fields: [(String, String)]

    // MARK: Events from epoll

    func handle(events: UInt32) {
        corking {
            if events & (IOThread.readable | IOThread.failed) != 0 {
                if lingering {
                    discardInput()
                } else if input == .reading {
                    readAvailable()
                }
            }
        }
        if !closed, events & (IOThread.writable | IOThread.failed) != 0, unsent > 0 { flush() }
        // Hung up with nothing to read or write: leave the set until there is (level-triggered
        // EPOLLHUP would otherwise report at once, again and again).
        updateInterest()
    }

    /// Brings the epoll registration in line with the phase and the output.
    private func updateInterest() {
        guard !closed else { return }
        var wanted: UInt32 = 0
        if input == .reading || lingering { wanted |= IOThread.readable }
        // Inside a corked turn the output goes out at its end: EPOLLOUT only if that send
        // leaves some (or output was already waiting).
        if unsent > 0, corked == 0 || interest & IOThread.writable != 0 { wanted |= IOThread.writable }
        guard wanted != interest else { return }
        if !thread.watch(fd, self, from: interest, to: wanted) {
            interest = 0
            return close(reason: SystemError("epoll_ctl").description)
        }
        interest = wanted
    }

    // MARK: Input

    private func readAvailable() {
        if lingering { return discardInput() }
        guard input == .reading else { return }
        let buffer = thread.readBuffer
        let wake = DispatchTime.now().uptimeNanoseconds
        // A bounded number of reads (and time) per wake-up keeps one busy client from starving
        // the others on this thread.
        for _ in 0..<16 {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count > 0 {
                lastReadProgress = .now()
                var completed = false
                framer.append(UnsafeRawBufferPointer(rebasing: buffer[0..<count])) { line in
                    queued.append(.request(line))
                    queuedBytes += line.count
                    requestsRead += 1
                    completed = true
                }
                if !framer.hasPartialLine {
                    partialLineStarted = nil
                } else if completed || partialLineStarted == nil {
                    partialLineStarted = lastReadProgress
                }
                if framer.failed {
                    let limit = framer.maximumLineLength
                    let failure = WireError(
                        name: "LineTooLong", message: "a line is longer than \(limit) bytes", data: ["limit": .number(Double(limit))])
                    queued.append(.fatal(Envelope.error(id: nil, failure)))
                    server.logger.log(.warning, "line over \(limit) bytes; closing", fields, throttledAs: .lineTooLong)
                    stopReading()
                    break
                }
                if count < buffer.count || queuedBytes >= settings.maximumQueuedBytes { break }
                if lastReadProgress.uptimeNanoseconds &- wake > Self.turnBudget { break }
            } else if count == 0 {
                // End of input: answer what was sent, then close (a client may half-close).
                stopReading(peerClosed: true)
                break
            } else {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK { break }
                close(reason: SystemError("read").description)
                return
            }
        }
        pump()
        applyBackpressure()
    }

    private func stopReading(peerClosed: Bool = false) {
        guard case .open(let input, let running) = phase else { return }
        if case .ended(let already) = input {
            phase = .open(.ended(peerClosed: already || peerClosed), running: running)
        } else {
            phase = .open(.ended(peerClosed: peerClosed), running: running)
        }
        updateInterest()
    }

    /// Pauses input while the client has many requests queued or much unread output.
    private func applyBackpressure() {
        guard case .open(let input, let running) = phase else { return }
        if case .ended = input { return }
        let backlog = queued.count - queuedHead
        let shouldPause = backlog >= settings.maximumQueuedRequests || queuedBytes >= settings.maximumQueuedBytes || unsent > settings.outputCap
        if shouldPause, input == .reading {
            phase = .open(.paused, running: running)
        } else if !shouldPause, input == .paused {
            phase = .open(.reading, running: running)
            // The stall deadlines measure the client, not the time we were not reading.
            lastReadProgress = .now()
            if partialLineStarted != nil { partialLineStarted = lastReadProgress }
        }
        updateInterest()
    }

    // MARK: Requests

    /// How long one connection may keep its thread per turn (reading, or running inline
    /// requests) before the thread serves its other connections; level-triggered epoll and the
    /// thread's task list bring it back.
    static let turnBudget: UInt64 = 1_000_000

    private func pump() {
        let turn = DispatchTime.now().uptimeNanoseconds
        while !running, !closed, queuedHead < queued.count {
            if DispatchTime.now().uptimeNanoseconds &- turn > Self.turnBudget {
                // Pipelined requests left: the rest after the thread's other connections.
                if !pumpScheduled {
                    pumpScheduled = true
                    thread.post { [self] in
                        pumpScheduled = false
                        corking {
                            pump()
                            applyBackpressure()
                        }
                    }
                }
                return
            }
            guard let next = queued[queuedHead] else { preconditionFailure("a taken slot behind queuedHead") }
            // A client that does not read its replies gets no more work done for it: the
            // output it has not taken is what bounds its memory (`flush` resumes this).
            if case .request = next, unsent > settings.outputCap {
                waitingForOutput = true
                break
            }
            queued[queuedHead] = nil
            queuedHead += 1
            if queuedHead == queued.count {
                queued.removeAll(keepingCapacity: true)
                queuedHead = 0
            } else if queuedHead > 256, queuedHead * 2 > queued.count {
                queued.removeFirst(queuedHead)
                queuedHead = 0
            }
            switch next {
            case .fatal(let line):
                append(line)
                queued = []
                queuedHead = 0
                queuedBytes = 0
            case .request(let line):
                queuedBytes -= line.count
                setRunning(true)
                submit(line)
            }
        }
        closeIfDrained()
    }

    /// Runs one request: inline on this thread when it is cheap (the service then completes
    /// before `submit` returns, unless the view is busy), else on this connection's pool queue.
    private func submit(_ line: [UInt8]) {
        let completion = completion(started: .now())
        guard line.count <= Self.inlineLineLimit else {
            // Handed over, not captured: the service lets go of a large line once it is decoded,
            // not when the request is done (a 1M-item view.create's 54 MB line otherwise stays
            // through the whole build of its view).
            let handoff = LineHandoff(line)
            return offload { [service, id] in service.submit(line: handoff.take(), from: id, completion: completion) }
        }
        let decoded = DecodedLine(line)
        if decoded.submitsQuickly {
            service.submit(decoded, from: id, completion: completion)
        } else {
            offload { [service, id] in service.submit(decoded, from: id, completion: completion) }
        }
    }

    private func offload(_ work: @escaping @Sendable () -> Void) {
        if offloadQueue == nil {
            // No target: a serial queue on the overcommitting pool, so a heavy request holds up
            // its own connection only.
            offloadQueue = DispatchQueue(label: "layoutd.connection", qos: .userInitiated)
        }
        offloadQueue!.async(execute: work)
    }

    /// What a request's outcome does: other connections' events go out at once (this runs
    /// inside the view's executor, so each subscriber sees a view's events in epoch order);
    /// the reply and this connection's own events are recorded here when the request ran inline
    /// on this thread (after the events already posted to this connection, which were made
    /// before it), else posted to the inbox, behind those events.
    private func completion(started: DispatchTime) -> @Sendable (Outcome) -> Void {
        let server = self.server
        let id = self.id
        let logger = server.logger
        let fields = self.fields
        return { [self] outcome in
            for event in outcome.events where event.connection != id { server.deliver(event) }
            Self.log(outcome, since: started, logger: logger, fields: fields)
            let own = outcome.events.filter { $0.connection == id }
            if thread.isCurrent {
                drainInbox()
                record(reply: outcome.reply, events: own)
            } else {
                post { [self] in complete(reply: outcome.reply, events: own) }
            }
        }
    }

    /// Refused requests at info, slow ones at notice, every request at debug; with the method,
    /// view, error and latency as fields (`journalctl LAYOUTD_METHOD=view.update`).
    private static func log(_ outcome: Outcome, since started: DispatchTime, logger: Logger, fields: [(String, String)]) {
        let microseconds = (DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1000
        let priority: LogPriority = outcome.error != nil ? .info : microseconds >= slowRequestMicroseconds ? .notice : .debug
        guard logger.wants(priority) else { return }
        var entry = fields
        if let method = outcome.method { entry.append(("LAYOUTD_METHOD", method)) }
        if let view = outcome.view { entry.append(("LAYOUTD_VIEW", view)) }
        if let error = outcome.error { entry.append(("LAYOUTD_ERROR", error)) }
        entry.append(("LAYOUTD_LATENCY_US", String(microseconds)))
        let what = outcome.method ?? "request"
        let message = outcome.error.map { "\(what) refused: \($0)" } ?? (priority == .notice ? "\(what) slow" : what)
        logger.log(priority, message, entry, throttledAs: outcome.error != nil ? .refusedRequest : priority == .notice ? .slowRequest : nil)
    }

    /// Requests slower than this are logged at notice.
    static let slowRequestMicroseconds: UInt64 = 100_000

    /// A request that completed on another thread, later.
    private func complete(reply: [UInt8]?, events: [Event]) {
        record(reply: reply, events: events)
        pump()
        applyBackpressure()
    }

    private func record(reply: [UInt8]?, events: [Event]) {
        setRunning(false)
        if closed {
            finish()
            return
        }
        requestsAnswered += 1
        if let reply { append(reply) }
        for event in events { enqueue(event: event) }
    }

    private func closeIfDrained() {
        if handingOver { return handOverIfQuiet(force: false) }
        guard case .open(.ended(let peerClosed), running: false) = phase, queuedHead >= queued.count, unsent == 0 else { return }
        if peerClosed { return close(reason: "done") }
        shutdown(fd, Int32(SHUT_WR))
        phase = .lingering(since: .now())
        updateInterest()
    }

    private func discardInput() {
        if UnixSocket.discardAvailableInput(fd) { close(reason: "done") }
    }

    // MARK: Events

    /// An event from another thread (a view's executor): into the inbox, in the order posted.
    func deliver(_ event: Event) {
        post { [self] in enqueue(event: event) }
    }

    /// An event from any view (on this connection's thread).
    func enqueue(event: Event) {
        guard !closed else { return }
        if let subscription = event.subscription {
            if event.name == "view.deleted" {
                lagging[subscription] = nil
                resyncRequested.remove(subscription)
            } else if lagging[subscription] != nil {
                lagging[subscription]! += 1
                return
            } else if event.name == "view.invalidated", unsent > settings.outputCap {
                // Behind: only the newest state matters, so stop queueing this view's events
                // and send its snapshot once the client catches up.
                lagging[subscription] = 1
                server.logger.log(.notice, "subscriber behind; coalescing subscription \(subscription)", fields, throttledAs: .subscriberBehind)
                return
            }
        }
        append(sequencer.line(for: event))
    }

    private func requestResyncs() {
        guard unsent <= settings.outputCap / 2 else { return }
        for (subscription, skipped) in lagging where !resyncRequested.contains(subscription) {
            resyncRequested.insert(subscription)
            service.resync(subscription: subscription, connection: id, skipped: skipped) { [self] event in
                post { [self] in
                    resyncRequested.remove(subscription)
                    lagging[subscription] = nil
                    // Events that reached the inbox before the snapshot are part of it.
                    if let event, !closed { append(sequencer.line(for: event)) }
                }
            }
        }
    }

    // MARK: Output

    private func append(_ line: [UInt8]) {
        guard !overflowed else { return }
        if unsent == 0 { lastWriteProgress = .now() }
        output.append(contentsOf: line)
        if unsent > settings.outputLimit { return overflow() }
        if corked == 0 { flush() }
    }

    /// Inside a turn (an epoll event, an inbox drain, a continued pump) replies and events
    /// are only appended; they go out in one send at its end.
    private var corked = 0

    private func corking(_ body: () -> Void) {
        corked += 1
        body()
        corked -= 1
        if corked == 0, !closed, unsent > 0 { flush() }
    }

    /// Unsent output passed `outputLimit`: everything not yet begun is dropped, the line being
    /// written is finished (so the client still reads whole lines), `OutputOverflow` follows,
    /// and the connection closes once that is written (or the write-stall deadline drops it).
    private func overflow() {
        var cut = outputStart
        if cut > 0, output[cut - 1] != UInt8(ascii: "\n") {
            cut = output[cut...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? output.count
        }
        let dropped = output.count - cut
        output.removeSubrange(cut...)
        let limit = settings.outputLimit
        output.append(contentsOf: Envelope.error(id: nil, WireError(
            name: "OutputOverflow", message: "more than \(limit) bytes of output were left unread",
            data: ["limit": .number(Double(limit))])))
        overflowed = true
        lagging = [:]
        queued = []
        queuedHead = 0
        queuedBytes = 0
        stopReading()
        server.countDropped()
        server.logger.log(.warning, "output over \(limit) bytes unread; dropped \(dropped) bytes and closing", fields, throttledAs: .writeStalled)
        flush()
    }

    private func flush() {
        guard !closed else { return }
        while unsent > 0 {
            let count = output.withUnsafeBytes { bytes in
                send(fd, bytes.baseAddress! + outputStart, unsent, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                outputStart += count
                lastWriteProgress = .now()
            } else if count < 0, errno == EINTR {
                continue
            } else if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else {
                close(reason: SystemError("send").description)
                return
            }
        }
        if unsent == 0 {
            output.removeAll(keepingCapacity: output.capacity <= 1 << 20)
            outputStart = 0
        } else if outputStart > 1 << 16, outputStart * 2 > output.count {
            output.removeFirst(outputStart)
            outputStart = 0
        }
        // EPOLLOUT is watched only while output waits.
        updateInterest()
        if !lagging.isEmpty { requestResyncs() }
        if waitingForOutput, unsent <= settings.outputCap {
            // Not from here: flush runs inside pump (a reply's append), which must not recurse.
            waitingForOutput = false
            post { [self] in
                pump()
                applyBackpressure()
            }
        }
        applyBackpressure()
        closeIfDrained()
    }

    // MARK: Deadlines

    /// How long a finished connection waits for the client to close its side.
    static let lingerTimeout = 2.0

    /// Drops a connection stalled mid-line or not reading its output (called periodically).
    func checkDeadlines() {
        guard !closed else { return }
        // Read here, not when the check was queued: the timestamps below may be newer.
        let now = DispatchTime.now()
        if case .lingering(let since) = phase {
            if Double(now.uptimeNanoseconds &- since.uptimeNanoseconds) / 1e9 > Self.lingerTimeout { close(reason: "done") }
            return
        }
        let sinceRead = Double(now.uptimeNanoseconds &- lastReadProgress.uptimeNanoseconds) / 1e9
        let sinceWrite = Double(now.uptimeNanoseconds &- lastWriteProgress.uptimeNanoseconds) / 1e9
        if unsent > 0, sinceWrite > settings.writeStallTimeout {
            server.logger.log(.warning, "client made no read progress for \(Int(settings.writeStallTimeout)) s; dropping it", fields, throttledAs: .writeStalled)
            server.countDropped()
            close(reason: "write stall")
        } else if input == .reading, framer.hasPartialLine, let started = partialLineStarted,
            Double(now.uptimeNanoseconds &- started.uptimeNanoseconds) / 1e9 > settings.partialLineDeadline
        {
            closeStalledLine(
                "a line was not complete \(settings.partialLineDeadline) s after it began; closing",
                WireError(
                    name: "IdleTimeout", message: "a line was not complete within \(settings.partialLineDeadline) s of its first byte",
                    data: ["timeout": .number(settings.partialLineDeadline), "limit": .string("partial-line-deadline")]))
        } else if input == .reading, framer.hasPartialLine, sinceRead > settings.partialLineTimeout {
            closeStalledLine(
                "partial line stalled for \(Int(settings.partialLineTimeout)) s; closing",
                WireError(
                    name: "IdleTimeout", message: "a partial line made no progress for \(settings.partialLineTimeout) s",
                    data: ["timeout": .number(settings.partialLineTimeout)]))
        }
    }

    /// A partial line passed one of its deadlines: read nothing more, answer what was read,
    /// then `failure` (`IdleTimeout`), then close.
    private func closeStalledLine(_ message: String, _ failure: WireError) {
        server.logger.log(.warning, message, fields, throttledAs: .partialLineStalled)
        server.countDropped()
        stopReading()
        queued.append(.fatal(Envelope.error(id: nil, failure)))
        pump()
    }
}

/// A request line on its way to a pool thread, taken out once: the block that carries it is
/// freed only after it has run, so a line it captured would live as long as its request.
private final class LineHandoff: Sendable {
    private let line: Mutex<[UInt8]>

    init(_ line: [UInt8]) { self.line = Mutex(line) }

    /// The line; empty after the first call.
    func take() -> [UInt8] { line.withLock { line in defer { line = [] }; return line } }
}
