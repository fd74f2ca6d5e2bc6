import Dispatch
import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import StrategyCodec

/// The export format (protocol/views.md, "view.export"): its name and the versions this
/// daemon writes and reads.
enum ExportFormat {
    static let name = "layoutd.view"
    static let version = 1
    static let readable = [1]
    /// Items (and sections) per part when the client does not say.
    static let defaultPartSize = 10_000
}

/// What the later parts of an export are read from: the data as it was at the first part
/// (an O(1) copy of the model, shared with the view until either changes).
struct ExportSnapshot {
    let model: CollectionModel
    let epoch: Int
    /// Orthogonal sections' offsets, written with the section's first appearance.
    let sectionOffsets: [String: Double]
    /// When a part was last read (uptime ns): a snapshot unread for `keep` is dropped.
    var lastRead: UInt64

    /// How long a snapshot waits for its next part, and how many one view keeps.
    static let keep: UInt64 = 60_000_000_000
    static let maximumPerView = 4
}

/// Where the next part starts: which snapshot, section and item, and the part's number.
/// On the wire: `x<snapshot>.<section>.<item>.<part>` (opaque to clients).
struct ExportCursor: Equatable {
    var snapshot: Int
    var section: Int
    var item: Int
    var part: Int

    var text: String { "x\(snapshot).\(section).\(item).\(part)" }

    init(snapshot: Int, section: Int, item: Int, part: Int) {
        self.snapshot = snapshot
        self.section = section
        self.item = item
        self.part = part
    }

    init?(_ text: String) {
        guard text.hasPrefix("x") else { return nil }
        let fields = text.dropFirst().split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard fields.count == 4, let snapshot = fields[0], let section = fields[1], let item = fields[2], let part = fields[3],
            snapshot > 0, section >= 0, item >= 0, part > 1
        else { return nil }
        self.init(snapshot: snapshot, section: section, item: item, part: part)
    }
}

extension ViewHost {
    /// `view.export`: part 1 (no cursor) from a new snapshot of the view, or the part a cursor
    /// names from its snapshot. Must run on `queue`.
    ///
    /// - Complexity: O(sections + k log n) for a part of k items; part 1 also the header's
    ///   supplementary measurements, and, with a gesture in progress, a copy of the view.
    func export(_ params: inout ParamsReader) throws(WireError) -> [UInt8] {
        let cursorText = try params.optionalString("cursor")
        // The default fits any daemon: at most what one batch may name there.
        let limit = try params.optionalInteger("limit") ?? min(ExportFormat.defaultPartSize, view.limits.maximumBatchSize)
        try params.finish()
        guard limit >= 1 else { throw .invalidParams("params.limit", "must be at least 1") }
        guard limit <= view.limits.maximumBatchSize else {
            throw LayoutError.limitExceeded(limit: "batch size", maximum: view.limits.maximumBatchSize).wire
        }
        let now = DispatchTime.now().uptimeNanoseconds
        exports = exports.filter { now &- $0.value.lastRead < ExportSnapshot.keep }
        if let cursorText {
            guard let cursor = ExportCursor(cursorText), var snapshot = exports[cursor.snapshot],
                cursor.section < snapshot.model.numberOfSections,
                cursor.item <= snapshot.model.sections[cursor.section].count
            else {
                throw .invalidParams("params.cursor", "is not the cursor of a live export of this view (it lasts 60 s after its last part): export again")
            }
            snapshot.lastRead = now
            var writer = Self.partStart(name: name, epoch: snapshot.epoch, part: cursor.part)
            let next = Self.writeSections(of: snapshot, from: cursor, limit: limit, maximumBytes: partBytes, into: &writer)
            if next == nil { exports[cursor.snapshot] = nil } else { exports[cursor.snapshot] = snapshot }
            return Self.partEnd(writer, next: next)
        }
        let source: View
        do {
            source = try view.exportableView()
        } catch {
            throw error.wire
        }
        let snapshot = ExportSnapshot(
            model: source.model, epoch: source.epoch,
            sectionOffsets: Dictionary(source.sectionOffsets.map { ($0.section, $0.offset) }, uniquingKeysWith: { $1 }), lastRead: now)
        var writer = Self.partStart(name: name, epoch: source.epoch, part: 1)
        Self.writeHeader(of: source, into: &writer)
        let token = nextExport
        nextExport += 1
        let next = Self.writeSections(
            of: snapshot, from: ExportCursor(snapshot: token, section: 0, item: 0, part: 1), limit: limit, maximumBytes: partBytes, into: &writer)
        if next != nil {
            if exports.count >= ExportSnapshot.maximumPerView, let oldest = exports.keys.min() { exports[oldest] = nil }
            exports[token] = snapshot
        }
        return Self.partEnd(writer, next: next)
    }

    /// The most bytes a part may take: what leaves room, within the line cap in effect, for
    /// the `view.import` request that carries it back (its envelope is under 1 KiB).
    private var partBytes: Int {
        let line = lineLength()
        return max(line - 1024, line / 2)
    }

