import LayoutEngine
import LayoutProtocol
import Synchronization

/// Data sent in parts for one `view.setData` that would not fit in one line or one batch
/// (`view.stage.begin`, `.append`, `.commit`, `.abort`; protocol/mutations.md, "Staged uploads").
///
/// The view does not see an upload until it is committed, and then sees it whole, as one
/// `setData`: staging exists so that a large load is still one atomic change to subscribers.
struct StagedUpload: ConnectionHeld {
    let id: String
    /// The connection that began it: the only one that may name it, and the one whose closing
    /// discards it.
    let connection: ConnectionID
    /// The view it was begun on; a view deleted meanwhile makes the commit `ViewNotFound`.
    let host: ViewHost
    /// Sections in the order first named, each with its items in the order appended.
    private(set) var sections: [SectionSpec] = []
    private var sectionIndex: [String: Int] = [:]
    /// Items appended so far, all of them taken from the daemon's item budget.
    private(set) var itemCount = 0
    var heldItems: Int { itemCount }

    init(id: String, connection: ConnectionID, host: ViewHost) {
        self.id = id
        self.connection = connection
        self.host = host
    }

    /// Appends `parts`: a section seen before continues (its items go after the earlier ones,
    /// and a `headerSize` or `footerSize` given again replaces the earlier one); a new section
    /// goes after all the others.
    ///
    /// - Complexity: O(k) for the k items and sections in `parts`.
    mutating func append(_ parts: [SectionSpec]) {
        for part in parts {
            itemCount += part.items.count
            guard let index = sectionIndex[part.id] else {
                sectionIndex[part.id] = sections.count
                sections.append(part)
                continue
            }
            sections[index].items.append(contentsOf: part.items)
            if let headerSize = part.headerSize { sections[index].headerSize = headerSize }
            if let footerSize = part.footerSize { sections[index].footerSize = footerSize }
        }
    }
}

/// Every open upload, by id, for all connections.
///
/// An upload is open from `begin` until its commit, its abort or its connection closing; an
/// upload that is not in the table does not exist (a commit takes it out before it runs, so
/// it ends whatever the commit's outcome). Its items count against the daemon's item budget
/// the whole time, so staged data cannot exhaust memory.
final class StagingArea: Sendable {

    private let table = Mutex(ConnectionTable<StagedUpload>(prefix: "u"))
    private let itemBudget: ItemBudget
    let limits: ServiceLimits

    init(itemBudget: ItemBudget, limits: ServiceLimits) {
        self.itemBudget = itemBudget
        self.limits = limits
    }

    /// What `daemon.status` reports: open uploads and the items they hold.
    var counts: (open: Int, items: Int) {
        table.withLock { $0.totals }
    }

    /// Opens an upload for `connection` on `host`, or `LimitExceeded` (`"uploads"`) when the
    /// connection holds `maximumUploads` already.
    func begin(connection: ConnectionID, host: ViewHost) throws(WireError) -> String {
        try table.withLock { (table) throws(WireError) -> String in
            try table.open(for: connection, maximum: limits.maximumUploads, limit: "uploads") { id in
                StagedUpload(id: id, connection: connection, host: host)
            }
        }
    }

    /// Adds `parts` to an upload of `connection`; its totals of items and sections after.
    ///
    /// Refused, with nothing appended: `InvalidParams` for an upload that is not an open one
    /// of this connection, `LimitExceeded` `"batch size"` for more items and sections than one
    /// batch may name, `"items"` for an upload that would hold more than a view may, and
    /// `"total items"` when the daemon's item budget has no room for them.
    func append(_ parts: [SectionSpec], to id: String, connection: ConnectionID) throws(WireError) -> (items: Int, sections: Int) {
        let count = parts.reduce(0) { $0 + $1.items.count }
        guard count + parts.count <= limits.view.maximumBatchSize else {
            throw LayoutError.limitExceeded(limit: "batch size", maximum: limits.view.maximumBatchSize).wire
        }
        return try table.withLock { (table) throws(WireError) -> (items: Int, sections: Int) in
            // Taken out while it grows, so the append below is in place (a copy held across
            // it would copy every item staged so far).
            guard var upload = table.remove(id, of: connection) else { throw Self.notOpen }
            defer { table.insert(upload) }
            try itemBudget.reserve(count, holding: upload.itemCount, maximumPerView: limits.view.maximumItems)
            upload.append(parts)
            return (upload.itemCount, upload.sections.count)
        }
    }

    /// Ends an upload of `connection` and hands it over for its commit: it is no longer open,
    /// and its items stay reserved for the caller to settle (`ItemBudget.release`).
    func take(_ id: String, connection: ConnectionID) throws(WireError) -> StagedUpload {
        try table.withLock { (table) throws(WireError) -> StagedUpload in
            guard let upload = table.remove(id, of: connection) else { throw Self.notOpen }
            return upload
        }
    }

    /// An open upload of `connection` as it is now, left open: what a dry-run commit previews.
    func peek(_ id: String, connection: ConnectionID) throws(WireError) -> StagedUpload {
        try table.withLock { (table) throws(WireError) -> StagedUpload in
            guard let upload = table.entries[id], upload.connection == connection else { throw Self.notOpen }
            return upload
        }
    }

    /// Ends an upload of `connection` unapplied and gives its items back to the budget.
    ///
    /// - Returns: the items it held, freed once this returns.
    func abort(_ id: String, connection: ConnectionID) throws(WireError) -> Int {
        let upload = try take(id, connection: connection)
        itemBudget.release(upload.itemCount)
        return upload.itemCount
    }

    /// Discards every upload of a closed connection and gives their items back.
    ///
    /// - Returns: the items they held, freed once this returns.
    @discardableResult
    func discard(connection: ConnectionID) -> Int {
        let released = table.withLock { $0.removeAll(of: connection) }
        itemBudget.release(released)
        return released
    }

    /// An id that is not an open upload of this connection: never begun, ended, or another
    /// connection's (which this one may not learn exists).
    static let notOpen = WireError.invalidParams("params.upload", "is not an open upload of this connection")
}
