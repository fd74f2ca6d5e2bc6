import CLayoutPlugin
import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import StrategyCodec
import Synchronization

/// One strategy a loaded plugin provides: its C table, its descriptor, its effect names. Kept
/// for as long as any instance may use it (plugins are never unloaded).
public final class PluginStrategyType: @unchecked Sendable {
    // @unchecked: the table and strings are read-only, owned by the loaded library, which
    // stays mapped for the life of the process.
    let table: layoutd_strategy
    public let descriptor: StrategyDescriptor
    public let effectNames: [String]
    public let path: String
    /// Called once per strategy the first time its output needed repair.
    let warn: @Sendable (String) -> Void
    private let repaired = Atomic<Bool>(false)

    init(table: layoutd_strategy, descriptor: StrategyDescriptor, effectNames: [String], path: String, warn: @escaping @Sendable (String) -> Void) {
        self.table = table
        self.descriptor = descriptor
        self.effectNames = effectNames
        self.path = path
        self.warn = warn
    }

    /// Builds an instance, or refuses the parameters with the plugin's reason.
    public func make(_ parameters: ResolvedParameters) throws(LayoutError) -> PluginStrategy {
        try PluginStrategy(type: self, parameters: parameters)
    }

    func reportRepair(_ what: String) {
        if !repaired.exchange(true, ordering: .relaxed) {
            warn("plugin strategy '\(descriptor.name)' (\(path)) produced \(what); layoutd repaired it (reported once)")
        }
    }
}

/// A `LayoutStrategy` whose layout a plugin computes through the C ABI. layoutd keeps the
/// plugin's output as its layout cache and answers every query from it, so the plugin only
/// computes frames: ids, windows, diffs and events are the daemon's.
public final class PluginStrategy: LayoutStrategy {
    public let type: PluginStrategyType
    public let parameters: ResolvedParameters
    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    public let defaultItemSize: Size
    public let scrollAxis: Axis
    private let isOffsetDependent: Bool
    private let instance: UnsafeMutableRawPointer

    // Input, kept between calls so incremental hooks see the whole of it.
    private var sections: [layoutd_section] = []
    /// Where each section's items start in the flat input and output arrays.
    private var positions = GlobalItemIndex()
    /// Passed to the plugin as `layoutd_size` (same layout, checked by `sizeLayoutMatches`).
    private var sizes: [Size] = []
    private var selected: [UInt8] = []

    // Output: the layout.
    private var items: [layoutd_attributes] = []
    private var headers: [layoutd_attributes] = []
    private var footers: [layoutd_attributes] = []
    private var itemEffects: [Double] = []
    private var headerEffects: [Double] = []
    private var footerEffects: [Double] = []
    public private(set) var contentSize = Size.zero
    /// How far the transformed areas of the output reach beyond their frames (hit testing).
    public private(set) var transformOverhang = 0.0
    private var itemIndex = BlockIndex()
    private var supplementaryIndex = BlockIndex()
    /// What the last adopted output needed repaired, if anything (the loader's self-check
    /// refuses a plugin whose probe layout needs any).
    private(set) var lastRepair: String?

    static let blank = layoutd_attributes(
        frame: layoutd_rect(x: 0, y: 0, width: 0, height: 0), alpha: 1, z_index: 0, hidden: 0, transform: (1, 0, 0, 1, 0, 0))

    /// `Size` is handed to plugins as `layoutd_size` without a copy: both are two doubles,
    /// width then height. Checked once; a toolchain that laid `Size` out otherwise would stop
    /// here, in every test, rather than pass plugins wrong sizes.
    static let sizeLayoutMatches: Bool = {
        precondition(
            MemoryLayout<Size>.size == MemoryLayout<layoutd_size>.size && MemoryLayout<Size>.stride == MemoryLayout<layoutd_size>.stride
                && MemoryLayout<Size>.offset(of: \Size.width) == 0 && MemoryLayout<Size>.offset(of: \Size.height) == 8,
            "Size is not laid out as layoutd_size")
        return true
    }()

