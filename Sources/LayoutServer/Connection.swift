import Dispatch
import Glibc
import LayoutIPC
import LayoutProtocol
import LayoutService
import Synchronization

/// One client connection. Everything here is confined to `queue`.
///
/// Requests run one at a time in the order they arrived (pipelined lines wait in `queued`), so
/// replies keep request order and a request's own events follow its reply. Output goes through
/// a buffer written as the socket accepts it; a client that stops reading pauses its own input
/// and has its subscriptions coalesced into one `view.resync` each, and is dropped when it
/// makes no write progress for `writeStallTimeout`.
final class Connection: @unchecked Sendable {
    let id: ConnectionID
    let peer: PeerCredentials
    let queue: DispatchQueue
    private let fd: Int32
    private unowned let server: LayoutServer
    private let service: LayoutService
    private var settings: ServerSettings

    private var readSource: DispatchSourceRead?
    private var writeSource: DispatchSourceWrite?
    private var readingPaused = false
    private var writeArmed = false

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
    private var inFlight = false
    /// No more input: end of stream, a fatal error or shutdown. Closes once drained.
    private var inputClosed = false
    /// The client closed its side (read returned 0).
    private var peerClosed = false
    /// Output done and our side shut down; reading and discarding until the client closes,
    /// since closing with unread input would reset the connection and lose the last lines.
    private var lingering = false
    private var lingerStarted: DispatchTime = .now()
    private var closed = false
    private var fdReleased = false
    private var finished = false

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

    /// Complete request lines read, and those carried out (answered, or notifications done).
    private(set) var requestsRead = 0
    private(set) var requestsAnswered = 0

    private enum Pending {
        case request([UInt8])
        /// A connection-level error line, after which the connection closes.
        case fatal([UInt8])
    }

    init(
        id: ConnectionID, fd: Int32, peer: PeerCredentials, server: LayoutServer, service: LayoutService, settings: ServerSettings
    ) {
        fields = [("LAYOUTD_CONNECTION", String(id)), ("LAYOUTD_PEER_PID", String(peer.pid)), ("LAYOUTD_PEER_UID", String(peer.uid))]
        self.id = id
        self.fd = fd
        self.peer = peer
        self.server = server
        self.service = service
        self.settings = settings
        framer = LineFramer(maximumLineLength: settings.maximumLineLength)
        // No target: a serial queue on the overcommitting pool (see `LayoutServer`), so a
        // connection busy with a long request never waits for a thread another one holds.
        queue = DispatchQueue(label: "layoutd.connection", qos: .userInitiated)
    }

    private var unsent: Int { output.count - outputStart }

    // MARK: Lifecycle

    func start() {
        queue.async { [self] in
            let reader = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
            reader.setEventHandler { [unowned self] in readAvailable() }
            let writer = DispatchSource.makeWriteSource(fileDescriptor: fd, queue: queue)
            writer.setEventHandler { [unowned self] in flush() }
            // The fd closes only after both sources let go of it.
            let released = DispatchGroup()
            released.enter()
            released.enter()
            reader.setCancelHandler { released.leave() }
            writer.setCancelHandler { released.leave() }
            released.notify(queue: queue) { [self] in
                Glibc.close(fd)
                fdReleased = true
                finish()
            }
            readSource = reader
            writeSource = writer
            reader.resume()
        }
    }

    /// The daemon is stopping: take in what the client already sent, say so, read nothing
    /// more, answer what was read, then close.
    func beginShutdown(reason: String, deadline: Double) {
        guard !closed else { return }
        if !inputClosed, !readingPaused { readAvailable() }
        enqueue(event: Event(
            connection: id, name: "daemon.shutdown", subscription: nil,
            params: JSONWriter.encode(.object(["reason": .string(reason), "deadline": .number(deadline)]))))
        stopReading()
        closeIfDrained()
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
        closed = true
        if readingPaused { readSource?.resume() }
        readingPaused = false
        if !writeArmed { writeSource?.resume() }
        writeArmed = true
        readSource?.cancel()
        writeSource?.cancel()
    }

    /// After the fd is closed: the service forgets this connection once no request of it runs.
    private func finish() {
        guard fdReleased, !inFlight, !finished else { return }
        finished = true
        service.disconnect(id)
        server.remove(self, read: requestsRead, answered: requestsAnswered)
    }

    /// This connection's log fields, made once: every request's log call starts from them.
    let fields: [(String, String)]

    // MARK: Input

