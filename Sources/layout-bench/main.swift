// layout-bench: the engine and wire measurements of `make bench`. Prints a table and, with
// --json FILE, writes one JSON line per measurement for scripts/bench.py, which adds the daemon
// and Taffy figures, computes the ratios and writes BENCHMARKS.md. Release builds only.
//
//   layout-bench [--json FILE] [--repetitions N] [--quick] [--counts 1000,100000] [--only GROUP]
//   layout-bench --memory N [--ids short|uuid]
//                                resident memory of a flow view of N items built by the engine,
//                                in a fresh process (what the model keeps; scripts/bench.py
//                                measures a release layoutd loaded through its socket beside it)
//
// Every figure is the median of several repetitions with its spread (min–max), measured in one
// run, so ratios between rows hold even on a noisy shared machine.
import Foundation
import LayoutEngine
import LayoutGeometry
import LayoutPlugins
import LayoutProtocol
import LayoutService
import Waterfall

struct Options {
    var jsonPath: String?
    var repetitions = 5
    var counts = [1_000, 10_000, 100_000, 1_000_000]
    var memoryItems: Int?
    /// For `--memory`: "short" ids (`item-123456`) or 36-character UUID-like ones.
    var memoryIDs = "short"
    /// Where the release waterfall plugin is (`make plugins CONFIG=release` puts it there).
    var pluginDirectory = ".build/plugins/release"
    /// Measure only this group (engine, view, plugins, textbook, wire); set-up still runs.
    var onlyGroup: String?

    init(arguments: [String]) {
        var iterator = arguments.dropFirst().makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json": jsonPath = iterator.next()
            case "--repetitions": repetitions = iterator.next().flatMap(Int.init) ?? repetitions
            case "--quick": counts = [1_000, 10_000]
            case "--memory": memoryItems = iterator.next().flatMap(Int.init) ?? 1_000_000
            case "--ids": memoryIDs = iterator.next() ?? memoryIDs
            case "--plugin-dir": pluginDirectory = iterator.next() ?? pluginDirectory
            case "--only": onlyGroup = iterator.next()
            case "--counts": counts = (iterator.next() ?? "").split(separator: ",").compactMap { Int($0) }
            default:
                FileHandle.standardError.write("layout-bench: unknown argument \(argument)\n".data(using: .utf8)!)
                exit(64)
            }
        }
    }
}

struct Measurement {
    var name: String
    var group: String
    var strategy: String
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

/// Runs `body` `repetitions` times after a warm-up; each sample is the elapsed time divided by
/// `units`, scaled by `scale` (1e9 for ns, 1e6 for µs).
@MainActor
func measure(
    _ name: String, group: String, strategy: String = "", n: Int, unit: String, scale: Double, per units: Int,
    repetitions: Int? = nil, _ body: () -> Void
) {
    if let only = options.onlyGroup, only != group { return }
    body()  // warm-up: page faults and lazy allocations stay out of the samples
    var samples = [Double]()
    for _ in 0..<(repetitions ?? options.repetitions) {
        samples.append(seconds(clock.measure(body)) * scale / Double(units))
    }
    let measurement = Measurement(name: name, group: group, strategy: strategy, n: n, unit: unit, samples: samples)
    results.append(measurement)
    let (low, high) = measurement.spread
    print(
        "\(name.padding(toLength: 56, withPad: " ", startingAt: 0)) n=\(String(n).padding(toLength: 8, withPad: " ", startingAt: 0)) "
            + "\(String(format: "%10.3f", measurement.median)) \(unit)  (\(String(format: "%.3f", low))–\(String(format: "%.3f", high)))")
}

/// The item sizes every comparison uses, Taffy's script included: widths 40–160, heights 30–120.
func benchSize(_ index: Int) -> Size {
    Size(width: Double(40 + (index * 37) % 121), height: Double(30 + (index * 53) % 91))
}

func variableSpecs(_ count: Int) -> [SectionSpec] {
    [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)", size: benchSize($0)) })]
}

func uniformSpecs(_ count: Int) -> [SectionSpec] {
    [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)") })]
}

func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
    let fields = text.split(separator: " ").compactMap { Int($0) }
    return fields.count > 1 ? fields[1] * Int(sysconf(Int32(_SC_PAGESIZE))) : 0
}

let phone = Viewport(size: Size(width: 390, height: 844))
let registry = StrategyRegistry.builtIn
var sink = 0

// MARK: Memory and loading (each configuration in its own process)

/// A 36-character id shaped like a UUID, the same for the same index in every run.
func uuidLikeID(_ index: Int) -> String {
    var state = UInt64(truncatingIfNeeded: index) &* 0x9E37_79B9_7F4A_7C15
    var hex = ""
    for position in 0..<32 {
        if [8, 12, 16, 20].contains(position) { hex += "-" }
        state = state &* 6364136223846793005 &+ 1442695040888963407
        hex += String(Int(state >> 60), radix: 16)
    }
    return hex
}

/// glibc's `malloc_trim`, which the Glibc module leaves out.
@_silgen_name("malloc_trim")
func mallocTrim(_ pad: Int) -> Int32

