import Dispatch
import Glibc
import LayoutIPC
import LayoutProtocol
import LayoutService
import Synchronization

/// A client connection as one daemon hands it to the next through the service manager's file
/// descriptor store: the socket, and what the daemon held for it.
public struct HandedConnection: Sendable, Equatable {
    public struct Subscription: Sendable, Equatable {
        public var id: Int
        public var view: String
    }

    /// The fd's name in the store: `conn.<n>`.
    public var name: String
    public var fd: Int32
    /// The peer's uid (checked again on the socket by the next daemon).
    public var uid: UInt32
    /// The `seq` of the next event, so the numbers go on without a gap.
    public var nextSeq: Int
    /// Bytes of a request line read but not complete.
    public var partialLine: [UInt8]
    /// Replies and events not yet written.
    public var output: [UInt8]
    public var subscriptions: [Subscription]
}

/// What a stopping daemon hands over (`LayoutServer.handOver`), and what the next one reads
/// back (`HandoverState.decode`): the state, a sealed memory file named `state` in the store,
/// as JSON lines: first `{"format":"layoutd.handover","version":1,"release",...,"connections":
/// [...],"viewLines":[...]}` (each connection's name, next seq, partial line and output as hex,
/// subscriptions; how many lines each view takes), then every view's export lines
/// (protocol/views.md, "view.export").
public struct HandoverState: Sendable {
    public var connections: [HandedConnection]
    /// Each view's export lines.
    public var views: [[[UInt8]]]

    static let format = "layoutd.handover"
    static let version = 1

    public func encoded() -> [UInt8] {
        let header: JSONValue = .object([
            "format": .string(Self.format), "version": .number(Double(Self.version)), "release": .string(Release.version),
            "connections": .array(connections.map { connection in
                .object([
                    "name": .string(connection.name), "uid": .number(Double(connection.uid)), "nextSeq": .number(Double(connection.nextSeq)),
                    "partialLine": .string(Hex.encode(connection.partialLine)), "output": .string(Hex.encode(connection.output)),
                    "subscriptions": .array(connection.subscriptions.map { .object(["id": .number(Double($0.id)), "view": .string($0.view)]) }),
                ])
            }),
            // How many lines each view takes: the next daemon splits them without parsing.
            "viewLines": .array(views.map { .number(Double($0.count)) }),
        ])
        var bytes = JSONWriter.encode(header)
        bytes.append(UInt8(ascii: "\n"))
        for view in views {
            for line in view {
                bytes += line
                bytes.append(UInt8(ascii: "\n"))
            }
        }
        return bytes
    }

    /// The state a previous daemon wrote; `fd` of each connection is -1 until matched with the
    /// store's by name.
    public static func decode(_ bytes: [UInt8]) throws(WireError) -> HandoverState {
        let lines = bytes.split(separator: UInt8(ascii: "\n")).map(Array.init)
        guard let first = lines.first, let header = try? JSONParser.parse(first), header["format"]?.stringValue == format else {
            throw ExportError.invalid("the handed-over state is not a layoutd.handover")
        }
        guard header["version"]?.integerValue == version else {
            throw ExportError.invalid("the handed-over state is version \(header["version"].map(JSONWriter.string) ?? "none"), this daemon reads \(version)")
        }
        var connections = [HandedConnection]()
        for entry in header["connections"]?.arrayValue ?? [] {
            guard let name = entry["name"]?.stringValue, let seq = entry["nextSeq"]?.integerValue,
                let partial = entry["partialLine"]?.stringValue.flatMap(Hex.decode), let output = entry["output"]?.stringValue.flatMap(Hex.decode)
            else { throw ExportError.invalid("a handed-over connection is malformed") }
            let subscriptions = (entry["subscriptions"]?.arrayValue ?? []).compactMap { value -> HandedConnection.Subscription? in
                guard let id = value["id"]?.integerValue, let view = value["view"]?.stringValue else { return nil }
                return HandedConnection.Subscription(id: id, view: view)
            }
            connections.append(HandedConnection(
                name: name, fd: -1, uid: UInt32(entry["uid"]?.integerValue ?? 0), nextSeq: seq, partialLine: partial, output: output,
                subscriptions: subscriptions))
        }
        // Views: as many lines each as the header says.
        var views = [[[UInt8]]]()
        var next = 1
        for count in header["viewLines"]?.arrayValue ?? [] {
            guard let count = count.integerValue, count > 0, next + count <= lines.count else {
                throw ExportError.invalid("the handed-over state's view line counts do not match its lines")
            }
            views.append(Array(lines[next..<next + count]))
            next += count
        }
        guard next == lines.count else { throw ExportError.invalid("the handed-over state has lines no view counts") }
        return HandoverState(connections: connections, views: views)
    }

