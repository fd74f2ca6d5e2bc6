import CLayoutPlugin
import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
@testable import LayoutPlugins
import LayoutPluginSDK
import StrategyCodec
import TestSupport
import Testing
import Waterfall

/// The SDK and the daemon's adapter against each other in one process: Swift strategies
/// exported through the C table exactly as a plugin's entry point does, then driven by
/// `PluginStrategy` without `dlopen` (test_plugins.py loads real files).
@Suite("plugins in process")
struct InProcessPluginTests {
    /// What the loader builds from a plugin's table, for the first strategy of `type`'s export.
    static func load(_ type: any PluginLayout.Type) throws -> PluginStrategyType {
        let plugin = LayoutPlugin.export(type).assumingMemoryBound(to: layoutd_plugin.self)
        #expect(plugin.pointee.abi_version == LAYOUTD_PLUGIN_ABI_VERSION)
        let table = plugin.pointee.strategies[0]
        let descriptor = try StrategyJSON.descriptor(from: String(cString: table.descriptor_json))
        let effects = (0..<table.effect_count).map { String(cString: table.effect_names[$0]!) }
        return PluginStrategyType(table: table, descriptor: descriptor, effectNames: effects, path: "in-process", warn: { _ in })
    }

    static func registry(_ types: [any PluginLayout.Type]) throws -> StrategyRegistry {
        var registry = StrategyRegistry.builtIn
        for type in types {
            let loaded = try load(type)
            try registry.register(descriptor: loaded.descriptor, origin: .plugin(path: "in-process")) { (parameters) throws(LayoutError) in
                try loaded.make(parameters)
            }
        }
        return registry
    }

    @Test("exported strategies pass layoutd's probe check")
    func probe() throws {
        #expect(ProbeCheck.run(try Self.load(Rows.self)) == nil)
        #expect(ProbeCheck.run(try Self.load(Columns.self)) == nil)
    }

    @Test("an items_changed hook that forgets to update is caught by the probe check")
    func brokenHook() throws {
        #expect(ProbeCheck.run(try Self.load(ForgetfulRows.self)) == "items_changed disagrees with a full layout after a selection")
    }

    @Test("through the adapter, a plugin lays out what the same algorithm built in lays out")
    func sameAsBuiltIn() throws {
        let registry = try Self.registry([Columns.self])
        var builtIn = StrategyRegistry.builtIn
        try builtIn.register(WaterfallLayout.self)
        var random = SeededGenerator(seed: 7)
        for _ in 0..<40 {
            let sections = (0..<Int.random(in: 1...4, using: &random)).map { section in
                SectionSpec(
                    id: "s\(section)",
                    items: (0..<Int.random(in: 0...60, using: &random)).map { item in
                        ItemSpec(id: "s\(section)-\(item)", size: Bool.random(using: &random) ? Size(width: Double.random(in: 0...200, using: &random), height: Double.random(in: 0...200, using: &random)) : nil)
                    },
                    headerSize: Bool.random(using: &random) ? Size(width: 0, height: Double.random(in: 0...50, using: &random)) : nil)
            }
            let parameters: [String: ParameterValue] = ["columnCount": .integer(Int.random(in: 1...5, using: &random))]
            let viewport = Viewport(size: Size(width: Double.random(in: 100...800, using: &random), height: 600))
            let model = try CollectionModel(sections: sections)
            let plugin = try Layout(strategy: registry.makeStrategy(named: "columns", parameters: parameters), model: model, viewport: viewport)
            let native = try Layout(strategy: builtIn.makeStrategy(named: "waterfall", parameters: parameters), model: model, viewport: viewport)
            let everything = Rect(x: -1, y: -1, width: 1e5, height: 1e7)
            let fromPlugin = plugin.elements(in: everything).sorted { $0.key < $1.key }.map { ($0.key, $0.frame) }
            let fromNative = native.elements(in: everything).sorted { $0.key < $1.key }.map { ($0.key, $0.frame) }
            #expect(fromPlugin.map(\.0) == fromNative.map(\.0))
            #expect(fromPlugin.map(\.1) == fromNative.map(\.1))
            #expect(plugin.contentSize == native.contentSize)
        }
    }

    @Test("random mutations through a plugin: the deltas keep a mirror equal to a full recompute", arguments: 0..<UInt64(40))
    func mirror(seed: UInt64) throws {
        let registry = try Self.registry([Rows.self, Columns.self])
        for strategy in ["rows", "columns"] {
            var fuzzer = ViewFuzzer(source: SeededGenerator(seed: seed))
            let failures = ViewChecks.run(&fuzzer, strategy: strategy, steps: 60, registry: registry)
            #expect(failures.isEmpty, "seed \(seed) \(strategy): \(failures.joined(separator: "\n"))")
        }
    }

