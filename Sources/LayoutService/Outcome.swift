import LayoutProtocol

/// Identifies a client connection to the service (the server numbers them).
public typealias ConnectionID = Int

/// An event for one connection. Its params are encoded once and shared by every subscriber;
/// the connection gives it a `seq` when it is written, so sequence numbers stay gapless in
/// the order the client reads them.
public struct Event: Sendable {
    public var connection: ConnectionID
    public var name: String
    /// Absent for connection-wide events such as `daemon.shutdown`.
    public var subscription: Int?
    /// The encoded `params` object.
    public var params: [UInt8]

    public init(connection: ConnectionID, name: String, subscription: Int?, params: [UInt8]) {
        self.connection = connection
        self.name = name
        self.subscription = subscription
        self.params = params
    }

    /// The event's line with `seq`.
    public func line(seq: Int) -> [UInt8] {
        Envelope.event(name, subscription: subscription, seq: seq, encodedParams: params)
    }
}

/// What one request produced: the reply (none for a notification) and the events it caused,
/// for any connection, in the order they happened.
public struct Outcome: Sendable {
    public var reply: [UInt8]?
    public var events: [Event]
    /// What the request was, for logs: its method and view when readable, and the error name
    /// when it was refused.
    public var method: String?
    public var view: String?
    public var error: String?
}

/// A line for one connection: a reply or a sequenced event.
public struct Delivery: Hashable, Sendable {
    public var connection: ConnectionID
    public var line: [UInt8]
}

/// Numbers one connection's events: 1, 2, 3… with no gaps.
public struct EventSequencer: Sendable {
    /// The `seq` of the next event: what a restart hands to the next daemon, so the numbers
    /// go on without a gap.
    public private(set) var next = 1

    public init(next: Int = 1) {
        self.next = max(1, next)
    }

    public mutating func line(for event: Event) -> [UInt8] {
        defer { next += 1 }
        return event.line(seq: next)
    }
}
