import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import Synchronization

/// One part of an export as `view.import` reads it (protocol/views.md, "view.export").
struct ExportPart: Sendable {
    var view: String
    var epoch: Int
    var part: Int
    /// Part 1's header: the view's state without its data (`sections` empty).
    var header: Header?
    var sections: [Section]
    /// Whether more parts follow (`next` is a string).
    var continues: Bool

    struct Header: Sendable {
        var state: ViewState
        var sectionCount: Int
        var itemCount: Int
    }

    struct Section: Sendable {
        var spec: SectionSpec
        var offset: Double?
        var measurements: [(id: String, size: Size)]
        var selection: [String]
    }

    var itemCount: Int { sections.reduce(0) { $0 + $1.spec.items.count } }

    /// Reads a part strictly: what `ParamsReader` refuses is `InvalidExport` (same path and
    /// reason), a version this daemon does not read `UnsupportedExportVersion`.
    static func read(_ blob: ParamsReader, first: Bool) throws(WireError) -> ExportPart {
        var reader = blob
        do throws(WireError) {
            let format = try reader.string("format")
            guard format == ExportFormat.name else {
                throw WireError.invalidParams("\(reader.path).format", "must be \"\(ExportFormat.name)\", not \"\(format)\"")
            }
            let version = reader.optionalValue("version")
            guard let number = version?.integerValue, ExportFormat.readable.contains(number) else {
                throw WireError(
                    name: "UnsupportedExportVersion",
                    message: "this daemon reads export versions \(ExportFormat.readable), not \(version.map(JSONWriter.string) ?? "none")",
                    data: ["version": version?.integerValue.map { .number(Double($0)) } ?? .null,
                           "supported": .array(ExportFormat.readable.map { .number(Double($0)) })])
            }
            return try readFields(&reader, first: first)
        } catch where error.name == "InvalidParams" {
            throw invalidExport(path: error.data["path"]?.stringValue ?? reader.path, reason: error.data["reason"]?.stringValue ?? error.message)
        }
    }

    static func invalidExport(path: String, reason: String) -> WireError {
        WireError(name: "InvalidExport", message: "\(path): \(reason)", data: ["path": .string(path), "reason": .string(reason)])
    }

    private static func readFields(_ reader: inout ParamsReader, first: Bool) throws(WireError) -> ExportPart {
        let view = try reader.string("view")
        let epoch = try reader.integer("epoch")
        guard epoch >= 0 else { throw .invalidParams("\(reader.path).epoch", "must not be negative") }
        let part = try reader.integer("part")
        guard part >= 1 else { throw .invalidParams("\(reader.path).part", "must be at least 1") }
        guard first == (part == 1) else {
            throw .invalidParams(
                "\(reader.path).part", first ? "must be 1 with params.view (later parts go with params.importId)" : "must not be 1 with params.importId")
        }
        guard reader.has("next") else { throw .invalidParams("\(reader.path).next", "is required (null for the last part)") }
        let continues = try reader.optionalString("next") != nil
        let header = part == 1 ? try readHeader(&reader, epoch: epoch) : nil
        var sections = [Section]()
        for var section in try reader.objects("sections") { sections.append(try readSection(&section)) }
        try reader.finish()
        return ExportPart(view: view, epoch: epoch, part: part, header: header, sections: sections, continues: continues)
    }

    private static func readHeader(_ reader: inout ParamsReader, epoch: Int) throws(WireError) -> Header {
        _ = try reader.optionalString("release")
        let strategy = try reader.string("strategy")
        let parameters = try WireMapping.parameters(try reader.optionalObject("params"))
        let direction = try LayoutService.layoutDirection(try reader.string("layoutDirection"))
        var viewportReader = try reader.object("viewport")
        let offset = try viewportReader.point("offset")
        let wire = try WireViewport.read(&viewportReader)
        let viewport = Viewport(
            size: wire.size, offset: offset, contentInsets: wire.contentInsets, safeAreaInsets: wire.margins.safeAreaInsets ?? .zero,
            layoutMargins: wire.margins.layoutMargins ?? .zero, readableWidth: wire.margins.readableWidth)
        let margin = try reader.number("windowMargin")
        let anchor = try WireAnchor.read(&reader, "anchor").map(WireMapping.anchor) ?? .firstVisible
        let target = try WireAnchor.read(&reader, "scrollTarget").map(WireMapping.anchor)
        let sectionCount = try reader.integer("sectionCount")
        let itemCount = try reader.integer("itemCount")
        var supplementary = [(key: ElementKey, size: Size)]()
        if reader.has("supplementaryMeasurements") {
            for var entry in try reader.objects("supplementaryMeasurements") {
                let kind = try entry.string("kind")
                guard WireAnchor.isKindName(kind) else { throw .invalidParams("\(entry.path).kind", "must be an element kind name of 1 to 64 bytes") }
                let key = ElementKey(kind: ElementKind(rawValue: kind), id: try entry.string("id"))
                supplementary.append((key, Size(width: try entry.number("width"), height: try entry.number("height"))))
                try entry.finish()
            }
        }
        let state = ViewState(
            epoch: epoch, strategy: strategy, parameters: parameters, layoutDirection: direction, viewport: viewport,
            windowMargin: margin, anchor: anchor, scrollTarget: target, sections: [], measurements: [], selection: [],
            sectionOffsets: [], supplementaryMeasurements: supplementary)
        return Header(state: state, sectionCount: sectionCount, itemCount: itemCount)
    }