    @Test("hit testing finds a plugin's cell where its transform carries it past its frame, and a neighbour by frames alone")
    func transformedHitTest() throws {
        let registry = try Self.registry([Magnified.self])
        let model = try CollectionModel(sections: [SectionSpec(id: "s", items: (0..<5).map { ItemSpec(id: "i\($0)") })])
        let layout = try Layout(strategy: registry.makeStrategy(named: "magnified"), model: model, viewport: Viewport(size: Size(width: 100, height: 500)))
        try layout.select(["i2"], mode: .set)
        // i2's frame is 0..<100 × 200..<300, scaled 2× around (50, 250): it covers 150..<350 and
        // is drawn over its neighbours.
        #expect(layout.strategy.transformOverhang == 50)
        #expect(layout.hitTest(Point(x: 50, y: 160))?.id == "i2", "over i1, inside i2's scaled area")
        #expect(layout.hitTest(Point(x: 50, y: 140))?.id == "i1")
        #expect(layout.hitTest(Point(x: 50, y: 349))?.id == "i2")
        try layout.select(["i2"], mode: .toggle)
        #expect(layout.strategy.transformOverhang == 0)
        #expect(layout.hitTest(Point(x: 50, y: 160))?.id == "i1")
        #expect(try layout.neighbor(of: "i1", direction: .down)?.id == "i2")
    }

    @Test("effects reach the attributes of cells, headers and footers by name; unset ones are absent")
    func effects() throws {
        let registry = try Self.registry([Rows.self])
        let model = try CollectionModel(sections: [
            SectionSpec(id: "a", items: [ItemSpec(id: "x"), ItemSpec(id: "y")], headerSize: Size(width: 0, height: 20), footerSize: Size(width: 0, height: 10)),
            SectionSpec(id: "b", items: [ItemSpec(id: "z")], headerSize: Size(width: 0, height: 20)),
        ])
        let layout = try Layout(strategy: registry.makeStrategy(named: "rows"), model: model, viewport: Viewport(size: Size(width: 100, height: 500)))
        #expect(layout.attributes(forItem: "z")?.effects == ["index": 2])
        #expect(layout.attributes(forSupplementary: .header, id: "b")?.effects == ["index": -2])
        #expect(layout.attributes(forSupplementary: .footer, id: "a")?.effects == [:])
        #expect(layout.attributes(forSupplementary: .footer, id: "b") == nil)
    }

    @Test("a refusal longer than the error buffer is cut at a character boundary")
    func longRefusal() throws {
        let type = try Self.load(Rows.self)
        do {
            _ = try type.make(try type.descriptor.resolve(["rowHeight": .number(13)]))
            Issue.record("13 was accepted")
        } catch {
            guard case .invalidParameter(let parameter, let reason) = error else { throw error }
            #expect(parameter == "rowHeight")
            #expect(reason.hasPrefix("é") && reason.utf8.count <= 255 - "rowHeight: ".utf8.count)
            #expect(reason.unicodeScalars.allSatisfy { $0 == "é" })
        }
    }
}

/// One column of rows with both incremental hooks; refuses a row height of 13 with a sentence
/// far longer than the error buffer.
final class Rows: PluginLayout {
    static let descriptor = StrategyDescriptor(
        name: "rows", summary: "rows",
        parameters: [
            ParameterDescription("rowHeight", .number(minimum: 1, maximum: 200), default: .number(44), "height of items without their own"),
            ParameterDescription("spacing", .number(minimum: 0, maximum: 50), default: .number(4), "gap between rows"),
        ])
    static let effectNames = ["index"]

    let defaultItemSize: Size
    let spacing: Double

    init(parameters: ResolvedParameters) throws(PluginError) {
        guard parameters.number("rowHeight") != 13 else { throw PluginError(parameter: "rowHeight", String(repeating: "é", count: 300)) }
        defaultItemSize = Size(width: 0, height: parameters.number("rowHeight"))
        spacing = parameters.number("spacing")
    }

