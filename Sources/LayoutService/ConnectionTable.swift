import LayoutEngine
import LayoutProtocol

/// Something a connection holds open between requests (a staged upload, an import in parts):
/// it names its owner and the items it holds from the daemon's budget.
protocol ConnectionHeld: Sendable {
    var id: String { get }
    var connection: ConnectionID { get }
    var heldItems: Int { get }
}

/// Open entries by id for all connections, at most `maximum` per connection: what the staging
/// area and the import area keep (each under its own lock). Ids are `<prefix><n>`, unique in
/// the daemon. An entry that is not in the table does not exist.
struct ConnectionTable<Entry: ConnectionHeld> {
    private(set) var entries: [String: Entry] = [:]
    private var next = 1
    private var counts: [ConnectionID: Int] = [:]
    let prefix: String

    init(prefix: String) {
        self.prefix = prefix
    }

    /// Opens an entry for `connection` with a new id, or `LimitExceeded` (`limit`) when the
    /// connection holds `maximum` already.
    mutating func open(
        for connection: ConnectionID, maximum: Int, limit: String, _ make: (String) -> Entry
    ) throws(WireError) -> String {
        guard counts[connection, default: 0] < maximum else {
            throw LayoutError.limitExceeded(limit: limit, maximum: maximum).wire
        }
        let id = "\(prefix)\(next)"
        next += 1
        insert(make(id))
        return id
    }

    /// Puts back an entry taken out (`remove`) under its own id.
    mutating func insert(_ entry: Entry) {
        entries[entry.id] = entry
        counts[entry.connection, default: 0] += 1
    }

    /// The open entry `id` of `connection`, taken out; nil when there is none (never opened,
    /// ended, or another connection's, which this one may not learn exists).
    mutating func remove(_ id: String, of connection: ConnectionID) -> Entry? {
        guard entries[id]?.connection == connection, let entry = entries.removeValue(forKey: id) else { return nil }
        counts[connection, default: 1] -= 1
        if counts[connection] == 0 { counts[connection] = nil }
        return entry
    }

    /// Ends every entry of a closed connection. - Returns: the items they held.
    mutating func removeAll(of connection: ConnectionID) -> Int {
        let ids = entries.values.filter { $0.connection == connection }.map(\.id)
        return ids.reduce(0) { $0 + (remove($1, of: connection)?.heldItems ?? 0) }
    }

    /// Entries open and the items they hold (`daemon.status`).
    var totals: (open: Int, items: Int) { (entries.count, entries.values.reduce(0) { $0 + $1.heldItems }) }
}