/// One memory row as a JSON line for scripts/bench.py (a single sample: the load is the run).
func printRow(_ name: String, group: String, n: Int, unit: String, value: Double) {
    var writer = JSONWriter()
    writer.write(.object([
        "name": .string(name), "group": .string(group), "strategy": .string("flow"), "n": .number(Double(n)), "unit": .string(unit),
        "median": .number(value), "low": .number(value), "high": .number(value),
    ]))
    print(String(decoding: writer.bytes, as: UTF8.self))
}

if let count = options.memoryItems {
    let uuids = options.memoryIDs == "uuid"
    // What start-up left freed but resident is not the model's: returned first.
    _ = mallocTrim(0)
    let before = residentBytes()
    var view: View? = {
        let specs = [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: uuids ? uuidLikeID($0) : "item-\($0)", size: benchSize($0)) })]
        return try! View(strategy: "flow", sections: specs, viewport: phone)
    }()
    // The specs are the input, not the model: what the view keeps is the question, so their
    // memory is returned before the reading. (What a daemon leaves resident is the question of
    // scripts/bench.py's layoutd rows, which trim nothing by hand.)
    _ = mallocTrim(0)
    let after = residentBytes()
    sink &+= view?.model.numberOfItems ?? 0
    // The short-id row's name predates the UUID one; kept so runs compare.
    printRow(uuids ? "resident bytes per item (uuid ids, built by the engine)" : "resident bytes per item (flow view, variable sizes, string ids)",
             group: "memory", n: count, unit: "B/item", value: Double(after - before) / Double(count))
    view = nil
    exit(0)
}

print("layout-bench: median of \(options.repetitions) repetitions (min–max)\n")

// MARK: Engine, per strategy: full layout, a window query, and view operations

/// The two rows every layout gets: "LABEL: full layout" (the whole model laid out again, per
/// item; 3 repetitions at 1M) and "LABEL: elements(in: phone window)" (1,000 phone-sized
/// windows spread over the content, per query).
@MainActor
func measureFullLayoutAndWindows(_ layout: Layout, label: String, group: String, strategy: String, n count: Int) {
    measure("\(label): full layout", group: group, strategy: strategy, n: count, unit: "ns/item", scale: 1e9, per: count,
            repetitions: count >= 1_000_000 ? 3 : nil) {
        layout.replaceModel(layout.model)
    }
    let queries = 1_000
    let extent = max(0, layout.contentSize.height - phone.size.height)
    measure("\(label): elements(in: phone window)", group: group, strategy: strategy, n: count, unit: "µs/query", scale: 1e6, per: queries) {
        for step in 0..<queries {
            sink &+= layout.elements(in: Rect(x: 0, y: extent * Double(step) / Double(queries), width: 390, height: 844)).count
        }
    }
}

/// The parameters each strategy is measured with; collapsible runs collapsed with about 1,000
/// selected items in runs of up to four, as in the stacking-grid question.
let strategyParameters: [String: [String: ParameterValue]] = [
    "flow": [:], "collapsible": ["collapsed": .bool(true)], "ultravisual": [:], "display": ["mode": .string("grid")],
]

func stackingSelection(ids: [String]) -> [String] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15  // a fixed seed: every run selects the same items
    var selected = [String]()
    var seen = Set<Int>()
    while selected.count < min(1_000, ids.count / 4) {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        let start = Int(state >> 33) % max(1, ids.count - 4)
        let length = 1 + Int(state >> 20) % 4
        for index in start..<(start + length) where seen.insert(index).inserted { selected.append(ids[index]) }
    }
    return selected
}

