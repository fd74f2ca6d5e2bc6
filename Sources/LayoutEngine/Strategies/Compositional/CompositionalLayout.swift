import LayoutGeometry

/// UIKit's compositional layout: each section lays out its items with a tree of groups
/// (`NSCollectionLayoutSection` / `Group` / `Item`), a section id picks its own description
/// (a grid, a list, a carousel in one view), orthogonal sections scroll across the main
/// direction with their own offsets, and sections carry boundary items (headers, footers, any
/// kind, pinned or not), decorations (backgrounds) and items carry badges. The rules are in
/// docs/compositional-layout.md.
///
/// Sections stack by a prefix sum of their extents; each keeps its frames section-local, so a
/// change inside one section lays out that section alone and moves the others by arithmetic.
public final class CompositionalLayout: NativeStrategy {
    public let parameters: ResolvedParameters
    let configuration: CompositionalConfiguration

    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    var sections: [CompositionalSection] = []
    /// `starts[i]`: where section i begins along the scroll axis; `starts[count]` the end.
    var starts: [Double] = [0]
    /// Each orthogonal section's offset across the scroll axis, by section id: it survives
    /// relayouts and moves of the section, as a scroll view's offset survives a reload.
    var sectionOffsets: [String: Double] = [:]
    /// Measured sizes of estimated boundary items (by kind and section id) and badges (by kind
    /// and item id): state like the items' measurements, kept across relayouts; an element's
    /// estimated dimensions take them (`view.measure` with a kind).
    var boundarySizes: [ElementKey: Size] = [:]
    var badgeSizes: [String: [ElementKind: Size]] = [:]
    /// `badgeSizes` by section index, then item index: rebuilt when data or measurements change.
    private var badgeSizesBySection: [Int: [Int: [ElementKind: Size]]]?
    /// Largest reach of any section's elements before its start and past its end.
    var reachBefore = 0.0
    var reachAfter = 0.0
    var hasPinnedItems = false
    /// `cellCrossRange` as last computed, while no layout or section scroll has changed it.
    var cellCrossRangeCache: (range: (min: Double, max: Double)?, isCurrent: Bool) = (nil, false)
    public internal(set) var changeStart: Double?

    /// z of pinned boundary items unless the description says otherwise: above cells.
    static let pinnedZIndex = 10

    public init(parameters: ResolvedParameters) {
        // `validate` read the same parameters before; a failure here is a programming error.
        do {
            configuration = try CompositionalConfiguration(parameters)
        } catch {
            preconditionFailure("compositional parameters were not validated: \(error)")
        }
        self.parameters = parameters
    }

    public static func validate(_ parameters: ResolvedParameters) throws(LayoutError) {
        _ = try CompositionalConfiguration(parameters)
    }

    public func copy(model: CollectionModel) -> any LayoutStrategy {
        let copy = CompositionalLayout(configuration: configuration, parameters: parameters)
        copy.viewport = viewport
        copy.sections = sections
        copy.starts = starts
        copy.sectionOffsets = sectionOffsets
        copy.boundarySizes = boundarySizes
        copy.badgeSizes = badgeSizes
        copy.reachBefore = reachBefore
        copy.reachAfter = reachAfter
        copy.hasPinnedItems = hasPinnedItems
        copy.cellCrossRangeCache = cellCrossRangeCache
        copy.changeStart = changeStart
        return copy
    }

