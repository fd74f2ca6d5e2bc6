import Dispatch
import LayoutEngine
import LayoutProtocol
import Synchronization

/// A view as a save compares it: which instance (a view deleted and made again is another)
/// at which epoch.
public struct ViewVersion: Hashable, Sendable {
    public let instance: ObjectIdentifier
    public let epoch: Int
}

/// What outlives the process: every view as the lines of its export (`view.export`, one part
/// a line), and each connection's subscriptions. The service does no I/O: the server writes
/// the bytes to the state directory or hands them to the next daemon, and gives them back.
extension LayoutService {
    /// The connection a restore imports as (no client has it).
    static let restoring: ConnectionID = -1

    /// Every view's version now, for a checkpoint to find the ones that changed since it
    /// saved them.
    public var viewVersions: [String: ViewVersion] {
        directory.withLock { directory in
            directory.views.mapValues { ViewVersion(instance: ObjectIdentifier($0), epoch: $0.summary.withLock { $0.epoch }) }
        }
    }

    /// A view's saved form: its export's parts, one JSON line each, from one snapshot. Blocks
    /// the caller (never an I/O thread: call it from the control queue or a queue of its own)
    /// until the view's executor has written them, after the work queued before. Nil when
    /// there is no such view (or it was deleted meanwhile).
    public func savedLines(ofView name: String) -> (epoch: Int, lines: [[UInt8]])? {
        guard let host = try? host(named: name) else { return nil }
        let result = Mutex<(epoch: Int, lines: [[UInt8]])?>(nil)
        let done = DispatchSemaphore(value: 0)
        host.queue.async {
            defer { done.signal() }
            guard !host.isDeleted else { return }
            // As `view.export` params after the service has read `view`.
            var request: JSONObject = [:]
            var lines = [[UInt8]]()
            var epoch = 0
            while true {
                var params = ParamsReader(request)
                guard let part = try? host.export(&params), let value = try? JSONParser.parse(part) else { return }
                if lines.isEmpty { epoch = value["epoch"]?.integerValue ?? 0 }
                lines.append(part)
                guard let next = value["next"]?.stringValue else { break }
                request["cursor"] = .string(next)
            }
            result.withLock { $0 = (epoch, lines) }
        }
        done.wait()
        return result.withLock { $0 }
    }

    /// Rebuilds a view from its saved lines under the name part 1 carries, with its epoch:
    /// each line is read as `view.import` reads a part, and refused the same way (nothing is
    /// created; every item goes back to the budget).
    public func restoreView(lines: [[UInt8]]) throws(WireError) -> (name: String, epoch: Int, items: Int) {
        var pending: PendingImport?
        func abandon(_ error: WireError) -> WireError {
            if let pending { itemBudget.release(pending.received) }
            return error
        }
        for (index, line) in lines.enumerated() {
            let parsed: JSONValue
            do {
                parsed = try JSONParser.parse(line)
            } catch {
                throw abandon(ExportPart.invalidExport(path: "line \(index + 1)", reason: "is not JSON: \(error)"))
            }
            guard let object = parsed.objectValue else {
                throw abandon(ExportPart.invalidExport(path: "line \(index + 1)", reason: "is not a JSON object"))
            }
            let part: ExportPart
            do {
                part = try ExportPart.read(ParamsReader(object, path: "blob"), first: pending == nil)
            } catch {
                throw abandon(error)
            }
            if var current = pending {
                // Gives back what the import held when it refuses.
                pending = nil
                try continueImport(&current, with: part)
                pending = current
            } else {
                guard !part.view.isEmpty, part.view.utf8.count <= 256 else {
                    throw ExportPart.invalidExport(path: "blob.view", reason: "must be 1 to 256 bytes")
                }
                pending = try beginImport(part, name: part.view, connection: Self.restoring)
            }
            guard part.continues else {
                guard index == lines.count - 1 else {
                    throw abandon(ExportPart.invalidExport(path: "line \(index + 2)", reason: "follows the last part"))
                }
                let complete = pending!
                _ = try finishImport(complete)
                return (complete.name, complete.epoch, complete.received)
            }
        }
        throw abandon(ExportPart.invalidExport(path: "line \(lines.count + 1)", reason: "is missing: the lines end before the last part"))
    }

    /// The subscriptions `connection` holds, by id, with the view each watches.
    public func subscriptions(of connection: ConnectionID) -> [(id: Int, view: String)] {
        let hosts = directory.withLock { Array($0.views.values) }
        var held = [(id: Int, view: String)]()
        for host in hosts {
            for subscriber in host.subscribers.withLock({ $0 }) where subscriber.connection == connection {
                held.append((subscriber.subscription, host.name))
            }
        }
        return held.sorted { $0.id < $1.id }
    }

    /// Gives `connection` subscription `id` of view `name` again (the next daemon of a
    /// handover), on the view's executor; false when there is no such view. Later
    /// subscriptions are numbered after it.
    public func restoreSubscription(_ id: Int, view name: String, connection: ConnectionID) -> Bool {
        guard let host = try? host(named: name) else { return false }
        directory.withLock { directory in
            directory.nextSubscription = max(directory.nextSubscription, id + 1)
            directory.slotsHeld[connection, default: 0] += 1
        }
        let done = DispatchSemaphore(value: 0)
        host.queue.async {
            host.subscribers.withLock { $0.append(Subscriber(subscription: id, connection: connection)) }
            done.signal()
        }
        done.wait()
        return true
    }
}
