// layout-bench: engine measurements for `make bench`. Prints a table and, with --markdown
// FILE, rewrites FILE (BENCHMARKS.md). Release builds only give meaningful figures.
//
// Every figure is the median of several repetitions with its spread (min–max), measured in one
// run, so ratios between rows hold even on a noisy shared machine.
import Foundation
import LayoutEngine
import LayoutGeometry

struct Options {
    var markdownPath: String?
    var repetitions = 5
    var toolchain = "unknown"
    var counts = [1_000, 10_000, 100_000, 1_000_000]

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--markdown": markdownPath = iterator.next()
            case "--repetitions": repetitions = iterator.next().flatMap(Int.init) ?? repetitions
            case "--toolchain": toolchain = iterator.next() ?? toolchain
            case "--quick": counts = [1_000, 10_000]
            default:
                FileHandle.standardError.write("layout-bench: unknown argument \(argument)\n".data(using: .utf8)!)
                exit(64)
            }
        }
    }
}

struct Measurement {
    var name: String
    var n: Int
    var unit: String
    var samples: [Double]

    var median: Double { samples.sorted()[samples.count / 2] }
    var spread: (Double, Double) { (samples.min()!, samples.max()!) }
}

let options = Options(arguments: CommandLine.arguments)
let clock = ContinuousClock()
var results = [Measurement]()

nonisolated func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
}

/// Runs `body` `repetitions` times; each sample is `unitsPerRun` divided into the elapsed time,
/// scaled by `scale` (1e9 for ns, 1e6 for µs).
@MainActor
func measure(
    _ name: String, n: Int, unit: String, scale: Double, per units: Int, repetitions: Int? = nil, _ body: () -> Void
) {
    body()  // warm-up: page faults and lazy allocations stay out of the samples
    var samples = [Double]()
    for _ in 0..<(repetitions ?? options.repetitions) {
        let elapsed = clock.measure(body)
        samples.append(seconds(elapsed) * scale / Double(units))
    }
    let measurement = Measurement(name: name, n: n, unit: unit, samples: samples)
    results.append(measurement)
    let (low, high) = measurement.spread
    print(
        "\(name.padding(toLength: 52, withPad: " ", startingAt: 0)) n=\(String(n).padding(toLength: 8, withPad: " ", startingAt: 0)) "
            + "\(String(format: "%10.3f", measurement.median)) \(unit)  (\(String(format: "%.3f", low))–\(String(format: "%.3f", high)))")
}

/// Deterministic sizes: widths 40–160 and heights 30–120 in half points.
struct Sizes: RandomNumberGenerator {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    mutating func size() -> Size {
        Size(width: Double(Int.random(in: 80...320, using: &self)) / 2, height: Double(Int.random(in: 60...240, using: &self)) / 2)
    }
}

func variableModel(count: Int) -> CollectionModel {
    var sizes = Sizes()
    let items = (0..<count).map { ItemSpec(id: "item-\($0)", size: sizes.size()) }
    return try! CollectionModel(sections: [SectionSpec(id: "main", items: items)])
}

