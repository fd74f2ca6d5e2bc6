import Dispatch
import LayoutEngine
import LayoutProtocol
import LayoutService

/// The fuzz targets: each takes the fuzzer's bytes and returns the invariants they broke, one
/// sentence each (empty when all held). libFuzzer's drivers (`fuzz/`) trap on a failure; the
/// regression tests run every committed corpus file and crash through the same functions.
public enum FuzzTargets {
    public static let all: [(name: String, run: @Sendable ([UInt8]) -> [String])] = [
        ("framer", framer), ("request", request), ("service", service), ("mutations", mutations), ("hot", hot),
        ("web", web),
    ]

    public static func named(_ name: String) -> (@Sendable ([UInt8]) -> [String])? {
        all.first { $0.name == name }?.run
    }

    // MARK: Line framing

    /// The first byte sets the line limit (1...256) and the next few how the rest is cut into
    /// reads; whatever the cuts, the framer must give exactly the lines (and failure) of a
    /// plain reading of the whole stream at once.
    @Sendable public static func framer(_ data: [UInt8]) -> [String] {
        var source = FuzzBytes(data)
        let limit = Int(source.byte()) + 1
        let cuts = (0..<4).map { _ in Int(source.byte() % 32) + 1 }
        let stream = Array(source.rest())
        var framer = LineFramer(maximumLineLength: limit)
        var lines = [[UInt8]]()
        var start = 0
        var cut = 0
        while start < stream.count {
            let end = min(stream.count, start + cuts[cut % cuts.count])
            lines += framer.append(stream[start..<end])
            cut += 1
            start = end
        }
        let expected = referenceLines(stream, limit: limit)
        var failures = [String]()
        if lines != expected.lines {
            failures.append("lines \(lines.map { String(decoding: $0, as: UTF8.self) }) vs \(expected.lines.map { String(decoding: $0, as: UTF8.self) })")
        }
        if framer.failed != expected.failed { failures.append("failed \(framer.failed), expected \(expected.failed)") }
        for line in lines where line.count > limit || line.contains(0x0A) {
            failures.append("a line of \(line.count) bytes over the limit \(limit) or holding a newline")
        }
        return failures
    }

    /// The framing rules written plainly: split at `\n`, drop one `\r` before it, skip blank
    /// lines, and stop for good at the first line (complete or not) longer than `limit`.
    static func referenceLines(_ stream: [UInt8], limit: Int) -> (lines: [[UInt8]], failed: Bool) {
        var lines = [[UInt8]]()
        var pieces = stream.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
        let tail = pieces.removeLast()
        for var piece in pieces {
            if piece.last == 0x0D { piece.removeLast() }
            if piece.count > limit { return (lines, true) }
            if !piece.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { lines.append(piece) }
        }
        let pending = tail.last == 0x0D ? tail.count - 1 : tail.count
        return (lines, pending > limit)
    }

    // MARK: Request decoding

    /// Any bytes: decoding never crashes; what parses writes back to text that parses to the
    /// same value and writes to the same bytes again; the wire model's readers take whatever
    /// a request carries without crashing.
    @Sendable public static func request(_ data: [UInt8]) -> [String] {
        var failures = [String]()
        let decoded = try? Request.decode(data)
        guard let value = try? JSONParser.parse(data) else {
            if decoded != nil { failures.append("a request decoded from bytes that are not JSON") }
            return failures
        }
        let written = JSONWriter.encode(value)
        do {
            let reparsed = try JSONParser.parse(written)
            if reparsed != value { failures.append("\(String(decoding: written, as: UTF8.self)) parses to another value") }
            if JSONWriter.encode(reparsed) != written { failures.append("writing is not stable for \(String(decoding: written, as: UTF8.self))") }
        } catch {
            failures.append("the writer's own output does not parse: \(error) in \(String(decoding: written, as: UTF8.self))")
        }
        if let request = decoded {
            var params = ParamsReader(request.params)
            _ = try? WireModel.sections(&params, "sections")
            _ = try? WireModel.updates(&params, "updates")
            _ = try? WireModel.items(&params, "items")
            _ = try? params.finish()
        }
        return failures
    }