for count in options.counts {
    for strategy in ["flow", "collapsible", "ultravisual", "display"] {
        let specs = strategy == "flow" ? variableSpecs(count) : uniformSpecs(count)
        let model = try! CollectionModel(sections: specs)
        let ids = (0..<count).map { "item-\($0)" }
        let layout = try! Layout(
            strategy: registry.makeStrategy(named: strategy, parameters: strategyParameters[strategy]!), model: model, viewport: phone)
        if strategy == "collapsible" { try! layout.select(stackingSelection(ids: ids), mode: .set) }
        measureFullLayoutAndWindows(layout, label: strategy, group: "engine", strategy: strategy, n: count)

        // Hit testing and keyboard moves at points and items spread over the whole content.
        let probes = 1_000
        let size = layout.contentSize
        measure("\(strategy): hitTest", group: "engine", strategy: strategy, n: count, unit: "µs/query", scale: 1e6, per: probes) {
            for probe in 0..<probes {
                let fraction = Double(probe) / Double(probes)
                sink &+= layout.hitTest(Point(x: size.width * Double(probe % 7) / 7 + 3, y: size.height * fraction))?.zIndex ?? 0
            }
        }
        // scrollTo's part in the engine: the target's frame and the offset that places it
        // (what the view then scrolls to and diffs the window for, measured with the view).
        let alignments: [ScrollAlignment] = [.start, .center, .end, .nearest]
        measure("\(strategy): scrollTo offset of a random item", group: "engine", strategy: strategy, n: count, unit: "µs/query", scale: 1e6, per: probes) {
            var state: UInt64 = 0x5C0_11E0
            for probe in 0..<probes {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let frame = layout.attributes(forItem: ids[Int(state >> 33) % count])!.frame
                sink &+= Int(layout.scrollPlacement(for: frame, align: alignments[probe % 4]).offset.y)
            }
        }
        measure("\(strategy): neighbor down", group: "engine", strategy: strategy, n: count, unit: "µs/query", scale: 1e6, per: probes) {
            for probe in 0..<probes {
                sink &+= (try! layout.neighbor(of: ids[probe * (count / probes)], direction: .down))?.zIndex ?? 0
            }
        }

        // A view: what one mutation costs end to end (validation, the strategy's update,
        // anchoring, the window delta with a 200 pt margin).
        let view = try! View(
            strategy: strategy, parameters: strategyParameters[strategy]!,
            sections: [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)", estimatedSize: strategy == "flow" ? benchSize($0) : nil) })],
            viewport: phone, windowMargin: 200)
        if strategy == "collapsible" { try! view.select(stackingSelection(ids: ids), mode: .set) }
        let viewExtent = view.layout.contentSize.height
        // A finger's scroll: 16 pt a frame, 100 frames down from the middle and 100 back up, so
        // every n scrolls the same distance and a tick moves the window by one step (rows
        // enter and leave at the edges) rather than jumping.
        let middle = max(0, viewExtent / 2 - 800)
        let ticks = 2_000
        measure("\(strategy): scroll tick", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: ticks) {
            for tick in 0..<ticks {
                let frame = tick % 200
                let step = Double(frame < 100 ? frame : 200 - frame)
                sink &+= try! view.scroll(to: Point(x: 0, y: middle + 16 * step)).entered.count
            }
        }
        // A jump: every offset a quarter of the content away from the last, so the whole window
        // is replaced each time (at 1k items the content is still many windows tall).
        let jumps = 200
        measure("\(strategy): jump scroll", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: jumps) {
            for jump in 0..<jumps {
                let quarter = Double(1 + 2 * (jump % 2)) / 4
                sink &+= try! view.scroll(to: Point(x: 0, y: viewExtent * quarter + Double(jump))).entered.count
            }
        }
        // scrollTo an item anywhere (the target's frame, the scroll and the window delta),
        // cycling the alignments; then back to the middle.
        let targets = 200
        measure("\(strategy): scrollTo a random item", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: targets) {
            var state: UInt64 = 0x5C0_11E0
            for target in 0..<targets {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                let index = Int(state >> 33) % count
                sink &+= try! view.scrollTo(ElementKey(kind: .cell, id: "item-\(index)"), align: alignments[target % 4]).entered.count
            }
        }
        try! view.scroll(to: Point(x: 0, y: viewExtent / 2))
        // An interactive move: a finger dragging an item from the middle of the screen in 16 pt
        // steps, back and forth across and down the viewport, so the target changes every few
        // steps (a model move, the strategy's re-flow and the window delta each time).
        let drags = 2_000
        let grabbed = view.layout.elements(in: view.viewport.bounds).first { $0.kind == .cell }!.id
        try! view.beginMove(grabbed)
        measure("\(strategy): updateMove (a finger's 16 pt step)", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: drags) {
            for drag in 0..<drags {
                let frame = drag % 200
                let step = Double(frame < 100 ? frame : 200 - frame)
                let x = 30 + (step * 16).truncatingRemainder(dividingBy: 330)
                sink &+= try! view.updateMove(to: Point(x: x, y: 200 + 4 * step)).changed.count
            }
        }
        try! view.endMove(commit: false)
        let toggles = 200
        measure("\(strategy): selection toggle", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: toggles) {
            for index in 0..<toggles {
                sink &+= try! view.select(["item-\(index * (count / toggles))"], mode: .toggle).changed.count
            }
        }
        let slow = 20
        var grow = 0.0
        // The cells on screen, as a client measures them after it renders them.
        let visible = view.snapshot().filter { $0.kind == .cell }.map(\.id)
        measure("\(strategy): one measured size inside the window", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                grow += 1
                let id = visible[index % visible.count]
                sink &+= try! view.measure([(id, Size(width: 60, height: 40 + grow.truncatingRemainder(dividingBy: 30)))]).changed.count
            }
        }
        measure("\(strategy): one measured size above the window", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                grow += 1
                sink &+= try! view.measure([("item-\(index * 7)", Size(width: 60, height: 40 + grow))]).changed.count
            }
        }
        var batched = 0
        measure("\(strategy): 10-item batch above the window (anchored)", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for _ in 0..<slow {
                let items = (0..<10).map { _ in
                    batched += 1
                    return ItemSpec(id: "batch-\(batched)")
                }
                sink &+= try! view.performBatch([.insertItems(items, section: "main", at: count / 4)]).changed.count
            }
        }
        var inserted = 0
        measure("\(strategy): insert at front", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for _ in 0..<slow {
                inserted += 1
                sink &+= try! view.performBatch([.insertItems([ItemSpec(id: "new-\(inserted)")], section: "main", at: 0)]).changed.count
            }
        }
        // Dry runs (`"dryRun": true`): the same mutations on a copy of the view, which shares
        // the view's storage until the mutation writes to it; the view itself never changes.
        measure("\(strategy): dry run: scroll tick", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: toggles) {
            for tick in 0..<toggles {
                sink &+= try! view.copy().scroll(to: Point(x: 0, y: viewExtent * Double(tick) / Double(toggles))).entered.count
            }
        }
        measure("\(strategy): dry run: selection toggle", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                sink &+= try! view.copy().select(["item-\(index * (count / slow))"], mode: .toggle).changed.count
            }
        }
        measure("\(strategy): dry run: insert at front", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                sink &+= try! view.copy().performBatch([.insertItems([ItemSpec(id: "dry-\(index)")], section: "main", at: 0)]).changed.count
            }
        }
        var deleted = 0
        measure("\(strategy): delete one item", group: "view", strategy: strategy, n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for _ in 0..<slow {
                deleted += 1
                sink &+= try! view.performBatch([.deleteItems(["item-\(count - deleted)"])]).changed.count
            }
        }
    }
}

