import LayoutProtocol

/// One line from the daemon, checked against what protocol/README.md says the daemon writes
/// ("What a client expects of the daemon's lines"): a reply or an event of the right shape.
/// Anything else means the peer is not a layoutd speaking this protocol.
enum Inbound {
    /// `id` is a number, a string or null; exactly one of `result` and `error`, an object.
    case reply(id: JSONValue, JSONObject)
    /// `seq` an integer, `params` an object, `subscription` an integer when present.
    case event(seq: Int, JSONObject)

    /// The default line cap: the daemon's default `output-limit` (64 MiB), so no legal reply
    /// is longer.
    static let defaultLineCap = 64 << 20

    /// How deep a legal line nests: a reply may echo a request's params (64 deep) a few levels down.
    static let maximumDepth = 128

    /// Reads and checks one line.
    ///
    /// - Throws: `.malformed`, naming what is wrong, for anything the daemon never writes.
    /// - Complexity: O(n) in the line's length; the parser's recursion is bounded by `maximumDepth`.
    init(_ line: [UInt8]) throws(LayoutdError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(line, maximumDepth: Self.maximumDepth)
        } catch {
            throw .malformed("not a JSON reply or event (\(error)): \(Self.excerpt(line))")
        }
        guard case .object(let message) = value else { throw .malformed("not a JSON object: \(Self.excerpt(line))") }
        if let name = message["event"] {
            guard name.stringValue != nil else { throw .malformed("an event whose name is not a string: \(Self.excerpt(line))") }
            guard let seq = message["seq"]?.integerValue else { throw .malformed("an event whose seq is not an integer: \(Self.excerpt(line))") }
            guard message["params"]?.objectValue != nil else { throw .malformed("an event whose params is not an object: \(Self.excerpt(line))") }
            if let subscription = message["subscription"], subscription.integerValue == nil {
                throw .malformed("an event whose subscription is not an integer: \(Self.excerpt(line))")
            }
            self = .event(seq: seq, message)
            return
        }
        guard let id = message["id"] else { throw .malformed("neither a reply (no id) nor an event: \(Self.excerpt(line))") }
        switch id {
        case .number, .string, .null: break
        default: throw .malformed("a reply whose id is not a number, a string or null: \(Self.excerpt(line))")
        }
        switch (message["result"], message["error"]) {
        case (.object?, nil), (nil, .object?): break
        case (nil, nil): throw .malformed("a reply with neither result nor error: \(Self.excerpt(line))")
        case (.some, .some): throw .malformed("a reply with both result and error: \(Self.excerpt(line))")
        default: throw .malformed("a reply whose result or error is not an object: \(Self.excerpt(line))")
        }
        self = .reply(id: id, message)
    }

    /// The start of a line, for an error message.
    static func excerpt(_ line: [UInt8]) -> String {
        String(decoding: line.prefix(120), as: UTF8.self) + (line.count > 120 ? "… (\(line.count) bytes)" : "")
    }
}

/// Replies nobody waits for (an unknown or duplicate id, a call that timed out, a raw line's
/// reply, an `id` null error that does not close the connection): counted, and the most
/// recent kept for inspection.
struct StrayLog: Sendable {
    /// How many strays are kept.
    static let kept = 16
    private(set) var count = 0
    private(set) var recent = Ring<JSONObject>(capacity: kept)

    mutating func record(_ reply: JSONObject) {
        count += 1
        recent.append(reply)
    }
}

/// A first-in first-out queue of at most `capacity` elements: appending to a full one drops
/// the oldest (and counts it).
struct Ring<Element>: Sendable where Element: Sendable {
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0
    /// Elements dropped to make room.
    private(set) var dropped = 0

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var first: Element? { isEmpty ? nil : storage[head] }

    /// Appends; returns whether an old element was dropped to make room.
    @discardableResult
    mutating func append(_ element: Element) -> Bool {
        let full = count == capacity
        if full {
            head += 1
            dropped += 1
        }
        storage.append(element)
        compact()
        return full
    }

    mutating func removeFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        compact()
        return element
    }

    /// Every element, oldest first, and the ring left empty.
    mutating func removeAll() -> [Element] {
        let elements = Array(storage[head...])
        storage.removeAll(keepingCapacity: storage.capacity <= 2 * capacity)
        head = 0
        return elements
    }

    var elements: [Element] { Array(storage[head...]) }

    /// Storage stays under twice the capacity: the taken prefix is dropped once it is as long
    /// as what is left.
    private mutating func compact() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= 2 * capacity)
            head = 0
        } else if head >= capacity {
            storage.removeFirst(head)
            head = 0
        }
    }
}