    // MARK: The service

    /// Limits small enough that the fuzzer reaches them.
    static let serviceLimits = ServiceLimits(
        maximumViews: 3, view: ViewLimits(maximumItems: 300, maximumBatchSize: 40, maximumWindowElements: 24), maximumTotalItems: 500,
        maximumLineLength: 4096, maximumSubscriptions: 4)
    static let observer: ConnectionID = 99
    /// The methods whose success moves their view's epoch by one (the catalog's `mutates`).
    static let mutatingMethods = Set(MethodCatalog.methods.filter(\.mutates).map(\.name))
    static let readOnlyMethods: Set<String> = [
        "daemon.hello", "daemon.describe", "daemon.status", "daemon.sync", "strategy.list", "view.list", "view.get", "view.query", "view.item",
    ]

    /// The input's lines, as requests from one connection to one fresh service. After each:
    /// every line out is one JSON object; a request with an id gets exactly one reply with
    /// that id (a line that is not a request, one with a null id), holding a result or a
    /// well-formed error; a refused request changed no view; an accepted mutation moved its
    /// view's epoch by one; events are numbered 1, 2, 3… and each subscription's
    /// invalidations follow the epochs one by one; every error and event is one the method
    /// declares (`MethodCatalog`, from protocol/interface.json).
    @Sendable public static func service(_ data: [UInt8]) -> [String] {
        let service = LayoutService(limits: serviceLimits)
        var failures = [String]()
        var lastSeq = 0
        var subscriptionEpochs = [Int: Int]()
        let lines = data.split(separator: 0x0A).prefix(48)
        for (number, line) in lines.enumerated() {
            let request = try? Request.decode(line)
            // Reads and daemon methods cannot change a view; the rest are checked against a
            // snapshot taken before them.
            let mayChange = request.map { !readOnlyMethods.contains($0.method) } ?? false
            let before = mayChange ? state(of: service) : [:]
            let deliveries = service.handle(line: line, from: 1)
            let context = "line \(number + 1) \(String(decoding: line.prefix(200), as: UTF8.self))"
            var replies = [JSONObject]()
            for (index, delivery) in deliveries.enumerated() {
                guard delivery.connection == 1, delivery.line.last == 0x0A, !delivery.line.dropLast().contains(0x0A),
                    let object = (try? JSONParser.parse(delivery.line.dropLast()))?.objectValue
                else {
                    failures.append("\(context): a delivery that is not one JSON object line for the sender")
                    continue
                }
                if let name = object["event"]?.stringValue {
                    // One connection: every event of this turn is the request's own.
                    if let request, MethodCatalog.method(named: request.method)?.events.contains(name) != true {
                        failures.append("\(context): \(request.method) does not declare event \(name) (protocol/interface.json)")
                    }
                    let seq = object["seq"]?.integerValue ?? -1
                    if seq != lastSeq + 1 { failures.append("\(context): event seq \(seq) after \(lastSeq)") }
                    lastSeq = seq
                    if name == "view.invalidated", let subscription = object["subscription"]?.integerValue {
                        let epoch = object["params"]?["epoch"]?.integerValue ?? -1
                        if let previous = subscriptionEpochs[subscription], epoch != previous + 1 {
                            failures.append("\(context): subscription \(subscription) got epoch \(epoch) after \(previous)")
                        }
                        subscriptionEpochs[subscription] = epoch
                    }
                } else {
                    if index != 0 { failures.append("\(context): a second reply, or a reply after events") }
                    replies.append(object)
                }
            }
            let sent = (try? JSONParser.parse(line))?.objectValue
            if let request, request.id == nil {
                if !replies.isEmpty { failures.append("\(context): a notification was answered") }
            } else if replies.count != 1 {
                failures.append("\(context): \(replies.count) replies")
            }
            // (A subscription made by a notification has no reply; its first event sets its epoch.)
            guard let reply = replies.first else { continue }
            let expectedID: JSONValue = request?.id?.json ?? (sent?["id"].flatMap { $0.integerValue != nil || $0.stringValue != nil ? $0 : nil } ?? .null)
            if reply["id"] != expectedID { failures.append("\(context): reply id \(String(describing: reply["id"])) for \(expectedID)") }
            switch (reply["result"], reply["error"]) {
            case (_?, nil):
                if let request, mutatingMethods.contains(request.method), let view = request.params["view"]?.stringValue {
                    let epochBefore = before[view].flatMap { (try? JSONParser.parse($0.dropLast()))?["result"]?["epoch"]?.integerValue }
                    let epochAfter = epoch(of: view, in: service)
                    if let epochBefore, epochAfter != epochBefore + 1 {
                        failures.append("\(context): accepted, epoch \(epochBefore) became \(String(describing: epochAfter))")
                    }
                }
                if let request, request.method == "view.subscribe", let subscription = reply["result"]?["subscription"]?.integerValue {
                    subscriptionEpochs[subscription] = reply["result"]?["snapshot"]?["epoch"]?.integerValue ?? -1
                }
            case (nil, let error?):
                let name = error["name"]?.stringValue ?? ""
                if name.isEmpty || error["code"]?.integerValue != ErrorCatalog.code(forName: name) || error["message"]?.stringValue == nil {
                    failures.append("\(context): malformed error \(error)")
                }
                if ErrorCatalog.entries.contains(where: { $0.name == name }) == false {
                    failures.append("\(context): error name \(name) is not in the catalog")
                }
                if let request, !MethodCatalog.mayRaise(name, method: request.method) {
                    failures.append("\(context): \(request.method) does not declare \(name) (protocol/interface.json)")
                }
                if mayChange, state(of: service) != before { failures.append("\(context): refused with \(name) but a view changed") }
            default:
                failures.append("\(context): a reply with neither or both of result and error")
            }
            if !failures.isEmpty { break }
        }
        return failures
    }