    private init(configuration: CompositionalConfiguration, parameters: ResolvedParameters) {
        self.configuration = configuration
        self.parameters = parameters
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { configuration.axis }

    /// Items take the size their section's description gives them; this is what a measurement
    /// is compared with before an item has one of its own (the first estimate of the default
    /// section's first item).
    public var defaultItemSize: Size { configuration.defaultItemSize }

    public var estimatesDefaultSize: Bool { configuration.estimates }

    /// Header and footer, and every kind the descriptions name.
    public var supplementaryKinds: [SupplementaryKind] { configuration.supplementaryKinds }

    public var contentSize: Size {
        configuration.axis.size(cross: configuration.axis.cross(of: viewport.size), main: starts.last ?? 0)
    }

    /// - Complexity: O(n) for n items, plus the descriptions' work per group.
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        badgeSizesBySection = nil
        // Measurements of elements whose section or item is gone go with them.
        boundarySizes = boundarySizes.filter { model.sectionIndex(of: $0.key.id) != nil }
        badgeSizes = badgeSizes.filter { model.indexPath(ofItem: $0.key) != nil }
        sections = model.sections.indices.map { layoutSection($0, model: model) }
        restack(from: 0)
        keepOffsets(model: model)
        changeStart = nil
    }

    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        var touched = Set<Int>()
        for id in ids {
            guard let path = model.indexPath(ofItem: id), model.sections[path.section].selectedSizes[id] != nil else { continue }
            touched.insert(path.section)
        }
        relayout(touched, model: model)
    }

    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        relayout(Set(edits.map(\.section)), model: model)
    }

    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) {
        badgeSizesBySection = nil
        guard !changes.changesSectionList, sections.count == model.numberOfSections else {
            prepare(model: model, viewport: viewport)
            return
        }
        var touched = Set(changes.edits.map(\.section))
        for id in changes.touchedSections { if let index = model.sectionIndex(of: id) { touched.insert(index) } }
        relayout(touched, model: model)
    }

    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let old = viewport
        var unscrolled = newViewport
        unscrolled.offset = old.offset
        if unscrolled != old {
            // Size, insets or margins changed: fractions and references resolve anew.
            prepare(model: model, viewport: newViewport)
            return .layout
        }
        viewport = newViewport
        return hasPinnedItems && old.offset != newViewport.offset ? .offsetDependent : .none
    }

    public var measuredSupplementaries: [(key: ElementKey, size: Size)] {
        var all = boundarySizes.map { (key: $0.key, size: $0.value) }
        for (id, sizes) in badgeSizes {
            for (kind, size) in sizes { all.append((ElementKey(kind: kind, id: id), size)) }
        }
        return all.sorted { $0.key < $1.key }
    }

    public func measureSupplementary(_ measurements: [(key: ElementKey, size: Size)], tolerance: Double, model: CollectionModel) -> Bool {
        var touched = Set<Int>()
        for (key, size) in measurements {
            let isBadge = configuration.itemKinds.contains(key.kind)
            guard let section = isBadge ? model.indexPath(ofItem: key.id)?.section : model.sectionIndex(of: key.id),
                let current = attributes(forSupplementary: key.kind, id: key.id, model: model),
                let described = describedSize(of: key.kind, isBadge: isBadge, inSection: model.sections[section].id)
            else { continue }
            // As for cells (view.measure): under half a point on every estimated axis is no
            // change; the other axes keep what the layout gives them.
            let width = described.width.isEstimated && abs(current.frame.width - size.width) >= tolerance
            let height = described.height.isEstimated && abs(current.frame.height - size.height) >= tolerance
            guard width || height else { continue }
            if isBadge {
                badgeSizes[key.id, default: [:]][key.kind] = size
                badgeSizesBySection = nil
            } else {
                boundarySizes[key] = size
            }
            touched.insert(section)
        }
        guard !touched.isEmpty else { return false }
        relayout(touched, model: model)
        return true
    }

    /// How the section's description sizes an element of `kind`, when it estimates it on some
    /// axis (a badge kind: its first estimated description); nil when the layout fixes it.
    private func describedSize(of kind: ElementKind, isBadge: Bool, inSection id: String) -> CompositionalSize? {
        func estimated(_ size: CompositionalSize) -> Bool { size.width.isEstimated || size.height.isEstimated }
        if isBadge { return configuration.tree(ofSection: id).badges.first { $0.kind == kind && estimated($0.size) }?.size }
        return configuration.description(ofSection: id).boundarySupplementaryItems.first { $0.kind == kind && estimated($0.size) }?.size
    }

    /// This section's measured badges by item index.
    private func measuredBadges(inSection index: Int, model: CollectionModel) -> [Int: [ElementKind: Size]] {
        guard !badgeSizes.isEmpty else { return [:] }
        if badgeSizesBySection == nil {
            var grouped = [Int: [Int: [ElementKind: Size]]]()
            for (id, sizes) in badgeSizes {
                if let path = model.indexPath(ofItem: id) { grouped[path.section, default: [:]][path.item] = sizes }
            }
            badgeSizesBySection = grouped
        }
        return badgeSizesBySection?[index] ?? [:]
    }

    // MARK: Layout

    func layoutSection(_ index: Int, model: CollectionModel) -> CompositionalSection {
        let section = model.sections[index]
        let description = configuration.description(ofSection: section.id)
        var sizes = [Size](repeating: .zero, count: section.count)
        sizes.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { section.copySizes(into: base, default: Self.noSize) }
        }
        return sizes.withUnsafeBufferPointer { buffer in
            var solver = CompositionalSectionSolver(
                description: description, tree: configuration.tree(ofSection: section.id), main: configuration.main,
                viewport: viewport, sizes: buffer, open: model.openSizes(of: section),
                boundarySizes: measuredBoundaries(of: section.id, description), badgeSizes: measuredBadges(inSection: index, model: model))
            return solver.solve()
        }
    }

    private func measuredBoundaries(of id: String, _ description: SectionDescription) -> [ElementKind: Size] {
        guard !boundarySizes.isEmpty else { return [:] }
        var sizes = [ElementKind: Size]()
        for item in description.boundarySupplementaryItems {
            if let size = boundarySizes[ElementKey(kind: item.kind, id: id)] { sizes[item.kind] = size }
        }
        return sizes
    }

    /// What an item without a size of its own is given to the solver as: a negative width.
    static let noSize = Size(width: -1, height: -1)

    /// Lays out the `touched` sections again and moves the ones after them.
    private func relayout(_ touched: Set<Int>, model: CollectionModel) {
        guard let first = touched.min() else {
            changeStart = .infinity
            return
        }
        // Everything before the first touched section stays; elements of later ones may reach
        // back before their start by at most the largest reach, before or after.
        let oldReach = reachBefore
        for index in touched where index < sections.count {
            sections[index] = layoutSection(index, model: model)
        }
        restack(from: first)
        let start = starts[first] - max(oldReach, reachBefore)
        keepOffsets(model: model)
        changeStart = start
    }

    /// Recomputes section starts from `first` on, and the reaches.
    private func restack(from first: Int) {
        let spacing = configuration.interSectionSpacing
        if starts.count != sections.count + 1 { starts = [Double](repeating: 0, count: sections.count + 1) }
        var position = first == 0 ? 0 : starts[first]
        for index in first..<sections.count {
            starts[index] = position
            position += sections[index].extent + (index + 1 < sections.count ? spacing : 0)
        }
        starts[sections.count] = position
        reachBefore = sections.reduce(0) { max($0, $1.reachBefore) }
        reachAfter = sections.reduce(0) { max($0, $1.reachAfter) }
        hasPinnedItems = sections.contains { $0.boundaries.contains { $0.item.pinToVisibleBounds } }
        cellCrossRangeCache.isCurrent = false
    }

    /// Drops offsets of sections that are gone or no longer scroll on their own. The others
    /// stay as they are, unclamped like the offsets `scrollSection` sets: what a client scrolled
    /// to (even rubber-banding) is its to change, and `scrollSectionEnd` clamps.
    private func keepOffsets(model: CollectionModel) {
        guard !sectionOffsets.isEmpty else { return }
        sectionOffsets = sectionOffsets.filter { id, _ in
            model.sectionIndex(of: id).map { sections[$0].orthogonal != nil } ?? false
        }
    }
}