    enum ExportError {
        static func invalid(_ reason: String) -> WireError {
            WireError(name: "InvalidExport", message: reason, data: ["path": .string("state"), "reason": .string(reason)])
        }
    }
}

/// Bytes as lowercase hex and back: the partial line and the output are any bytes, and the
/// state is JSON text.
enum Hex {
    static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = value(utf8[index]), let low = value(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

extension LayoutServer {
    /// Stops for a restart through the service manager's fd store: accepting stops (the
    /// listener stays bound: the next daemon takes it), every connection finishes the requests
    /// it read, writes their replies and leaves with its fd open (`Connection.beginHandover`);
    /// at `shutdown-deadline` the ones still busy are forced (their unsent output goes along; a
    /// request still running closes its connection). Then every view is exported, after the
    /// work queued on it. `completion` gets the state and the connections (on the control
    /// queue); the caller stores them and exits.
    public func handOver(completion: @escaping @Sendable (HandoverState) -> Void) {
        cancelAccepting()
        let once = Mutex(false)
        let finish: @Sendable () -> Void = { [self] in
            guard once.withLock({ done in defer { done = true }; return !done }) else { return }
            queue.async { [self] in
                let connections = takeHandedOver()
                var views = [[[UInt8]]]()
                for name in service.viewNames {
                    if let saved = service.savedLines(ofView: name) { views.append(saved.lines) }
                }
                completion(HandoverState(connections: connections, views: views))
            }
        }
        let (connections, deadline) = beginStopping(reason: "restart", onDrained: finish)
        logger.log(.notice, "restarting through the fd store: handing over \(connections.count) connections")
        if connections.isEmpty { finish() }
        for connection in connections {
            connection.post { connection.beginHandover() }
        }
        queue.asyncAfter(deadline: .now() + deadline) {
            for connection in connections {
                connection.post { connection.handOverIfQuiet(force: true) }
            }
        }
    }

    /// Rebuilds the views the previous daemon handed over (before `start`); a view that does
    /// not restore is logged and skipped.
    public func restoreViews(from state: HandoverState) {
        var restored = 0
        for lines in state.views {
            do {
                _ = try service.restoreView(lines: lines)
                restored += 1
            } catch {
                logger.log(.error, "a handed-over view did not restore: \(error.name): \(error.message)")
            }
        }
        logger.log(.notice, "restored \(restored) of \(state.views.count) views from the previous daemon")
    }

    /// Takes over a connection the previous daemon handed over (after `start`): same socket,
    /// same subscriptions, its pending output first, then one `view.resync` per subscription.
    /// A socket whose peer may not use this daemon (or that is no socket) is closed.
    /// `restored` runs once the subscriptions are back in the service and before the
    /// connection resumes: from then on other connections' mutations reach it (a test delivers
    /// one there).
    public func adopt(_ record: HandedConnection, restored: (ConnectionID) -> Void = { _ in }) -> Bool {
        guard let peer = try? UnixSocket.peerCredentials(record.fd), peer.uid == getuid() || peer.uid == 0 else {
            close(record.fd)
            return false
        }
        guard let connection = admitHandedOver(record.fd, peer: peer) else {
            close(record.fd)
            return false
        }
        // The connection's sequencer and coalescing are in place before any subscription is
        // restored (the inbox keeps order): events raised from then on find them.
        connection.post { connection.takeOver(record) }
        let kept = Set(record.subscriptions.filter { service.restoreSubscription($0.id, view: $0.view, connection: connection.id) }.map(\.id))
        restored(connection.id)
        connection.post { connection.resume(keeping: kept) }
        logger.log(.debug, "connection taken over (\(kept.count) subscriptions)", connection.fields)
        return true
    }
}