    /// What a client sees of every view: the bytes of `view.get` (epoch, viewport, parameters,
    /// content size, counts, the window's elements), by view name, read by a connection that
    /// never subscribes. (Offscreen frames are the mutations target's business: it compares
    /// every element after each refusal.) Bytes, not parsed values: this runs around every line.
    static func state(of service: LayoutService) -> [String: [UInt8]] {
        var views = [String: [UInt8]]()
        for name in service.viewNames {
            let quoted = String(decoding: JSONWriter.encode(.string(name)), as: UTF8.self)
            views[name] = replyLine(service, #"{"id":0,"method":"view.get","params":{"view":\#(quoted)}}"#)
        }
        return views
    }

    /// A view's epoch, from `view.get`.
    static func epoch(of view: String, in service: LayoutService) -> Int? {
        let quoted = String(decoding: JSONWriter.encode(.string(view)), as: UTF8.self)
        let got = replyLine(service, #"{"id":0,"method":"view.get","params":{"view":\#(quoted)}}"#)
        return (try? JSONParser.parse(got))?["result"]?["epoch"]?.integerValue
    }

    private static func replyLine(_ service: LayoutService, _ line: String) -> [UInt8] {
        service.handle(line: Array(line.utf8), from: observer).first?.line ?? []
    }

    // MARK: Engine mutations

    /// The bytes choose a strategy, an initial view and a sequence of mutations (one in eight
    /// invalid); `ViewChecks.run` holds each step to a layout recomputed from scratch.
    @Sendable public static func mutations(_ data: [UInt8]) -> [String] {
        var source = FuzzBytes(data)
        let strategy = ["flow", "collapsible", "ultravisual", "display"][Int(source.byte() % 4)]
        var fuzzer = ViewFuzzer(source: source)
        return ViewChecks.run(&fuzzer, strategy: strategy, steps: 64) { $0.random.isExhausted }
    }
}
