/// The results of `daemon.status` and `daemon.reload` as the wire carries them
/// (protocol/schemas/methods/daemon.status.result.json and daemon.reload.result.json): the
/// service fills in what it counts, the transport (`LayoutServer`) what it counts, and both
/// write through these types, so the field names and their order live in one place.

/// `daemon.status`: counters and gauges.
public struct DaemonStatus: Hashable, Sendable {
    public var views: Int
    public var items: Int
    public var subscriptions: Int
    public var openUploads: Int
    public var uploadedItems: Int
    public var requests: Int
    public var errors: Int
    /// What the transport adds; nil for a service that no transport runs (tests, the fuzzer).
    public var transport: TransportStatus?

    public init(
        views: Int, items: Int, subscriptions: Int, openUploads: Int, uploadedItems: Int, requests: Int, errors: Int,
        transport: TransportStatus? = nil
    ) {
        self.views = views
        self.items = items
        self.subscriptions = subscriptions
        self.openUploads = openUploads
        self.uploadedItems = uploadedItems
        self.requests = requests
        self.errors = errors
        self.transport = transport
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "views": .number(Double(views)), "items": .number(Double(items)), "subscriptions": .number(Double(subscriptions)),
            "uploads": .object(["open": .number(Double(openUploads)), "items": .number(Double(uploadedItems))]),
            "requests": .number(Double(requests)), "errors": .number(Double(errors)),
        ]
        if let transport {
            object["uptime"] = .number((transport.uptime * 1000).rounded() / 1000)
            object["generation"] = .number(Double(transport.generation))
            object["connections"] = .object([
                "open": .number(Double(transport.openConnections)), "accepted": .number(Double(transport.acceptedConnections)),
                "refused": .number(Double(transport.refusedConnections)), "dropped": .number(Double(transport.droppedConnections)),
                "fdExhausted": .number(Double(transport.fdExhausted)), "maximum": .number(Double(transport.maximumConnections)),
            ])
            object["memory"] = .object(["residentBytes": .number(Double(transport.residentBytes))])
        }
        return .object(object)
    }
}

/// The part of `daemon.status` the transport counts.
public struct TransportStatus: Hashable, Sendable {
    /// Seconds since the daemon started (written to the millisecond).
    public var uptime: Double
    /// Configuration generation: 0 at start, +1 per successful reload.
    public var generation: Int
    public var openConnections: Int
    public var acceptedConnections: Int
    public var refusedConnections: Int
    public var droppedConnections: Int
    /// Accepts that failed because the process ran out of descriptors.
    public var fdExhausted: Int
    public var maximumConnections: Int
    public var residentBytes: Int

    public init(
        uptime: Double, generation: Int, openConnections: Int, acceptedConnections: Int, refusedConnections: Int,
        droppedConnections: Int, fdExhausted: Int, maximumConnections: Int, residentBytes: Int
    ) {
        self.uptime = uptime
        self.generation = generation
        self.openConnections = openConnections
        self.acceptedConnections = acceptedConnections
        self.refusedConnections = refusedConnections
        self.droppedConnections = droppedConnections
        self.fdExhausted = fdExhausted
        self.maximumConnections = maximumConnections
        self.residentBytes = residentBytes
    }
}

/// `daemon.reload`: what a re-read of the configuration changed.
public struct ReloadResult: Hashable, Sendable {
    public var generation: Int
    /// Settings applied now.
    public var changed: [String]
    /// Settings that changed in the file but take effect only after a restart.
    public var restartRequired: [String]
    /// Strategies the reload's plugin scan added.
    public var strategiesAdded: [String]
    /// Plugin files the scan refused.
    public var pluginsRefused: [String]

    public init(
        generation: Int, changed: [String] = [], restartRequired: [String] = [], strategiesAdded: [String] = [],
        pluginsRefused: [String] = []
    ) {
        self.generation = generation
        self.changed = changed
        self.restartRequired = restartRequired
        self.strategiesAdded = strategiesAdded
        self.pluginsRefused = pluginsRefused
    }

    public var json: JSONValue {
        func strings(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        return .object([
            "generation": .number(Double(generation)), "changed": strings(changed), "restartRequired": strings(restartRequired),
            "strategiesAdded": strings(strategiesAdded), "pluginsRefused": strings(pluginsRefused),
        ])
    }
}
