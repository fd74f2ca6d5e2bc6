import Glibc
import LayoutClient
import LayoutProtocol

/// `layoutctl load`: items from JSON lines (or one `{"sections": ...}` object) into a view.
/// Small data goes as one `view.setData`; large data as a `setData` of the sections, then
/// `view.update` batches sized under the daemon's line and batch limits, with a progress bar
/// on a terminal. A batched load is not one atomic change: watchers see it arrive in parts.
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
        var empty = base
        empty["sections"] = .array(sections.map { .object(["id": .string($0.id), "items": .array([])]) })
        _ = call(client, "view.setData", empty)
        let progress = Progress(total: total, label: "loading \(view)")
        var sent = 0
        var last = JSONValue.null
        for section in sections {
            var start = 0
            while start < section.items.count {
                // Fill a batch up to half the line limit (JSON overhead is small) and the batch limit.
                var end = start
                var size = 256
                while end < section.items.count, end - start < batchLimit, size < lineLimit / 2 {
                    size += JSONWriter.encode(section.items[end]).count + 1
                    end += 1
                }
                var params = base
                params["ifEpoch"] = nil
                params["updates"] = .array([.object([
                    "op": .string("insertItems"), "section": .string(section.id), "at": .number(Double(start)),
                    "items": .array(Array(section.items[start..<end])),
                ])])
                last = call(client, "view.update", params)
                sent += end - start
                start = end
                progress.update(sent)
            }
        }
        progress.finish()
        emit(last) { result in "loaded \(total) items into \(view) in batches (epoch \(formatNumber(result["epoch"])))\n" }
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