// MARK: Compositional: mixed section layouts

// One view of four section layouts in turn, as an app store's front page mixes them: a grid
// with headers, badges and a background; an inset-grouped list of measured rows; a paging
// carousel (orthogonal) of two-row groups; the seed's fixed-spacing tags of measured widths.
// The grid's rows and the carousel's columns are `subitem` + `count` (equal copies filling the
// group), the layout these figures have been measured with since before `repeatingSubitem`
// took iOS 16's meaning.
// 1,000 sections (100 items each at 100k; 1,000 each at 1M), fewer for the small counts.

/// A compositional dimension, size and spacing as the description's JSON has them.
func dimension(_ kind: String, _ value: Double) -> ParameterTree { .object([kind: .number(value)]) }
func layoutSize(_ width: ParameterTree, _ height: ParameterTree) -> ParameterTree { .object(["width": width, "height": height]) }
func boundary(_ kind: String, height: Double, alignment: String) -> ParameterTree {
    .object(["kind": .string(kind), "size": layoutSize(dimension("fractionalWidth", 1), dimension("absolute", height)), "alignment": .string(alignment)])
}

let mixedSectionLayouts: [ParameterTree] = [
    .object([
        "group": .object([
            "direction": .string("horizontal"), "size": layoutSize(dimension("fractionalWidth", 1), dimension("absolute", 120)),
            "subitem": .object([
                "size": layoutSize(dimension("fractionalWidth", 1.0 / 3), dimension("fractionalHeight", 1)),
                "supplementaryItems": .array([.object([
                    "size": layoutSize(dimension("absolute", 20), dimension("absolute", 20)),
                    "containerAnchor": .object(["edges": .array([.string("top"), .string("trailing")]),
                                                "fractionalOffset": .object(["x": .number(0.3), "y": .number(-0.3)])]),
                ])]),
            ]),
            "count": .number(3), "interItemSpacing": .number(4),
        ]),
        "interGroupSpacing": .number(4), "contentInsets": .object(["top": .number(8), "leading": .number(16), "bottom": .number(8), "trailing": .number(16)]),
        "boundarySupplementaryItems": .array([boundary("header", height: 44, alignment: "top")]),
        "decorationItems": .array([.object(["contentInsets": .object(["leading": .number(8), "trailing": .number(8)])])]),
    ]),
    .object(["list": .object(["appearance": .string("insetGrouped"), "headerMode": .string("supplementary")])]),
    .object([
        "group": .object([
            "direction": .string("vertical"), "size": layoutSize(dimension("absolute", 280), dimension("absolute", 180)),
            "subitem": .object(["size": layoutSize(dimension("fractionalWidth", 1), dimension("fractionalHeight", 0.5))]),
            "count": .number(2), "interItemSpacing": .number(8),
        ]),
        "interGroupSpacing": .number(10), "contentInsets": .object(["leading": .number(16), "trailing": .number(16)]),
        "orthogonalScrollingBehavior": .string("groupPaging"),
        "boundarySupplementaryItems": .array([boundary("header", height: 44, alignment: "topLeading")]),
    ]),
    .object([
        "group": .object([
            "direction": .string("horizontal"), "size": layoutSize(dimension("fractionalWidth", 1), dimension("estimated", 100)),
            "subitems": .array([.object([
                "size": layoutSize(dimension("estimated", 50), dimension("estimated", 50)),
                "edgeSpacing": .object(["leading": .number(8), "top": .number(4), "trailing": .number(8), "bottom": .number(4)]),
            ])]),
        ]),
    ]),
]

/// Section `index`'s layout: the grid is the default; the other three are named by section id.
func mixedParameters(sections: Int) -> [String: ParameterValue] {
    var byID = [String: ParameterTree]()
    for index in 0..<sections where index % 4 != 0 { byID["s\(index)"] = mixedSectionLayouts[index % 4] }
    return ["section": .tree(mixedSectionLayouts[0]), "sections": .tree(.object(byID)), "interSectionSpacing": .number(20)]
}

/// Lists and tags take their items' measured sizes (the tags' widths 40–160, the rows' heights
/// 30–120); grid and carousel items are sized by their description.
func mixedSpecs(_ count: Int, sections: Int) -> [SectionSpec] {
    let perSection = count / sections
    return (0..<sections).map { section in
        SectionSpec(id: "s\(section)", items: (0..<perSection).map { offset in
            let index = section * perSection + offset
            let size = benchSize(index)
            return ItemSpec(id: "item-\(index)", size: section % 2 == 1 ? Size(width: size.width, height: section % 4 == 3 ? 36 : size.height) : nil)
        })
    }
}