    func layout(_ input: PluginInput, into output: inout PluginOutput) {
        var y = 0.0
        let width = input.viewport.size.width
        for section in 0..<input.sectionCount {
            let entry = input.section(section)
            if let header = entry.headerSize {
                output[header: section] = PluginAttributes(frame: Rect(x: 0, y: y, width: width, height: header.height))
                output.setEffect(0, to: Double(-1 - section), ofHeader: section)
                y += header.height
            }
            for item in entry.items {
                let height = input.size(ofItem: item).height
                output[item: item] = PluginAttributes(frame: Rect(x: 0, y: y, width: width, height: height), zIndex: input.isSelected(item) ? 1 : 0)
                output.setEffect(0, to: Double(item), ofItem: item)
                y += height + spacing
            }
            if let footer = entry.footerSize {
                output[footer: section] = PluginAttributes(frame: Rect(x: 0, y: y, width: width, height: footer.height))
                y += footer.height
            }
        }
        output.contentSize = Size(width: width, height: y)
    }

    func viewportChanged(_ input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        guard input.viewport.size.width != output.contentSize.width else { return .unchanged }
        layout(input, into: &output)
        return .updated
    }

    /// A selection only restacks; a size change moves everything after it, which a full layout
    /// does as well as anything.
    func itemsChanged(_ items: UnsafeBufferPointer<Int>, input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        for item in items {
            guard input.size(ofItem: item).height == output.frame(ofItem: item).height else { return .fullLayout }
            var attributes = output[item: item]
            attributes.zIndex = input.isSelected(item) ? 1 : 0
            output[item: item] = attributes
        }
        return .updated
    }
}

/// `Rows` whose selection hook claims an update it did not make.
final class ForgetfulRows: PluginLayout {
    static var descriptor: StrategyDescriptor { StrategyDescriptor(name: "forgetful", summary: "", parameters: Rows.descriptor.parameters) }
    static var effectNames: [String] { Rows.effectNames }
    let rows: Rows
    var defaultItemSize: Size { rows.defaultItemSize }
    init(parameters: ResolvedParameters) throws(PluginError) { rows = try Rows(parameters: parameters) }
    func layout(_ input: PluginInput, into output: inout PluginOutput) { rows.layout(input, into: &output) }
    func itemsChanged(_ items: UnsafeBufferPointer<Int>, input: PluginInput, output: inout PluginOutput) -> PluginUpdate { .updated }
}

/// The waterfall's own columns under another name, with no hooks: every change is a full layout.
final class Columns: PluginLayout {
    static var descriptor: StrategyDescriptor {
        StrategyDescriptor(name: "columns", summary: "waterfall columns", parameters: WaterfallParameters.descriptor.parameters)
    }
    let configuration: WaterfallParameters
    var defaultItemSize: Size { configuration.itemSize }
    init(parameters: ResolvedParameters) throws(PluginError) { configuration = WaterfallParameters(parameters) }

    func layout(_ input: PluginInput, into output: inout PluginOutput) {
        var columns = WaterfallColumns(parameters: configuration, width: WaterfallColumns.availableWidth(in: input.viewport))
        for index in 0..<input.sectionCount {
            let section = input.section(index)
            if let header = columns.beginSection(headerSize: section.headerSize) { output[header: index] = PluginAttributes(frame: header) }
            for item in section.items { output.setFrame(columns.place(input.size(ofItem: item)), ofItem: item) }
            if let footer = columns.endSection(footerSize: section.footerSize) { output[footer: index] = PluginAttributes(frame: footer) }
        }
        output.contentSize = columns.contentSize
    }
}

/// One column of 100 × 100 cells; a selected cell is drawn scaled 2× (on top).
final class Magnified: PluginLayout {
    static let descriptor = StrategyDescriptor(name: "magnified", summary: "a column; selected cells scaled 2×", parameters: [])
    static let effectNames: [String] = []
    let defaultItemSize = Size(width: 100, height: 100)

    init(parameters: ResolvedParameters) throws(PluginError) {}

    func layout(_ input: PluginInput, into output: inout PluginOutput) {
        output.contentSize = Size(width: 100, height: 100 * Double(input.itemCount))
        for index in 0..<input.itemCount {
            let selected = input.isSelected(index)
            output[item: index] = PluginAttributes(
                frame: Rect(x: 0, y: 100 * Double(index), width: 100, height: 100), zIndex: selected ? 1 : 0,
                transform: selected ? .scale(x: 2, y: 2) : .identity)
        }
        for section in 0..<input.sectionCount {
            output[header: section] = PluginAttributes(frame: .zero, isHidden: true)
            output[footer: section] = PluginAttributes(frame: .zero, isHidden: true)
        }
    }
}