    private func readAvailable() {
        if lingering { return discardInput() }
        guard !closed, !inputClosed else { return }
        var buffer = [UInt8](repeating: 0, count: 65536)
        // A bounded number of reads per wake-up keeps one busy client from starving others.
        for _ in 0..<16 {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                lastReadProgress = .now()
                var completed = false
                for line in framer.append(buffer[0..<count]) {
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
            } else if count == 0 {
                // End of input: answer what was sent, then close (a client may half-close).
                peerClosed = true
                stopReading()
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

    private func stopReading() {
        inputClosed = true
        if !readingPaused {
            readingPaused = true
            readSource?.suspend()
        }
    }

    /// Pauses input while the client has many requests queued or much unread output.
    private func applyBackpressure() {
        guard !inputClosed, !closed else { return }
        let backlog = queued.count - queuedHead
        let shouldPause = backlog >= settings.maximumQueuedRequests || queuedBytes >= settings.maximumQueuedBytes || unsent > settings.outputCap
        if shouldPause, !readingPaused {
            readSource?.suspend()
            readingPaused = true
        } else if !shouldPause, readingPaused {
            readingPaused = false
            // The stall deadlines measure the client, not the time we were not reading.
            lastReadProgress = .now()
            if partialLineStarted != nil { partialLineStarted = lastReadProgress }
            readSource?.resume()
        }
    }

    // MARK: Requests

    private func pump() {
        while !inFlight, !closed, queuedHead < queued.count {
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
                inFlight = true
                let server = self.server
                let id = self.id
                let handoff = Handoff()
                let started = DispatchTime.now()
                let logger = server.logger
                let fields = self.fields
                service.submit(line: line, from: id) { [self] outcome in
                    // Inside the view's queue: other connections' events go out now, so each
                    // subscriber sees a view's events in epoch order.
                    for event in outcome.events where event.connection != id { server.deliver(event) }
                    Self.log(outcome, since: started, logger: logger, fields: fields)
                    let own = outcome.events.filter { $0.connection == id }
                    // This connection's own events queue behind events other views already
                    // posted to it, so they (and their reply) take the queue; so does a reply
                    // while any posted event is still on its way. Otherwise a reply that came
                    // back during `submit` is written straight away.
                    let inTransit = eventsInTransit.load(ordering: .sequentiallyConsistent)
                    if !own.isEmpty || inTransit > 0 || !handoff.keep(reply: outcome.reply) {
                        queue.async { self.complete(reply: outcome.reply, events: own) }
                    }
                }
                // Completed during submit (the usual case): carry on here, in this loop.
                if let reply = handoff.take() { record(reply: reply, events: []) }
            }
        }
        closeIfDrained()
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
        inFlight = false
        if closed {
            finish()
            return
        }
        requestsAnswered += 1
        if let reply { append(reply) }
        for event in events { enqueue(event: event) }
    }

    private func closeIfDrained() {
        guard inputClosed, !inFlight, queuedHead >= queued.count, unsent == 0, !closed, !lingering else { return }
        if peerClosed { return close(reason: "done") }
        shutdown(fd, Int32(SHUT_WR))
        lingering = true
        lingerStarted = .now()
        if readingPaused {
            readingPaused = false
            readSource?.resume()
        }
    }

    private func discardInput() {
        if UnixSocket.discardAvailableInput(fd) { close(reason: "done") }
    }

    // MARK: Events

    /// Events posted from views' queues and not yet taken in by this connection's queue. A
    /// reply may skip the queue only while this is zero: an event posted before the reply
    /// was made must be written before it (`view.unsubscribe` promises no events after its
    /// reply, `daemon.sync` every event posted before it).
    private let eventsInTransit = Atomic<Int>(0)

    /// An event from another thread (a view's queue).
    func post(_ event: Event) {
        eventsInTransit.add(1, ordering: .sequentiallyConsistent)
        queue.async { [self] in
            enqueue(event: event)
            eventsInTransit.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// An event from any view (on this connection's queue).
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
                queue.async { [self] in
                    resyncRequested.remove(subscription)
                    lagging[subscription] = nil
                    // Events that reached this queue before the snapshot are part of it.
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
        flush()
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
        // The write source fires while the socket is writable, so it runs only while output
        // waits.
        if unsent > 0, !writeArmed {
            writeArmed = true
            writeSource?.resume()
        } else if unsent == 0, writeArmed {
            writeArmed = false
            writeSource?.suspend()
        }
        if !lagging.isEmpty { requestResyncs() }
        if waitingForOutput, unsent <= settings.outputCap {
            // Not from here: flush runs inside pump (a reply's append), which must not recurse.
            waitingForOutput = false
            queue.async { [self] in
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
        if lingering {
            if Double(now.uptimeNanoseconds &- lingerStarted.uptimeNanoseconds) / 1e9 > Self.lingerTimeout { close(reason: "done") }
            return
        }
        let sinceRead = Double(now.uptimeNanoseconds &- lastReadProgress.uptimeNanoseconds) / 1e9
        let sinceWrite = Double(now.uptimeNanoseconds &- lastWriteProgress.uptimeNanoseconds) / 1e9
        if unsent > 0, sinceWrite > settings.writeStallTimeout {
            server.logger.log(.warning, "client made no read progress for \(Int(settings.writeStallTimeout)) s; dropping it", fields, throttledAs: .writeStalled)
            server.countDropped()
            close(reason: "write stall")
        } else if !inputClosed, !readingPaused, framer.hasPartialLine, let started = partialLineStarted,
            Double(now.uptimeNanoseconds &- started.uptimeNanoseconds) / 1e9 > settings.partialLineDeadline
        {
            closeStalledLine(
                "a line was not complete \(settings.partialLineDeadline) s after it began; closing",
                WireError(
                    name: "IdleTimeout", message: "a line was not complete within \(settings.partialLineDeadline) s of its first byte",
                    data: ["timeout": .number(settings.partialLineDeadline), "limit": .string("partial-line-deadline")]))
        } else if !inputClosed, !readingPaused, framer.hasPartialLine, sinceRead > settings.partialLineTimeout {
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

/// Passes a request's outcome back to the connection: kept for the caller when the service
/// completes during `submit`, else the completion posts it to the connection's queue.
private final class Handoff: @unchecked Sendable {
    private struct State {
        var submitting = true
        /// The reply, which is nil itself for a notification.
        var outcome: [UInt8]??
    }

    private let state = Mutex(State())

    /// From the completion: true when the caller is still inside `submit` and takes it.
    func keep(reply: [UInt8]?) -> Bool {
        state.withLock { state in
            guard state.submitting else { return false }
            state.outcome = .some(reply)
            return true
        }
    }

    /// From the caller once `submit` returned: the reply if it came in meanwhile.
    func take() -> [UInt8]?? {
        state.withLock { state in
            state.submitting = false
            return state.outcome
        }
    }
}