for count in options.counts {
    let sectionCount = min(1_000, max(4, count / 100))
    let parameters = mixedParameters(sections: sectionCount)
    let name = "compositional, \(sectionCount) mixed sections"
    let layout = try! Layout(
        strategy: registry.makeStrategy(named: "compositional", parameters: parameters),
        model: try! CollectionModel(sections: mixedSpecs(count, sections: sectionCount)), viewport: phone)
    measureFullLayoutAndWindows(layout, label: name, group: "engine", strategy: "compositional", n: count)

    let view = try! View(strategy: "compositional", parameters: parameters, sections: mixedSpecs(count, sections: sectionCount),
                         viewport: phone, windowMargin: 200)
    // The middle of the content, where a carousel's section starts just below the top: its
    // cells are in the window for every tick of the section scroll.
    let carouselIndex = sectionCount / 2 / 4 * 4 + 2
    let carousel = "s\(carouselIndex)"
    let carouselTop = view.layout.attributes(forItem: "item-\(carouselIndex * (count / sectionCount))")!.frame.origin.y
    let middle = max(0, carouselTop - 100)
    let ticks = 2_000
    measure("\(name): scroll tick", group: "view", strategy: "compositional", n: count, unit: "µs/op", scale: 1e6, per: ticks) {
        for tick in 0..<ticks {
            let frame = tick % 200
            let step = Double(frame < 100 ? frame : 200 - frame)
            sink &+= try! view.scroll(to: Point(x: 0, y: middle + 16 * step)).entered.count
        }
    }
    try! view.scroll(to: Point(x: 0, y: middle))
    // A finger across the carousel: 16 pt a frame, 100 frames along and 100 back, from the
    // carousel's middle (its cells enter and leave at the viewport's sides).
    let sectionMiddle = Double(count / sectionCount / 2) * 145
    measure("\(name): section scroll (a carousel's 16 pt step)", group: "view", strategy: "compositional", n: count, unit: "µs/op", scale: 1e6, per: ticks) {
        for tick in 0..<ticks {
            let frame = tick % 200
            let step = Double(frame < 100 ? frame : 200 - frame)
            sink &+= try! view.scrollSection(carousel, to: sectionMiddle + 16 * step).entered.count
        }
    }
    let flicks = 200
    measure("\(name): section scroll end (groupPaging snap)", group: "view", strategy: "compositional", n: count, unit: "µs/op", scale: 1e6, per: flicks) {
        for flick in 0..<flicks {
            sink &+= try! view.scrollSectionEnd(carousel, proposed: sectionMiddle + Double(flick % 7) * 40, velocity: flick % 2 == 0 ? 600 : -600).entered.count
        }
    }
    let slow = 20
    var grow = 0.0
    let visible = view.snapshot().filter { $0.kind == .cell && $0.section % 2 == 1 }.map(\.id)
    if !visible.isEmpty {
        measure("\(name): one measured size inside the window", group: "view", strategy: "compositional", n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
            for index in 0..<slow {
                grow += 1
                sink &+= try! view.measure([(visible[index % visible.count], Size(width: 60, height: 36 + grow.truncatingRemainder(dividingBy: 30)))]).changed.count
            }
        }
    }
    var inserted = 0
    measure("\(name): insert at front of a section", group: "view", strategy: "compositional", n: count, unit: "µs/op", scale: 1e6, per: slow, repetitions: 3) {
        for _ in 0..<slow {
            inserted += 1
            sink &+= try! view.performBatch([.insertItems([ItemSpec(id: "new-\(inserted)")], section: carousel, at: 0)]).changed.count
        }
    }
}

// MARK: Interactive transitions: a pinch from a flow grid to a display list on a phone

// One `updateTransition` is what every frame of the gesture costs: the stored pairs of both
// windows blended, no query. A 375 × 667 viewport with the 200 pt margin of the view rows, in the
// middle of the content; the scroll during the transition re-plans (both layouts queried).
for count in options.counts {
    let phoneSE = Viewport(size: Size(width: 375, height: 667))
    let view = try! View(
        strategy: "flow", parameters: ["itemSize": .size(Size(width: 120, height: 120)), "minimumInteritemSpacing": .number(4), "minimumLineSpacing": .number(4)],
        sections: [SectionSpec(id: "main", items: (0..<count).map { ItemSpec(id: "item-\($0)") })], viewport: phoneSE, windowMargin: 200)
    let middle = view.layout.contentSize.height / 2
    try! view.scroll(to: Point(x: 0, y: middle))
    let target: [String: ParameterValue] = ["mode": .string("list"), "rowHeight": .number(64)]
    measure("flow grid to display list: beginTransition (375×667)", group: "view", strategy: "flow", n: count, unit: "µs/op", scale: 1e6, per: 1,
            repetitions: count >= 1_000_000 ? 3 : nil) {
        sink &+= try! view.beginTransition(to: "display", parameters: target).pairs.count
        try! view.endTransition(commit: false)
    }
    _ = try! view.beginTransition(to: "display", parameters: target)
    let frames = 2_000
    measure("flow grid to display list: updateTransition (375×667)", group: "view", strategy: "flow", n: count, unit: "µs/op", scale: 1e6, per: frames) {
        for frame in 0..<frames {
            sink &+= try! view.updateTransition(progress: Double(frame % 101) / 100).elements.count
        }
    }
    let ticks = 200
    measure("flow grid to display list: scroll during the transition", group: "view", strategy: "flow", n: count, unit: "µs/op", scale: 1e6, per: ticks) {
        for tick in 0..<ticks {
            let step = Double(tick % 100 < 50 ? tick % 100 : 100 - tick % 100)
            sink &+= try! view.scroll(to: Point(x: 0, y: middle + 16 * step)).interactiveTransition!.pairs.count
        }
    }
    try! view.endTransition(commit: false)
}