func uniformModel(count: Int) -> CollectionModel {
    try! CollectionModel(sections: [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)") })])
}

let phone = Viewport(size: Size(width: 390, height: 844))
let registry = StrategyRegistry.builtIn
var sink = 0

print("layout-bench: median of \(options.repetitions) repetitions (min–max)\n")
for count in options.counts {
    var sizes = Sizes()
    let specs = [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)", size: sizes.size()) })]
    measure("model build from specs (variable sizes)", n: count, unit: "ns/item", scale: 1e9, per: count) {
        sink &+= (try! CollectionModel(sections: specs)).numberOfItems
    }
    let variable = variableModel(count: count)
    let flow = try! Layout(strategy: registry.makeStrategy(named: "flow"), model: variable, viewport: phone)
    measure("flow full layout, variable sizes", n: count, unit: "ns/item", scale: 1e9, per: count) {
        flow.replaceModel(variable)
    }
    let uniform = uniformModel(count: count)
    let uniformFlow = try! Layout(
        strategy: registry.makeStrategy(named: "flow", parameters: ["itemSize": .size(Size(width: 120, height: 120))]),
        model: uniform, viewport: phone)
    // A uniform section is arithmetic: the whole layout costs the same at any n.
    measure("flow full layout, uniform section", n: count, unit: "µs/layout", scale: 1e6, per: 1) {
        uniformFlow.replaceModel(uniform)
    }
    for (label, strategy) in [("variable", flow), ("uniform", uniformFlow)] {
        let height = strategy.contentSize.height
        let queries = 200
        measure("flow elements(in: phone window), \(label)", n: count, unit: "µs/query", scale: 1e6, per: queries) {
            for step in 0..<queries {
                let y = height * Double(step) / Double(queries)
                sink &+= strategy.elements(in: Rect(x: 0, y: y, width: 390, height: 844)).count
            }
        }
    }
    let lookups = 1_000
    measure("flow attributes(forItem:), variable", n: count, unit: "µs/lookup", scale: 1e6, per: lookups) {
        for step in 0..<lookups {
            sink &+= flow.attributes(forItem: "item-\(step * (count / lookups))")?.item ?? 0
        }
    }
}

// Incremental operations of the other strategies: cost per operation should not grow with n.
for count in options.counts {
    let ids = (0..<count).map { "item-\($0)" }
    let model = try! CollectionModel(sections: [SectionSpec(id: "main", items: ids.map { ItemSpec(id: $0) })])
    let window = Rect(x: 0, y: 0, width: 390, height: 844)

    let collapsible = try! Layout(
        strategy: registry.makeStrategy(named: "collapsible", parameters: ["collapsed": .bool(true)]),
        model: model, viewport: phone)
    var picks = Sizes()
    // About 1,000 selected items in runs of up to four, as in the stacking-grid question.
    var selected = [String]()
    while selected.count < min(1_000, count / 4) {
        let start = Int.random(in: 0..<(count - 4), using: &picks)
        selected += ids[start..<(start + Int.random(in: 1...4, using: &picks))]
    }
    try! collapsible.select(selected, mode: .set)
    measure("collapsible full layout (collapsed, ~1k selected)", n: count, unit: "ns/item", scale: 1e9, per: count) {
        collapsible.replaceModel(collapsible.model)
    }
    let toggles = 2_000
    let toggled = (0..<toggles).map { _ in ids[Int.random(in: 0..<count, using: &picks)] }
    measure("collapsible selection toggle", n: count, unit: "µs/op", scale: 1e6, per: toggles) {
        for id in toggled { try! collapsible.select([id], mode: .toggle) }
    }
    measure("collapsible toggle + window query", n: count, unit: "µs/op", scale: 1e6, per: toggles) {
        for (index, id) in toggled.enumerated() {
            try! collapsible.select([id], mode: .toggle)
            let y = collapsible.contentSize.height * Double(index) / Double(toggles)
            sink &+= collapsible.elements(in: window.offsetBy(dx: 0, dy: y)).count
        }
    }

    let ultravisual = try! Layout(strategy: registry.makeStrategy(named: "ultravisual"), model: model, viewport: phone)
    let ticks = 10_000
    let extent = ultravisual.contentSize.height - phone.size.height
    measure("ultravisual scroll tick + window query", n: count, unit: "µs/op", scale: 1e6, per: ticks) {
        for tick in 0..<ticks {
            var moved = phone
            moved.offset = Point(x: 0, y: extent * Double(tick) / Double(ticks))
            try! ultravisual.setViewport(moved)
            sink &+= ultravisual.elements(in: moved.bounds).count
        }
    }

    let display = try! Layout(strategy: registry.makeStrategy(named: "display"), model: model, viewport: phone)
    var scrolled = phone
    scrolled.offset = Point(x: 0, y: display.contentSize.height / 2)
    try! display.setViewport(scrolled)
    let modes = ["list", "inline", "grid"]
    let switches = 30
    measure("display mode switch (anchored, with transition)", n: count, unit: "µs/op", scale: 1e6, per: switches) {
        for index in 0..<switches {
            sink &+= try! display.reconfigure(["mode": .string(modes[index % 3])]).transition.segments.count
        }
    }
}

// Views: what one mutation costs end to end (validation, the strategy's update, anchoring and the
// window delta), for the operations the incremental-invalidation targets name.
for count in options.counts.filter({ $0 >= 10_000 }) {
    for strategy in ["flow", "collapsible"] {
        var sizes = Sizes()
        let items = (0..<count).map { ItemSpec(id: "item-\($0)", estimatedSize: sizes.size()) }
        // Collapsible runs collapsed with about 1,000 selected items in short runs.
        let parameters: [String: ParameterValue] = strategy == "collapsible" ? ["collapsed": .bool(true)] : [:]
        let view = try! View(
            strategy: strategy, parameters: parameters, sections: [SectionSpec(id: "main", items: items)], viewport: phone,
            windowMargin: 200)
        if strategy == "collapsible" {
            try! view.select(stride(from: 0, to: count, by: max(1, count / 1_000)).flatMap { [items[$0].id, items[min($0 + 1, count - 1)].id] }, mode: .set)
        }
        let extent = view.layout.contentSize.height
        let ticks = 2_000
        measure("view \(strategy): scroll tick", n: count, unit: "µs/op", scale: 1e6, per: ticks) {
            for tick in 0..<ticks {
                sink &+= try! view.scroll(to: Point(x: 0, y: extent * Double(tick) / Double(ticks))).entered.count
            }
        }
        try! view.scroll(to: Point(x: 0, y: extent / 2))
        let toggles = 200
        measure("view \(strategy): selection toggle", n: count, unit: "µs/op", scale: 1e6, per: toggles) {
            for index in 0..<toggles {
                sink &+= try! view.select(["item-\(index * (count / toggles))"], mode: .toggle).changed.count
            }
        }
        // Fewer operations for these, so a strategy that still re-lays out everything (see the
        // notes in BENCHMARKS.md) keeps the run short at 1M.
        let slow = 20
        var grow = 0.0
        measure("view \(strategy): one measured size", n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                grow += 1
                sink &+= try! view.measure([("item-\(index * 7)", Size(width: 60, height: 40 + grow))]).changed.count
            }
        }
        var inserted = 0
        measure("view \(strategy): insert at front", n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for _ in 0..<slow {
                inserted += 1
                sink &+= try! view.performBatch([.insertItems([ItemSpec(id: "new-\(inserted)")], section: "main", at: 0)]).changed.count
            }
        }
        var deleted = 0
        measure("view \(strategy): delete one item", n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for _ in 0..<slow {
                deleted += 1
                sink &+= try! view.performBatch([.deleteItems(["item-\(count - deleted)"])]).changed.count
            }
        }
    }
}