/// The strategy's parameters, read once: the scroll direction, the space between sections, the
/// default section description and the descriptions by section id.
struct CompositionalConfiguration: Sendable {
    let axis: Axis
    let interSectionSpacing: Double
    let defaultSection: SectionDescription
    let sectionsByID: [String: SectionDescription]
    /// Each description's group compiled for the solver once (sections with equal groups share
    /// one), rather than at every section's layout.
    let defaultTree: CompiledGroup
    let treesByID: [String: CompiledGroup]
    let defaultItemSize: Size
    let estimates: Bool
    /// The kinds of elements anchored to items (badges): their key id is an item id.
    let itemKinds: Set<ElementKind>
    let supplementaryKinds: [SupplementaryKind]

    var main: PhysicalAxis { axis == .vertical ? .y : .x }

    func description(ofSection id: String) -> SectionDescription { sectionsByID[id] ?? defaultSection }
    func tree(ofSection id: String) -> CompiledGroup { treesByID[id] ?? defaultTree }

    init(_ parameters: ResolvedParameters) throws(LayoutError) {
        axis = parameters.choice("scrollDirection", as: Axis.self)
        interSectionSpacing = parameters.number("interSectionSpacing")
        var reader = DescriptionReader()
        defaultSection = try reader.section(parameters.tree("section"), "section")
        guard case .object(let byID) = parameters.tree("sections") else {
            throw .invalidParameter(parameter: "sections", reason: "must be an object mapping section ids to section layouts")
        }
        guard byID.count <= 4096 else {
            throw .invalidParameter(parameter: "sections", reason: "must name at most 4096 sections (the rest take section)")
        }
        var sections = [String: SectionDescription]()
        for id in byID.keys.sorted() { sections[id] = try reader.section(byID[id]!, "sections.\(id)") }
        sectionsByID = sections
        var compiled = [GroupDescription: CompiledGroup]()
        func tree(_ group: GroupDescription) -> CompiledGroup {
            if let tree = compiled[group] { return tree }
            let tree = CompiledGroup(group)
            compiled[group] = tree
            return tree
        }
        defaultTree = tree(defaultSection.group)
        treesByID = sections.mapValues { tree($0.group) }
        itemKinds = Set(reader.kinds.filter(\.value).map(\.key))
        supplementaryKinds = reader.kinds.keys.sorted().map { SupplementaryKind(kind: $0, isAnchoredToItem: reader.kinds[$0]!) }
        let all = [defaultSection] + sections.values
        estimates = all.contains { Self.hasEstimatedItem($0.group) }
        var first = defaultSection.group
        var leaf: ItemDescription?
        while leaf == nil {
            switch first.subitems[0] {
            case .item(let item): leaf = item
            case .group(let group): first = group
            }
        }
        defaultItemSize = leaf!.size.resolve(in: Size(width: 0, height: 0))
    }

    private static func hasEstimatedItem(_ group: GroupDescription) -> Bool {
        group.subitems.contains { element in
            switch element {
            case .item(let item): item.size.width.isEstimated || item.size.height.isEstimated
            case .group(let child): hasEstimatedItem(child)
            }
        }
    }
}

extension CompositionalLayout {
    public static let descriptor = StrategyDescriptor(
        name: "compositional",
        summary: "UIKit compositional layout: items in nested groups per section, a layout per section, "
            + "orthogonally scrolling sections, boundary items, badges, backgrounds and list presets",
        parameters: [
            ParameterDescription(
                "scrollDirection", .choice(Axis.allCases.map(\.rawValue)), default: .string("vertical"),
                "the direction sections stack in"),
            ParameterDescription(
                "interSectionSpacing", .number(minimum: 0, maximum: nil), default: .number(0),
                "space between consecutive sections"),
            ParameterDescription(
                "section", .structure, default: .tree(.object(["list": .object(["appearance": .string("plain")])])),
                "the layout of sections not named in sections: {group, interGroupSpacing, contentInsets, ...} or {list: {...}}"),
            ParameterDescription(
                "sections", .structure, default: .tree(.object([:])),
                "section layouts by section id, each as section"),
        ])
}