// MARK: Plugins: the waterfall through the C ABI beside the same algorithm built in

// The same `WaterfallColumns` code on both sides: the built-in `WaterfallLayout` reads the
// model directly; the plugin gets the sizes copied into the ABI's arrays and its frames read
// back and indexed by `PluginStrategy`. The difference is what the ABI costs.
let pluginRegistry = PluginLoader { _, message in print("plugin loader: \(message)") }.scan([options.pluginDirectory], base: StrategyRegistry()).registry
if pluginRegistry.descriptor(named: "waterfall") == nil {
    print("waterfall plugin not found in \(options.pluginDirectory) (make plugins CONFIG=release): plugin rows skipped")
} else {
    var builtIn = StrategyRegistry()
    try! builtIn.register(WaterfallLayout.self)
    let waterfallParameters: [String: ParameterValue] = ["columnCount": .integer(3)]
    for count in options.counts where count <= 100_000 {
        let model = try! CollectionModel(sections: variableSpecs(count))
        for (side, registry) in [("built in", builtIn), ("plugin", pluginRegistry)] {
            let layout = try! Layout(strategy: registry.makeStrategy(named: "waterfall", parameters: waterfallParameters), model: model, viewport: phone)
            measureFullLayoutAndWindows(layout, label: "waterfall \(side)", group: "plugins", strategy: "waterfall", n: count)
        }
    }
}

// MARK: The same flow workload as Taffy's script: fixed spacing 10, width 390

for count in options.counts {
    let layout = try! Layout(
        strategy: registry.makeStrategy(
            named: "flow",
            parameters: ["spacingMode": .string("fixed"), "minimumInteritemSpacing": .number(10), "minimumLineSpacing": .number(10), "itemAlignment": .string("start")]),
        model: try! CollectionModel(sections: variableSpecs(count)), viewport: phone)
    measure("flow, Taffy's workload: full layout", group: "taffy", strategy: "flow", n: count, unit: "ns/item", scale: 1e9, per: count,
            repetitions: count >= 1_000_000 ? 3 : nil) {
        layout.replaceModel(layout.model)
    }
    var grow = 0.0
    let changes = 20
    measure("flow, Taffy's workload: relayout after one size change", group: "taffy", strategy: "flow", n: count, unit: "µs/op", scale: 1e6, per: changes) {
        for index in 0..<changes {
            grow += 1
            sink &+= try! layout.applyMeasurements([("item-\(count / 2 + index)", Size(width: 50, height: 40 + grow.truncatingRemainder(dividingBy: 50)))]).count
        }
    }
}

// MARK: The textbook approach (the stacking-grid answer and the tutorials)

/// What the tutorials do: an array of attribute objects rebuilt in prepare, selection looked up
/// with `Array.contains`, rect queries filtering every item.
final class TextbookAttributes {
    var index: Int
    var frame: Rect
    var zIndex: Int
    init(index: Int, frame: Rect, zIndex: Int) {
        self.index = index
        self.frame = frame
        self.zIndex = zIndex
    }
}

final class TextbookStackingLayout {
    let ids: [String]
    var selected: [String]
    var cache: [TextbookAttributes] = []
    let itemSize = Size(width: 50, height: 50)
    let spacing = 8.0
    let width = 390.0

    init(ids: [String], selected: [String]) {
        self.ids = ids
        self.selected = selected
    }

    func prepare() {
        cache = []
        let columns = Int((width + spacing) / (itemSize.width + spacing))
        var slot = 0
        var previousSelected = false
        var stackFrame = Rect(x: 0, y: 0, width: 0, height: 0)
        for (index, id) in ids.enumerated() {
            let isSelected = selected.contains(id)
            if isSelected, previousSelected {
                // A run of selected items stacks onto its first one.
                cache.append(TextbookAttributes(index: index, frame: stackFrame, zIndex: index))
                continue
            }
            let frame = Rect(
                x: Double(slot % columns) * (itemSize.width + spacing), y: Double(slot / columns) * (itemSize.height + spacing),
                width: itemSize.width, height: itemSize.height)
            cache.append(TextbookAttributes(index: index, frame: frame, zIndex: index))
            stackFrame = frame
            previousSelected = isSelected
            slot += 1
        }
    }

    func elements(in rect: Rect) -> [TextbookAttributes] { cache.filter { $0.frame.intersects(rect) } }

    func toggle(_ id: String) {
        if let index = selected.firstIndex(of: id) { selected.remove(at: index) } else { selected.append(id) }
        prepare()
    }
}

