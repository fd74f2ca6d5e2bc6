import Glibc
import LayoutctlKit
import LayoutProtocol

/// `layoutctl load`: items from JSON lines (or one `{"sections": ...}` object) into a view, as
/// one atomic change whatever the size: subscribers see one `view.invalidated`, one epoch step,
/// and the data diffed by id (selection of items that stay is kept), never a half-loaded view.
///
/// Data that fits one line and one batch goes as one `view.setData`. Larger data goes as a
/// staged upload (`view.stage.begin`, `.append` in parts sized under the daemon's line and
/// batch limits, with a progress bar on a terminal, then `.commit`). The commit carries the
/// epoch the view had at `begin` as `ifEpoch` (or the user's `--if-epoch`), so a change made
/// meanwhile by someone else refuses the load with StaleEpoch instead of being overwritten.
enum Loader {
    static func load(view: String, bytes: [UInt8], params base: JSONObject) {
        let sections = parse(bytes)
        let client = connect()
        let limits = call(client, "daemon.hello", [:])["limits"]
        let lineLimit = limits?["maximumLineLength"]?.integerValue ?? (1 << 20)
        let batchLimit = limits?["maximumBatchSize"]?.integerValue ?? 100_000
        let total = sections.reduce(0) { $0 + $1.items.count }
        var whole = base
        whole["sections"] = .array(sections.map { .object(["id": .string($0.id), "items": .array($0.items)]) })
        if JSONWriter.encode(.object(["id": .number(1), "method": .string("view.setData"), "params": .object(whole)])).count < lineLimit - 64,
            total <= batchLimit
        {
            let result = call(client, "view.setData", whole)
            emit(result) { _ in "loaded \(total) items into \(view) (epoch \(formatNumber(result["epoch"])))\n" }
            return
        }
        var begin: JSONObject = ["view": .string(view)]
        begin["ifEpoch"] = base["ifEpoch"]
        let upload = call(client, "view.stage.begin", begin)
        let uploadID = upload["upload"] ?? .null
        let progress = Progress(total: total, label: "loading \(view)")
        var parts = 0
        var sent = 0
        for chunk in chunks(sections, lineLimit: lineLimit, batchLimit: batchLimit) {
            let sectionsValue = JSONValue.array(chunk.map { .object(["id": .string($0.id), "items": .array(Array($0.items))]) })
            _ = call(client, "view.stage.append", ["upload": uploadID, "sections": sectionsValue])
            parts += 1
            sent += chunk.reduce(0) { $0 + $1.items.count }
            progress.update(sent)
        }
        progress.finish()
        var commit: JSONObject = ["upload": uploadID, "ifEpoch": upload["epoch"] ?? .null]
        commit["animated"] = base["animated"]
        let result = call(client, "view.stage.commit", commit)
        emit(result) { _ in "loaded \(total) items into \(view) in \(parts) parts, one change (epoch \(formatNumber(result["epoch"])))\n" }
    }

    /// One `view.stage.append`: consecutive items of one or more sections.
    typealias Chunk = [(id: String, items: ArraySlice<JSONValue>)]

    /// The sections cut into appends that each fit one line (with room for the envelope) and
    /// name at most `batchLimit` items and sections. Every section appears at least once, so
    /// empty ones are created too; order is kept.
    static func chunks(_ sections: [SectionItems], lineLimit: Int, batchLimit: Int) -> [Chunk] {
        // The envelope around the sections: {"id":N,"method":"view.stage.append","params":{"upload":"u…","sections":[…]}}.
        let envelope = 256
        var result = [Chunk]()
        var chunk = Chunk()
        var size = envelope
        var names = 0
        for section in sections {
            let sectionCost = JSONWriter.encode(.string(section.id)).count + 24
            var start = 0
            repeat {
                if !chunk.isEmpty, size + sectionCost >= lineLimit || names + 1 >= batchLimit {
                    result.append(chunk)
                    (chunk, size, names) = ([], envelope, 0)
                }
                size += sectionCost
                names += 1
                var end = start
                while end < section.items.count {
                    let cost = JSONWriter.encode(section.items[end]).count + 1
                    // At least one item per append, so a part always makes progress (an item
                    // too large for any line is the daemon's to refuse).
                    guard end == start && chunk.isEmpty || size + cost < lineLimit && names < batchLimit else { break }
                    size += cost
                    names += 1
                    end += 1
                }
                chunk.append((section.id, section.items[start..<end]))
                start = end
                if start < section.items.count {
                    result.append(chunk)
                    (chunk, size, names) = ([], envelope, 0)
                }
            } while start < section.items.count
        }
        if !chunk.isEmpty { result.append(chunk) }
        return result
    }

    struct SectionItems {
        var id: String
        var items: [JSONValue]
    }

    /// Sections in the order first named; items keep the file's order.
    static func parse(_ bytes: [UInt8]) -> [SectionItems] {
        if let value = try? JSONParser.parse(bytes), case .object(let object) = value, let sections = object["sections"]?.arrayValue {
            return sections.map { section in
                SectionItems(id: section["id"]?.stringValue ?? "s", items: section["items"]?.arrayValue ?? [])
            }
        }
        var order = [String]()
        var items = [String: [JSONValue]]()
        var lineNumber = 0
        for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            lineNumber += 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            guard case .object(var item)? = try? JSONParser.parse(line.last == 0x0D ? line.dropLast() : line), item["id"]?.stringValue != nil else {
                writeError("layoutctl: line \(lineNumber): expected a JSON object with a string \"id\"\n")
                exit(64)
            }
            let section = item["section"]?.stringValue ?? "s"
            item["section"] = nil
            if items[section] == nil { order.append(section) }
            items[section, default: []].append(.object(item))
        }
        return order.map { SectionItems(id: $0, items: items[$0]!) }
    }
}

/// A progress bar on stderr, only when stderr is a terminal.
final class Progress {
    let total: Int
    let label: String
    let enabled = isatty(STDERR_FILENO) == 1
    private var shown = -1

    init(total: Int, label: String) {
        self.total = total
        self.label = label
    }

    func update(_ done: Int) {
        guard enabled, total > 0 else { return }
        let percent = done * 100 / total
        guard percent != shown else { return }
        shown = percent
        let width = 30
        let filled = done * width / total
        writeError("\r\(label) [\(String(repeating: "=", count: filled))\(String(repeating: " ", count: width - filled))] \(percent)% \(done)/\(total)")
    }

    func finish() {
        if enabled { writeError("\n") }
    }
}