    private static func readSection(_ reader: inout ParamsReader) throws(WireError) -> Section {
        let id = try reader.string("id")
        let offset = try reader.optionalNumber("offset")
        var items = [ItemSpec]()
        var measurements = [(id: String, size: Size)]()
        var selection = [String]()
        let entries = try reader.objects("items")
        items.reserveCapacity(entries.count)
        for var entry in entries {
            let item = try WireItem.readFields(&entry)
            if let measured = try entry.optionalSize("measuredSize") { measurements.append((item.id, measured)) }
            if let selected = try entry.optionalBool("selected") {
                guard selected else { throw .invalidParams("\(entry.path).selected", "is present only as true") }
                selection.append(item.id)
            }
            try entry.finish()
            items.append(item)
        }
        let spec = SectionSpec(id: id, items: items, headerSize: try reader.optionalSize("headerSize"), footerSize: try reader.optionalSize("footerSize"))
        try reader.finish()
        return Section(spec: spec, offset: offset, measurements: measurements, selection: selection)
    }
}

/// An import whose later parts are still to come: the view's state as received so far.
struct PendingImport: ConnectionHeld {
    /// Empty until the import is opened (an export of one part never is).
    var id = ""
    let connection: ConnectionID
    let name: String
    let view: String
    let epoch: Int
    let sectionCount: Int
    let itemCount: Int
    var state: ViewState
    var part: Int
    /// Items received, all of them taken from the daemon's item budget.
    var received = 0
    var heldItems: Int { received }

    /// Adds a part's data: a section that continues the last one (cut at the previous part's
    /// end) goes on with its items; any other goes after.
    mutating func add(_ sections: [ExportPart.Section]) {
        for section in sections {
            received += section.spec.items.count
            state.measurements += section.measurements
            state.selection += section.selection
            if let offset = section.offset { state.sectionOffsets.append((section.spec.id, offset)) }
            if let last = state.sections.indices.last, state.sections[last].id == section.spec.id {
                state.sections[last].items += section.spec.items
            } else {
                state.sections.append(section.spec)
            }
        }
    }
}

/// Every open import, by id, for all connections: as `StagingArea` holds uploads (an import
/// is open from its first part until its last, a refusal or its connection closing, and its
/// items count against the daemon's budget the whole time).
final class ImportArea: Sendable {
    private let table = Mutex(ConnectionTable<PendingImport>(prefix: "i"))
    private let itemBudget: ItemBudget
    private let limits: ServiceLimits

    init(itemBudget: ItemBudget, limits: ServiceLimits) {
        self.itemBudget = itemBudget
        self.limits = limits
    }

    /// Checks a part's size and takes its items from the budget: `LimitExceeded` otherwise.
    func reserve(_ part: ExportPart, after received: Int) throws(WireError) {
        let count = part.itemCount
        let maximum = limits.view.maximumBatchSize
        guard count <= maximum, part.sections.count <= maximum else {
            throw LayoutError.limitExceeded(limit: "batch size", maximum: maximum).wire
        }
        try itemBudget.reserve(count, holding: received, maximumPerView: limits.view.maximumItems)
    }

    /// Opens an import (its first part's items already reserved), or `LimitExceeded`
    /// (`imports`) when the connection holds `maximumUploads` open.
    func open(_ pending: (String) -> PendingImport, connection: ConnectionID) throws(WireError) -> String {
        try table.withLock { (table) throws(WireError) -> String in
            try table.open(for: connection, maximum: limits.maximumUploads, limit: "imports", pending)
        }
    }

    /// Takes an open import of `connection` out (a part ends it or puts it back with `put`).
    func take(_ id: String, connection: ConnectionID) throws(WireError) -> PendingImport {
        try table.withLock { (table) throws(WireError) -> PendingImport in
            guard let pending = table.remove(id, of: connection) else {
                throw .invalidParams("params.importId", "is not an open import of this connection")
            }
            return pending
        }
    }

    /// Puts back an import taken for a part that was not its last.
    func put(_ pending: PendingImport) {
        table.withLock { $0.insert(pending) }
    }

    /// Open imports and the items they hold, for `daemon.status`.
    var counts: (open: Int, items: Int) {
        table.withLock { $0.totals }
    }