do {
    let count = 30_000
    let ids = (0..<count).map { "item-\($0)" }
    let selected = stackingSelection(ids: ids)
    let textbook = TextbookStackingLayout(ids: ids, selected: selected)
    measure("textbook stacking grid: prepare (1,000 selected)", group: "textbook", n: count, unit: "µs/op", scale: 1e6, per: 1, repetitions: 3) {
        textbook.prepare()
    }
    let toggled = (0..<5).map { ids[$0 * 5_000 + 17] }
    measure("textbook stacking grid: selection toggle (a full prepare)", group: "textbook", n: count, unit: "µs/op", scale: 1e6, per: toggled.count, repetitions: 3) {
        for id in toggled { textbook.toggle(id) }
    }
    let engine = try! Layout(
        strategy: registry.makeStrategy(named: "collapsible", parameters: ["collapsed": .bool(true), "itemSize": .size(Size(width: 50, height: 50))]),
        model: try! CollectionModel(sections: uniformSpecs(count)), viewport: phone)
    try! engine.select(selected, mode: .set)
    measure("layoutd collapsible: full layout (1,000 selected)", group: "textbook", strategy: "collapsible", n: count, unit: "µs/op", scale: 1e6, per: 1) {
        engine.replaceModel(engine.model)
    }
    let toggles = (0..<2_000).map { ids[($0 * 7_919) % count] }
    measure("layoutd collapsible: selection toggle", group: "textbook", strategy: "collapsible", n: count, unit: "µs/op", scale: 1e6, per: toggles.count) {
        for id in toggles { try! engine.select([id], mode: .toggle) }
    }
}

// MARK: The wire: our JSON coders against Foundation's, on the real wire types

struct CodableFrame: Codable { var x, y, width, height: Double }
struct CodableAttributes: Codable {
    var id: String
    var kind: String
    var section: Int
    var item: Int
    var frame: CodableFrame
    var zIndex: Int
    var alpha: Double
    var hidden: Bool
}
struct CodablePoint: Codable { var x, y: Double }
struct CodableScrollParams: Codable { var view: String; var offset: CodablePoint }
struct CodableScrollRequest: Codable { var id: Int; var method: String; var params: CodableScrollParams }