    private static func partStart(name: String, epoch: Int, part: Int) -> JSONWriter {
        var writer = JSONWriter(capacity: 4096)
        writer.write(raw: #"{"format":"#)
        writer.write(ExportFormat.name)
        writer.write(raw: #","version":"#)
        writer.write(Double(ExportFormat.version))
        writer.write(raw: #","view":"#)
        writer.write(name)
        writer.write(raw: #","epoch":"#)
        writer.write(Double(epoch))
        writer.write(raw: #","part":"#)
        writer.write(Double(part))
        return writer
    }

    private static func partEnd(_ writer: JSONWriter, next: ExportCursor?) -> [UInt8] {
        var writer = writer
        writer.write(raw: #","next":"#)
        if let next { writer.write(next.text) } else { writer.write(raw: "null") }
        writer.append(UInt8(ascii: "}"))
        return writer.finish()
    }

    /// Part 1's header: everything but the items.
    private static func writeHeader(of view: View, into writer: inout JSONWriter) {
        writer.write(raw: #","release":"#)
        writer.write(Release.version)
        writer.write(raw: #","strategy":"#)
        writer.write(view.strategyName)
        writer.write(raw: #","params":"#)
        writer.write(StrategyJSON.parameters(view.parameters))
        writer.write(raw: #","layoutDirection":"#)
        writer.write(view.layoutDirection.rawValue)
        writer.write(raw: #","viewport":"#)
        WireMapping.write(viewport: view.viewport, into: &writer)
        writer.write(raw: #","windowMargin":"#)
        writer.write(view.windowMargin)
        if view.anchorPolicy != .firstVisible {
            writer.write(raw: #","anchor":"#)
            writer.write(WireMapping.wire(view.anchorPolicy).json)
        }
        if let target = view.scrollTarget {
            writer.write(raw: #","scrollTarget":"#)
            writer.write(WireMapping.wire(target).json)
        }
        writer.write(raw: #","sectionCount":"#)
        writer.write(Double(view.model.numberOfSections))
        writer.write(raw: #","itemCount":"#)
        writer.write(Double(view.model.numberOfItems))
        let measured = view.layout.strategy.measuredSupplementaries
        if !measured.isEmpty {
            writer.write(raw: #","supplementaryMeasurements":["#)
            for (index, (key, size)) in measured.enumerated() {
                if index > 0 { writer.append(UInt8(ascii: ",")) }
                writer.write(raw: #"{"kind":"#)
                writer.write(key.kind.rawValue)
                writer.write(raw: #","id":"#)
                writer.write(key.id)
                writer.write(raw: #","width":"#)
                writer.write(size.width)
                writer.write(raw: #","height":"#)
                writer.write(size.height)
                writer.append(UInt8(ascii: "}"))
            }
            writer.append(UInt8(ascii: "]"))
        }
    }

    /// Writes `"sections":[...]` from `start` until `limit` items are written (an empty
    /// section counts as one, so a part of empty sections ends too) or the part passes
    /// `maximumBytes`; returns where the next part starts. A part so holds at most `limit`
    /// items and at most `limit` sections, and fits a request line with room to spare.
    private static func writeSections(
        of snapshot: ExportSnapshot, from start: ExportCursor, limit: Int, maximumBytes: Int, into writer: inout JSONWriter
    ) -> ExportCursor? {
        let model = snapshot.model
        var budget = limit
        var section = start.section
        var item = start.item
        writer.write(raw: #","sections":["#)
        var first = true
        var wroteItem = false
        while section < model.numberOfSections, budget > 0 {
            let owner = model.sections[section]
            if !first { writer.append(UInt8(ascii: ",")) }
            first = false
            writer.write(raw: #"{"id":"#)
            writer.write(owner.id)
            if item == 0 {
                // A section's own fields go with its first appearance only.
                if let header = owner.headerSize {
                    writer.write(raw: #","headerSize":"#)
                    writer.write(size: header)
                }
                if let footer = owner.footerSize {
                    writer.write(raw: #","footerSize":"#)
                    writer.write(size: footer)
                }
                if let offset = snapshot.sectionOffsets[owner.id] {
                    writer.write(raw: #","offset":"#)
                    writer.write(offset)
                }
            }
            writer.write(raw: #","items":["#)
            var end = item
            // Items until the budget, or until the part fills its bytes (one item at least, so
            // every part moves on).
            while end < min(owner.count, item + budget), !wroteItem || writer.count < maximumBytes {
                if end > item { writer.append(UInt8(ascii: ",")) }
                write(model.exportedItem(section: section, index: end), into: &writer)
                end += 1
                wroteItem = true
            }
            writer.write(raw: "]}")
            budget -= max(1, end - item)
            if writer.count >= maximumBytes { budget = 0 }
            if end < owner.count {
                item = end
            } else {
                section += 1
                item = 0
            }
        }
        writer.append(UInt8(ascii: "]"))
        guard section < model.numberOfSections else { return nil }
        return ExportCursor(snapshot: start.snapshot, section: section, item: item, part: start.part + 1)
    }

    private static func write(_ item: ExportedItem, into writer: inout JSONWriter) {
        writer.write(raw: #"{"id":"#)
        writer.write(item.spec.id)
        if let size = item.spec.size {
            writer.write(raw: #","size":"#)
            writer.write(size: size)
        }
        if let estimated = item.spec.estimatedSize {
            writer.write(raw: #","estimatedSize":"#)
            writer.write(size: estimated)
        }
        if let selected = item.spec.selectedSize {
            writer.write(raw: #","selectedSize":"#)
            writer.write(size: selected)
        }
        if let measured = item.measuredSize {
            writer.write(raw: #","measuredSize":"#)
            writer.write(size: measured)
        }
        if item.isSelected { writer.write(raw: #","selected":true"#) }
        writer.append(UInt8(ascii: "}"))
    }
}