    /// Ends every import of a closed connection and gives its items back.
    ///
    /// - Returns: the items given back.
    @discardableResult
    func discard(connection: ConnectionID) -> Int {
        let released = table.withLock { $0.removeAll(of: connection) }
        itemBudget.release(released)
        return released
    }
}

extension LayoutService {
    /// `view.import`: part 1 opens an import (or, alone, creates the view); later parts add to
    /// it; the last creates the view. A refused part ends the import and releases its items.
    func importView(_ params: inout ParamsReader, connection: ConnectionID) throws(WireError) -> [UInt8] {
        let name = try params.optionalString("view")
        let importId = try params.optionalString("importId")
        let blob = try params.object("blob")
        try params.finish()
        var pending: PendingImport
        let part: ExportPart
        switch (name, importId) {
        case (let name?, nil):
            guard !name.isEmpty, name.utf8.count <= 256 else { throw .invalidParams("params.view", "must be 1 to 256 bytes") }
            part = try ExportPart.read(blob, first: true)
            pending = try beginImport(part, name: name, connection: connection)
        case (nil, let id?):
            pending = try imports.take(id, connection: connection)
            do throws(WireError) {
                part = try ExportPart.read(blob, first: false)
            } catch {
                itemBudget.release(pending.received)
                throw error
            }
            try continueImport(&pending, with: part)
        default:
            throw .invalidParams("params", "needs view with part 1, or importId with a later part")
        }
        if part.continues {
            let received = pending.received
            do throws(WireError) {
                let id: String
                if pending.id.isEmpty {
                    let opened = pending
                    id = try imports.open({ id in
                        var pending = opened
                        pending.id = id
                        return pending
                    }, connection: connection)
                } else {
                    id = pending.id
                    imports.put(pending)
                }
                return JSONWriter.encode(.object([
                    "part": .number(Double(part.part)), "items": .number(Double(received)), "importId": .string(id),
                ]))
            } catch {
                itemBudget.release(received)
                throw error
            }
        }
        return try finishImport(pending)
    }

    /// Part 1 of an import: what needs no data is checked now, not after the last part, and
    /// the part's items are reserved.
    func beginImport(_ part: ExportPart, name: String, connection: ConnectionID) throws(WireError) -> PendingImport {
        guard let header = part.header else { throw .internalError("part 1 read without its header") }
        do {
            try View.check(header.state, limits: limits.view, registry: registry)
        } catch {
            throw error.wire
        }
        try checkRoom(for: name)
        try imports.reserve(part, after: 0)
        var pending = PendingImport(
            connection: connection, name: name, view: part.view, epoch: part.epoch, sectionCount: header.sectionCount,
            itemCount: header.itemCount, state: header.state, part: 1)
        pending.add(part.sections)
        return pending
    }

    /// A later part: it must be the next one of the same export; its items are reserved. A
    /// refusal gives back every item the import held.
    func continueImport(_ pending: inout PendingImport, with part: ExportPart) throws(WireError) {
        do throws(WireError) {
            guard part.part == pending.part + 1 else {
                throw ExportPart.invalidExport(path: "params.blob.part", reason: "must be \(pending.part + 1), the part after the last one taken")
            }
            guard part.view == pending.view, part.epoch == pending.epoch else {
                throw ExportPart.invalidExport(path: "params.blob", reason: "is a part of another export (view or epoch differs from part 1's)")
            }
            try imports.reserve(part, after: pending.received)
        } catch {
            itemBudget.release(pending.received)
            throw error
        }
        pending.part = part.part
        pending.add(part.sections)
    }

    /// The last part came: checks the totals and creates the view. Its items are reserved;
    /// they are given back when it is refused.
    func finishImport(_ pending: PendingImport) throws(WireError) -> [UInt8] {
        do throws(WireError) {
            guard pending.received == pending.itemCount, pending.state.sections.count == pending.sectionCount else {
                throw ExportPart.invalidExport(
                    path: "params.blob",
                    reason: "the parts hold \(pending.received) items in \(pending.state.sections.count) sections, part 1 said \(pending.itemCount) in \(pending.sectionCount)")
            }
            let view: View
            do {
                view = try View(restoring: pending.state, limits: limits.view, registry: registry)
            } catch {
                throw error.wire
            }
            let host = try adopt(view, named: pending.name)
            var writer = JSONWriter(capacity: 64)
            writer.write(raw: #"{"part":"#)
            writer.write(Double(pending.part))
            writer.write(raw: #","items":"#)
            writer.write(Double(pending.received))
            writer.write(raw: #","snapshot":"#)
            writer.write(encoded: host.snapshot())
            writer.append(UInt8(ascii: "}"))
            return writer.finish()
        } catch {
            itemBudget.release(pending.received)
            throw error
        }
    }
}