do {
    let count = 100
    let attributes = (0..<count).map { index in
        WireAttributes(
            id: "item-\(index + 50_000)", kind: "cell", section: 0, item: index + 50_000,
            frame: Rect(x: Double(index % 3) * 130, y: 2_000 + Double(index / 3) * 130.5, width: 120, height: 120.5))
    }
    let batches = 200
    measure("encode attributes (our JSONWriter, direct: what replies use)", group: "wire", n: count, unit: "µs/attribute", scale: 1e6, per: count * batches) {
        for _ in 0..<batches {
            var writer = JSONWriter(capacity: 16_384)
            for attribute in attributes { writer.write(attribute) }
            sink &+= writer.finish().count
        }
    }
    measure("encode attributes (the previous JSONWriter, direct, before issue 19)", group: "wire", n: count, unit: "µs/attribute", scale: 1e6, per: count * batches) {
        for _ in 0..<batches {
            var writer = LegacyJSONWriter(capacity: 16_384)
            for attribute in attributes { writer.write(attribute) }
            sink &+= writer.bytes.count
        }
    }
    measure("encode attributes (our JSONWriter through a JSONValue tree)", group: "wire", n: count, unit: "µs/attribute", scale: 1e6, per: count * batches) {
        for _ in 0..<batches {
            var writer = JSONWriter(capacity: 16_384)
            writer.write(.array(attributes.map(\.json)))
            sink &+= writer.finish().count
        }
    }
    measure("a reply line of 100 attributes: envelope, result and newline in one buffer", group: "wire", n: count, unit: "µs/reply", scale: 1e6, per: batches) {
        for _ in 0..<batches {
            let line = Envelope.result(id: .number(4711), capacity: 200 * count) { writer in
                writer.append(UInt8(ascii: "["))
                for (index, attribute) in attributes.enumerated() {
                    if index > 0 { writer.append(UInt8(ascii: ",")) }
                    writer.write(attribute)
                }
                writer.append(UInt8(ascii: "]"))
            }
            sink &+= line.count
        }
    }
    let codable = attributes.map { attribute in
        CodableAttributes(
            id: attribute.id, kind: attribute.kind, section: attribute.section, item: attribute.item ?? 0,
            frame: CodableFrame(x: attribute.frame.origin.x, y: attribute.frame.origin.y, width: attribute.frame.size.width, height: attribute.frame.size.height),
            zIndex: attribute.zIndex, alpha: attribute.alpha, hidden: attribute.hidden)
    }
    let encoder = JSONEncoder()
    measure("encode attributes (Foundation JSONEncoder)", group: "wire", n: count, unit: "µs/attribute", scale: 1e6, per: count * 20) {
        for _ in 0..<20 { sink &+= (try! encoder.encode(codable)).count }
    }
    let line = Array(#"{"id":4711,"method":"view.scroll","params":{"view":"photos","offset":{"x":0,"y":1234.5}}}"#.utf8)
    let requests = 20_000
    measure("decode a view.scroll request (our parser and params reader)", group: "wire", n: 1, unit: "µs/request", scale: 1e6, per: requests) {
        for _ in 0..<requests {
            let request = try! Request.decode(line)
            sink &+= (try! HotRequest(request))!.options.view.utf8.count
        }
    }
    measure("decode a view.scroll request (byte decoder: HotRequest.decode)", group: "wire", n: 1, unit: "µs/request", scale: 1e6, per: requests) {
        for _ in 0..<requests {
            guard case .scroll(let params)? = HotRequest.decode(line)?.params else { fatalError("the byte decoder refused the bench's line") }
            sink &+= Int(params.offset.y) &+ params.options.view.utf8.count
        }
    }
    let update = Array(#"{"id":9,"method":"view.update","params":{"view":"photos","updates":[{"op":"insertItems","section":"s","at":0,"items":[{"id":"n1","size":{"width":100,"height":120.5}},{"id":"n2"}]},{"op":"deleteItems","ids":["a","b","c"]}]}}"#.utf8)
    measure("decode a view.update request of 2 operations (our parser and params reader)", group: "wire", n: 1, unit: "µs/request", scale: 1e6, per: requests / 4) {
        for _ in 0..<(requests / 4) {
            sink &+= (try! HotRequest(try! Request.decode(update)))!.options.view.utf8.count
        }
    }
    measure("decode a view.update request of 2 operations (byte decoder)", group: "wire", n: 1, unit: "µs/request", scale: 1e6, per: requests / 4) {
        for _ in 0..<(requests / 4) { sink &+= HotRequest.decode(update)!.options.view.utf8.count }
    }
    let decoder = JSONDecoder()
    let data = Data(line)
    measure("decode a view.scroll request (Foundation JSONDecoder)", group: "wire", n: 1, unit: "µs/request", scale: 1e6, per: 2_000) {
        for _ in 0..<2_000 { sink &+= Int((try! decoder.decode(CodableScrollRequest.self, from: data)).params.offset.y) }
    }
}

// MARK: Parse cost against line size: hostile shapes

/// One line of about `size` bytes of each shape a hostile client might send. Each is parsed
/// (or refused, where a limit applies: keys per object, nesting) in time linear in its size,
/// so the ns/byte of one shape stays flat from 64 KiB to 1 MiB.
func hostileLine(_ shape: String, size: Int) -> [UInt8] {
    var text = ""
    switch shape {
    case "object of 32k keys":
        // Refused at key 1025: the cost is what comes before the refusal, whatever follows.
        text = "{" + (0..<max(1, size / 12)).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
    case "objects of 1000 keys":
        let object = "{" + (0..<1000).map { "\"k\($0)\":1" }.joined(separator: ",") + "}"
        text = "[" + Array(repeating: object, count: max(1, size / object.utf8.count)).joined(separator: ",") + "]"
    case "long array of numbers":
        text = "[" + (0..<max(1, size / 8)).map { "\(Double($0) * 0.5)" }.joined(separator: ",") + "]"
    case "deep nesting":
        // Refused past depth 64; then only the framing limit bounds the line.
        text = String(repeating: "[", count: size / 2) + String(repeating: "]", count: size / 2)
    case "nested arrays at depth 60":
        let unit = String(repeating: "[", count: 60) + "1" + String(repeating: "]", count: 60)
        text = "[" + Array(repeating: unit, count: max(1, size / 122)).joined(separator: ",") + "]"
    case "long string with escapes":
        text = "\"" + String(repeating: #"ab\n\"\u00e9\ud83d\ude00"#, count: max(1, size / 25)) + "\""
    case "scroll params with long unknown keys":
        text = #"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":1},"#
            + (0..<1000).map { "\"\(String(repeating: "u", count: max(1, size / 1000 - 8)))\($0)\":null" }.joined(separator: ",") + "}}"
    default: fatalError(shape)
    }
    return Array(text.utf8)
}

for shape in ["object of 32k keys", "objects of 1000 keys", "long array of numbers", "deep nesting", "nested arrays at depth 60", "long string with escapes", "scroll params with long unknown keys"] {
    for size in [65_536, 262_144, 1_048_576] {
        let line = hostileLine(shape, size: size)
        let rounds = max(1, 4_000_000 / line.count)
        measure("parse \(shape) (\(line.count / 1024) KiB)", group: "wire-scaling", n: line.count, unit: "ns/byte", scale: 1e9, per: line.count * rounds) {
            for _ in 0..<rounds {
                if let request = try? Request.decode(line) {
                    sink &+= (try? ParamsReader(request.params).finish()) == nil ? 1 : 0
                } else {
                    sink &+= 1
                }
                sink &+= HotRequest.decode(line) == nil ? 1 : 0
            }
        }
    }
}

if let path = options.jsonPath {
    var lines = [String]()
    for result in results {
        let (low, high) = result.spread
        var writer = JSONWriter()
        writer.write(.object([
            "name": .string(result.name), "group": .string(result.group), "strategy": .string(result.strategy), "n": .number(Double(result.n)),
            "unit": .string(result.unit), "median": .number(result.median), "low": .number(low), "high": .number(high),
        ]))
        lines.append(String(decoding: writer.bytes, as: UTF8.self))
    }
    try! (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    print("\nwrote \(path)")
}
if sink == 42 { print("") }  // keeps the optimiser from discarding measured work