func machineDescription() -> String {
    let cores = ProcessInfo.processInfo.activeProcessorCount
    let memory = Double(ProcessInfo.processInfo.physicalMemory) / Double(1 << 30)
    var system = utsname()
    uname(&system)
    let machine = withUnsafeBytes(of: &system.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    let kernel = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    return "\(machine), \(cores) cores, \(String(format: "%.0f", memory)) GiB, Linux \(kernel)"
}

if let path = options.markdownPath {
    let date = ISO8601DateFormatter().string(from: Date())
    var lines = [
        "# Benchmarks",
        "",
        "Generated by `make bench` (release build of `layout-bench`); do not edit by hand.",
        "",
        "- date: \(date)",
        "- machine: \(machineDescription())",
        "- toolchain: \(options.toolchain)",
        "- command: `make bench` (`.build/release/layout-bench --markdown BENCHMARKS.md`)",
        "- each figure: median of \(options.repetitions) repetitions after one warm-up, spread min–max",
        "",
        "These machines are shared and noisy: read ratios between rows of one run, not absolute",
        "times across runs.",
        "",
        "| measurement | n | median | unit | spread |",
        "|---|---:|---:|---|---|",
    ]
    for result in results {
        let (low, high) = result.spread
        lines.append(
            "| \(result.name) | \(result.n) | \(String(format: "%.3f", result.median)) | \(result.unit) | "
                + "\(String(format: "%.3f", low))–\(String(format: "%.3f", high)) |")
    }
    lines.append("")
    lines.append("## Scaling")
    lines.append("")
    lines.append("Median at the largest n over the median at n = 10,000 (or the smallest n measured), in")
    lines.append("each row's own unit. 1.0 means the unit cost does not grow with n: linear total cost for")
    lines.append("ns/item rows, cost independent of n for µs/query, µs/lookup, µs/op and µs/layout rows")
    lines.append("(O(log n) structures grow slowly, and cache misses grow with the working set).")
    lines.append("")
    let names = results.reduce(into: [String]()) { if !$0.contains($1.name) { $0.append($1.name) } }
    for name in names {
        let rows = results.filter { $0.name == name }
        guard let last = rows.last, let base = rows.first(where: { $0.n == 10_000 }) ?? rows.first, base.n != last.n else {
            continue
        }
        lines.append("- \(name): \(String(format: "%.2f", last.median / base.median))× (n \(base.n) → \(last.n))")
    }
    lines.append("")
    lines.append("## Notes")
    lines.append("")
    lines.append("- View rows include everything one mutation costs: validation, the strategy's update,")
    lines.append("  anchoring and the window delta (two window queries with a 200 pt margin and a diff).")
    lines.append("- The view rows use one section of n items: flow with estimated sizes (varying widths, so")
    lines.append("  an edit re-flows a few lines), collapsible collapsed with about 1,000 selected items.")
    lines.append("- Model build costs more per item than a plain array would: items are chunked, and each")
    lines.append("  chunk keeps its ids' hashes, which is what makes an insert or delete O(log n + chunk).")
    lines.append("")
    try! lines.joined(separator: "\n").write(toFile: path, atomically: true, encoding: .utf8)
    print("\nwrote \(path)")
}
if sink == 42 { print("") }  // keeps the optimiser from discarding measured work