    init(type: PluginStrategyType, parameters: ResolvedParameters) throws(LayoutError) {
        _ = Self.sizeLayoutMatches
        self.type = type
        self.parameters = parameters
        var info = layoutd_instance_info()
        let json = JSONWriter.string(StrategyJSON.parameters(parameters))
        var error = [CChar](repeating: 0, count: Int(LAYOUTD_PLUGIN_ERROR_CAPACITY))
        let made = json.withCString { text in type.table.create(type.table.context, text, &info, &error) }
        guard let made else {
            throw Self.refusal(String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self), descriptor: type.descriptor)
        }
        instance = made
        let size = Size(width: info.default_item_size.width, height: info.default_item_size.height)
        defaultItemSize = size.isValidExtent ? size : .zero
        scrollAxis = info.scrolls_horizontally != 0 ? .horizontal : .vertical
        isOffsetDependent = info.offset_dependent != 0
    }

    deinit {
        type.table.destroy(instance)
    }

    /// The plugin's sentence as an `invalidParameter` error, naming the parameter when the
    /// sentence starts with a declared one.
    static func refusal(_ message: String, descriptor: StrategyDescriptor) -> LayoutError {
        let text = message.isEmpty ? "refused by the plugin" : message
        if let colon = text.firstIndex(of: ":"), descriptor.parameter(named: String(text[..<colon])) != nil {
            let reason = text[text.index(after: colon)...].drop { $0 == " " }
            return .invalidParameter(parameter: String(text[..<colon]), reason: String(reason))
        }
        return .invalidParameter(parameter: descriptor.name, reason: text)
    }

    public var descriptor: StrategyDescriptor { type.descriptor }

    public func reconfigured(with parameters: ResolvedParameters) throws(LayoutError) -> any LayoutStrategy {
        try type.make(parameters)
    }

    // MARK: Layout

    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        readInput(model)
        layoutFromScratch()
    }

    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        var changed = [Int]()
        changed.reserveCapacity(ids.count)
        for id in ids {
            guard let path = model.indexPath(ofItem: id) else { continue }
            let flat = positions.global(path)
            selected[flat] = model.isSelected(id) ? 1 : 0
            sizes[flat] = model.layoutSize(of: path, default: defaultItemSize)
            changed.append(flat)
        }
        itemsChanged(changed)
    }

    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        var changed = [Int]()
        changed.reserveCapacity(edits.count)
        for edit in edits {
            guard case .resized(let section, let item, _) = edit else {
                prepare(model: model, viewport: viewport)
                return
            }
            let path = ItemIndexPath(section: section, item: item)
            let flat = positions.global(path)
            sizes[flat] = model.layoutSize(of: path, default: defaultItemSize)
            changed.append(flat)
        }
        itemsChanged(changed)
    }

    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let old = viewport
        viewport = newViewport
        let resized = old.size != newViewport.size || old.contentInsets != newViewport.contentInsets
        guard resized || (isOffsetDependent && old.offset != newViewport.offset) else { return .none }
        let kind: ViewportInvalidation = resized ? .layout : .offsetDependent
        guard let hook = type.table.viewport_changed else {
            layoutFromScratch()
            return kind
        }
        switch callHook({ instance, input, output in hook(instance, input, output) }) {
        case Int32(LAYOUTD_UNCHANGED): return .none
        case Int32(LAYOUTD_UPDATED):
            adoptOutput()
            return kind
        default:
            layoutFromScratch()
            return kind
        }
    }

    private func itemsChanged(_ changed: [Int]) {
        let flats = Array(Set(changed)).sorted()
        guard !flats.isEmpty else { return }
        guard let hook = type.table.items_changed else {
            layoutFromScratch()
            return
        }
        let result = flats.withUnsafeBufferPointer { list in
            callHook { instance, input, output in hook(instance, input, list.baseAddress, list.count, output) }
        }
        switch result {
        case Int32(LAYOUTD_UNCHANGED): return
        case Int32(LAYOUTD_UPDATED): adoptOutput()
        default: layoutFromScratch()
        }
    }

    public func targetContentOffset(proposed: Point, velocity: Point) -> Point {
        guard let hook = type.table.target_content_offset else { return proposed }
        var x = proposed.x
        var y = proposed.y
        _ = callHook { instance, input, output in
            hook(instance, input, output, velocity.x, velocity.y, &x, &y)
            return 0
        }
        // A target that is not finite would reach clients as invalid JSON: the proposal stands.
        guard x.isFinite, y.isFinite else {
            type.reportRepair("a target content offset that is not finite")
            return proposed
        }
        return Point(x: x, y: y)
    }

    // MARK: Queries

    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        var result = [LayoutAttributes]()
        let range = scrollAxis.mainRange(of: rect)
        itemIndex.forEachCandidate(from: range.min, to: range.max) { flat in
            guard Self.rect(items[flat].frame).intersects(rect) else { return }
            result.append(itemAttributes(flat: flat, path: positions.path(ofGlobal: flat), model: model))
        }
        supplementaryIndex.forEachCandidate(from: range.min, to: range.max) { slot in
            let section = slot / 2
            let kind: ElementKind = slot % 2 == 0 ? .header : .footer
            guard let attributes = supplementary(kind, section: section, model: model), attributes.frame.intersects(rect) else { return }
            result.append(attributes)
        }
        return result
    }

    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id) else { return nil }
        return itemAttributes(flat: positions.global(path), path: path, model: model, id: id)
    }

    public func attributes(forSupplementary kind: ElementKind, id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let section = model.sectionIndex(of: id) else { return nil }
        return supplementary(kind, section: section, model: model)
    }

    private func itemAttributes(flat: Int, path: ItemIndexPath, model: CollectionModel, id: String? = nil) -> LayoutAttributes {
        attributes(
            items[flat], kind: .cell, id: id ?? model.itemID(at: path), section: path.section, item: path.item, effects: itemEffects,
            slot: flat)
    }

    private func supplementary(_ kind: ElementKind, section: Int, model: CollectionModel) -> LayoutAttributes? {
        guard section < sections.count, kind != .cell else { return nil }
        let exists = kind == .header ? sections[section].has_header != 0 : sections[section].has_footer != 0
        guard exists else { return nil }
        return attributes(
            kind == .header ? headers[section] : footers[section], kind: kind, id: model.sections[section].id, section: section,
            item: nil, effects: kind == .header ? headerEffects : footerEffects, slot: section)
    }

    private func attributes(
        _ raw: layoutd_attributes, kind: ElementKind, id: String, section: Int, item: Int?, effects: [Double], slot: Int
    ) -> LayoutAttributes {
        var named = [String: Double]()
        let count = type.effectNames.count
        for (index, name) in type.effectNames.enumerated() {
            let value = effects[slot * count + index]
            if !value.isNaN { named[name] = value }
        }
        let matrix = raw.transform
        return LayoutAttributes(
            kind: kind, id: id, section: section, item: item, frame: Self.rect(raw.frame), zIndex: Int(raw.z_index),
            alpha: raw.alpha, isHidden: raw.hidden != 0,
            transform: Transform2D(a: matrix.0, b: matrix.1, c: matrix.2, d: matrix.3, tx: matrix.4, ty: matrix.5), effects: named)
    }

    // MARK: Input and output

    // Hot loops below work on local arrays or buffer pointers: every access to a class's stored
    // array costs a dynamic exclusivity check, which per item was most of the ABI's overhead.

    private func readInput(_ model: CollectionModel) {
        var sections = takeArray(&self.sections)
        // As in flow, a header or footer with no extent along the scroll axis is none.
        let axis = scrollAxis
        func exists(_ size: Size?) -> UInt8 { size.map { axis.main(of: $0) > 0 } == true ? 1 : 0 }
        let positions = GlobalItemIndex(model)
        for (index, section) in model.sections.enumerated() {
            sections.append(
                layoutd_section(
                    first_item: positions.first(ofSection: index), item_count: section.count,
                    has_header: exists(section.headerSize), has_footer: exists(section.footerSize),
                    header_size: Self.size(section.headerSize ?? .zero), footer_size: Self.size(section.footerSize ?? .zero)))
        }
        let defaultSize = defaultItemSize
        let count = positions.itemCount
        var sizes = [Size](unsafeUninitializedCapacity: count) { buffer, initialized in
            for (index, section) in model.sections.enumerated() {
                section.copySizes(into: buffer.baseAddress! + positions.first(ofSection: index), default: defaultSize)
            }
            initialized = count
        }
        var selected = [UInt8](repeating: 0, count: count)
        for id in model.selection {
            guard let path = model.indexPath(ofItem: id) else { continue }
            let flat = positions.global(path)
            selected[flat] = 1
            if let open = model.sections[path.section].selectedSizes[id] { sizes[flat] = open }
        }
        self.positions = positions
        self.sections = sections
        self.sizes = sizes
        self.selected = selected
    }

    /// The array, emptied in place (its storage kept for reuse), leaving `stored` empty.
    private func takeArray<T>(_ stored: inout [T]) -> [T] {
        var array = [T]()
        swap(&array, &stored)
        array.removeAll(keepingCapacity: true)
        return array
    }

    private func layoutFromScratch() {
        let effects = type.effectNames.count
        Self.reset(&items, count: sizes.count, to: Self.blank)
        Self.reset(&headers, count: sections.count, to: Self.blank)
        Self.reset(&footers, count: sections.count, to: Self.blank)
        Self.reset(&itemEffects, count: sizes.count * effects, to: .nan)
        Self.reset(&headerEffects, count: sections.count * effects, to: .nan)
        Self.reset(&footerEffects, count: sections.count * effects, to: .nan)
        let layout = type.table.layout!
        _ = callHook { instance, input, output in
            layout(instance, input, output)
            return 0
        }
        adoptOutput()
    }

    private static func reset<T>(_ array: inout [T], count: Int, to value: T) {
        if array.count == count {
            array.withUnsafeMutableBufferPointer { $0.update(repeating: value) }
        } else {
            array = [T](repeating: value, count: count)
        }
    }

    /// Calls the plugin with pointers to the current input and output.
    private func callHook(_ body: (UnsafeMutableRawPointer, UnsafePointer<layoutd_input>, UnsafeMutablePointer<layoutd_output>) -> Int32) -> Int32 {
        sections.withUnsafeBufferPointer { sections in
            sizes.withUnsafeBufferPointer { sizes in
                let itemSizes = UnsafeRawPointer(sizes.baseAddress)?.assumingMemoryBound(to: layoutd_size.self)
                return selected.withUnsafeBufferPointer { selected in
                    items.withUnsafeMutableBufferPointer { items in
                        headers.withUnsafeMutableBufferPointer { headers in
                            footers.withUnsafeMutableBufferPointer { footers in
                                itemEffects.withUnsafeMutableBufferPointer { itemEffects in
                                    headerEffects.withUnsafeMutableBufferPointer { headerEffects in
                                        footerEffects.withUnsafeMutableBufferPointer { footerEffects in
                                            let insets = viewport.contentInsets
                                            var input = layoutd_input(
                                                viewport: layoutd_viewport(
                                                    size: Self.size(viewport.size), offset_x: viewport.offset.x, offset_y: viewport.offset.y,
                                                    content_insets: layoutd_insets(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right)),
                                                section_count: sections.count, sections: sections.baseAddress,
                                                item_count: sizes.count, item_sizes: itemSizes, item_selected: selected.baseAddress)
                                            var output = layoutd_output(
                                                content_size: Self.size(contentSize), items: items.baseAddress, headers: headers.baseAddress,
                                                footers: footers.baseAddress, item_effects: itemEffects.baseAddress,
                                                header_effects: headerEffects.baseAddress, footer_effects: footerEffects.baseAddress)
                                            let result = body(instance, &input, &output)
                                            contentSize = Size(width: output.content_size.width, height: output.content_size.height)
                                            return result
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// Repairs what the plugin wrote (a NaN frame or alpha would otherwise reach clients as
    /// invalid JSON) and rebuilds the query indices.
    private func adoptOutput() {
        var repairs = OutputRepair()
        repairs.size(&contentSize)
        let axis = scrollAxis
        let vertical = axis == .vertical
        var overhang = 0.0
        // One pass: repair (rarely needed, so checked branch-free first), measure how far
        // transforms reach, and index.
        itemIndex = items.withUnsafeMutableBufferPointer { items in
            BlockIndex(count: items.count) { index in
                if !OutputRepair.isClean(items[index]) { repairs.attributes(&items[index]) }
                if items[index].transform != Self.identity { overhang = max(overhang, Self.overhang(of: items[index])) }
                let frame = items[index].frame
                return vertical ? (frame.y, frame.y + frame.height) : (frame.x, frame.x + frame.width)
            }
        }
        let sections = self.sections
        supplementaryIndex = headers.withUnsafeMutableBufferPointer { headers in
            footers.withUnsafeMutableBufferPointer { footers in
                for index in headers.indices {
                    repairs.attributes(&headers[index])
                    repairs.attributes(&footers[index])
                    for attributes in [headers[index], footers[index]] where attributes.transform != Self.identity {
                        overhang = max(overhang, Self.overhang(of: attributes))
                    }
                }
                return BlockIndex(count: sections.count * 2) { slot in
                    let section = sections[slot / 2]
                    let isHeader = slot % 2 == 0
                    guard isHeader ? section.has_header != 0 : section.has_footer != 0 else { return (.infinity, -.infinity) }
                    return axis.mainRange(of: Self.rect(isHeader ? headers[slot / 2].frame : footers[slot / 2].frame))
                }
            }
        }
        itemEffects.withUnsafeMutableBufferPointer { repairs.effects($0) }
        headerEffects.withUnsafeMutableBufferPointer { repairs.effects($0) }
        footerEffects.withUnsafeMutableBufferPointer { repairs.effects($0) }
        transformOverhang = overhang
        lastRepair = repairs.problem
        if let problem = repairs.problem { type.reportRepair(problem) }
    }

    private static let identity = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)

    /// How far the element's area, its transform applied around its frame's centre, reaches
    /// beyond its frame on any side: the bounds of the transformed corners against the frame.
    static func overhang(of attributes: layoutd_attributes) -> Double {
        let frame = rect(attributes.frame)
        let (a, b, c, d, tx, ty) = attributes.transform
        var (minX, maxX, minY, maxY) = (Double.infinity, -Double.infinity, Double.infinity, -Double.infinity)
        for (x, y) in [(frame.minX, frame.minY), (frame.maxX, frame.minY), (frame.minX, frame.maxY), (frame.maxX, frame.maxY)] {
            let (dx, dy) = (x - frame.midX, y - frame.midY)
            let (screenX, screenY) = (frame.midX + a * dx + c * dy + tx, frame.midY + b * dx + d * dy + ty)
            (minX, maxX, minY, maxY) = (min(minX, screenX), max(maxX, screenX), min(minY, screenY), max(maxY, screenY))
        }
        return max(0, frame.minX - minX, maxX - frame.maxX, frame.minY - minY, maxY - frame.maxY)
    }

    static func rect(_ rect: layoutd_rect) -> Rect { Rect(x: rect.x, y: rect.y, width: rect.width, height: rect.height) }

    static func size(_ size: Size) -> layoutd_size { layoutd_size(width: size.width, height: size.height) }
}

/// What `adoptOutput` had to fix, named for the log.
struct OutputRepair {
    private(set) var problem: String?

    mutating func size(_ size: inout Size) {
        if !size.width.isFinite || size.width < 0 { size.width = 0; note("a content size that is not finite or negative") }
        if !size.height.isFinite || size.height < 0 { size.height = 0; note("a content size that is not finite or negative") }
    }

    /// Whether nothing needs repairing: every coordinate finite (a NaN or an infinity makes
    /// `v - v` NaN, and the sum with it), sizes not negative, alpha in 0...1.
    @inline(__always)
    static func isClean(_ attributes: layoutd_attributes) -> Bool {
        let frame = attributes.frame
        let matrix = attributes.transform
        let finite = (frame.x - frame.x) + (frame.y - frame.y) + (frame.width - frame.width) + (frame.height - frame.height)
            + (matrix.0 - matrix.0) + (matrix.1 - matrix.1) + (matrix.2 - matrix.2) + (matrix.3 - matrix.3)
            + (matrix.4 - matrix.4) + (matrix.5 - matrix.5)
        return finite == 0 && frame.width >= 0 && frame.height >= 0 && attributes.alpha >= 0 && attributes.alpha <= 1
    }

    mutating func attributes(_ attributes: inout layoutd_attributes) {
        let frame = attributes.frame
        if !(frame.x.isFinite && frame.y.isFinite && frame.width.isFinite && frame.height.isFinite && frame.width >= 0 && frame.height >= 0) {
            attributes.frame = layoutd_rect(
                x: frame.x.isFinite ? frame.x : 0, y: frame.y.isFinite ? frame.y : 0,
                width: frame.width.isFinite ? max(frame.width, 0) : 0, height: frame.height.isFinite ? max(frame.height, 0) : 0)
            note("a frame that is not finite or has a negative size")
        }
        if !(attributes.alpha >= 0 && attributes.alpha <= 1) {
            attributes.alpha = attributes.alpha.isNaN ? 1 : min(max(attributes.alpha, 0), 1)
            note("an alpha outside 0...1")
        }
        let matrix = attributes.transform
        if ![matrix.0, matrix.1, matrix.2, matrix.3, matrix.4, matrix.5].allSatisfy(\.isFinite) {
            attributes.transform = (1, 0, 0, 1, 0, 0)
            note("a transform that is not finite")
        }
    }

    mutating func effects(_ values: UnsafeMutableBufferPointer<Double>) {
        for index in values.indices where values[index].isInfinite {
            values[index] = .nan
            note("an infinite effect value")
        }
    }

    private mutating func note(_ what: String) {
        if problem == nil { problem = what }
    }
}
