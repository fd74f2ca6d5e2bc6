import LayoutGeometry

/// A section's group tree flattened for the solver: every group and item a node of plain values
/// addressed by index. Laying out a group instance reads what it needs of each subitem (`Node`:
/// small, so copying one is a few moves) and of the group (`Group`); walking the description
/// itself copied its nested structs and counted references on every subitem of every instance,
/// which cost more than the arithmetic (BENCHMARKS.md, compositional full layout).
///
/// The arrays live in buffers the tree owns and never changes after init.
final class CompiledGroup: @unchecked Sendable {
    /// What a group reads of each subitem it places.
    struct Node: Sendable {
        var isItem: Bool
        /// `size`'s dimensions are estimated (the content decides), width then height.
        var estimated: (x: Bool, y: Bool)
        /// Items: `uniformAcrossSiblings` on each axis.
        var uniform: (x: Bool, y: Bool)
        var size: CompositionalSize
        var edges: Edges
        /// Index into `groups` (a group) or `items` (an item).
        var detail: Int
    }

    /// A group's own parts: the axis subitems follow, their node indices in `children`, the
    /// fixed number of copies (`repeatingSubitem` or `subitem` with `count`; 0 for `subitems`)
    /// and the spacing between them.
    struct Group: Sendable {
        var axis: PhysicalAxis
        var children: Range<Int>
        var count: Int
        /// `subitem` + `count`: the copies share the group's extent along its axis equally.
        var sharesExtent: Bool
        var spacing: CompositionalSpacing
        var contentInsets: DirectionalInsets
        /// Some child item is `uniformAcrossSiblings` on an axis.
        var hasUniformChildren: Bool
        /// Every child is an item, nothing is flexible or uniform and there is no count: each
        /// item's place then depends only on the items before it, so one pass lays them out.
        var isFlat: Bool
        /// No child's extent along the axis comes from its content: how many fit is the same in
        /// every instance (the solver counts once).
        var fitIsStatic: Bool
    }

    struct Item: Sendable {
        var contentInsets: DirectionalInsets
        /// Its badges in `badges`.
        var badges: Range<Int>
    }

    /// Edge spacing as the solver uses it: an absent edge is a fixed 0.
    struct Edges: Sendable {
        var leading = 0.0, top = 0.0, trailing = 0.0, bottom = 0.0
        var flexibleLeading = false, flexibleTop = false, flexibleTrailing = false, flexibleBottom = false

        init(_ spacing: EdgeSpacing) {
            (leading, flexibleLeading) = Self.read(spacing.leading)
            (top, flexibleTop) = Self.read(spacing.top)
            (trailing, flexibleTrailing) = Self.read(spacing.trailing)
            (bottom, flexibleBottom) = Self.read(spacing.bottom)
        }

        private static func read(_ spacing: CompositionalSpacing?) -> (Double, Bool) {
            (spacing?.minimum ?? 0, spacing?.isFlexible ?? false)
        }

        func before(_ axis: PhysicalAxis) -> Double { axis == .x ? leading : top }
        func after(_ axis: PhysicalAxis) -> Double { axis == .x ? trailing : bottom }
        func flexibleBefore(_ axis: PhysicalAxis) -> Bool { axis == .x ? flexibleLeading : flexibleTop }
        func flexibleAfter(_ axis: PhysicalAxis) -> Bool { axis == .x ? flexibleTrailing : flexibleBottom }
    }

    let nodes: UnsafeMutableBufferPointer<Node>
    let groups: UnsafeMutableBufferPointer<Group>
    let items: UnsafeMutableBufferPointer<Item>
    let children: UnsafeMutableBufferPointer<Int>
    let badges: [AnchoredItem]
    /// `badges`' kinds and z, as laid-out sections keep them (shared, not copied per section).
    let badgeStyles: [CompositionalSection.BadgeStyle]
    /// Whether some item takes a size of its own (an estimated dimension): if none does, every
    /// instance with items enough lays out the same.
    let takesOwnSizes: Bool
    /// Whether some flat group counts its fit once (`Group.fitIsStatic`).
    let hasStaticFit: Bool

    /// The root group is node 0.
    init(_ group: GroupDescription) {
        var builder = Builder()
        _ = builder.add(.group(group))
        nodes = Self.buffer(builder.nodes)
        groups = Self.buffer(builder.groups)
        items = Self.buffer(builder.items)
        children = Self.buffer(builder.children)
        badges = builder.badges
        badgeStyles = builder.badges.map { CompositionalSection.BadgeStyle(kind: $0.kind, zIndex: $0.zIndex) }
        takesOwnSizes = builder.takesOwnSizes
        hasStaticFit = builder.groups.contains { $0.isFlat && $0.fitIsStatic }
    }

    private static func buffer<T>(_ values: [T]) -> UnsafeMutableBufferPointer<T> {
        let buffer = UnsafeMutableBufferPointer<T>.allocate(capacity: values.count)
        _ = buffer.initialize(from: values)
        return buffer
    }

    deinit {
        nodes.deallocate()
        groups.deallocate()
        items.deallocate()
        children.deallocate()
    }
}

private struct Builder {
    var nodes: [CompiledGroup.Node] = []
    var groups: [CompiledGroup.Group] = []
    var items: [CompiledGroup.Item] = []
    var children: [Int] = []
    var badges: [AnchoredItem] = []
    var takesOwnSizes = false

    mutating func add(_ element: ElementDescription) -> Int {
        let index = nodes.count
        let size = element.size
        var node = CompiledGroup.Node(
            isItem: false, estimated: (size.width.isEstimated, size.height.isEstimated), uniform: (false, false), size: size,
            edges: CompiledGroup.Edges(element.edgeSpacing), detail: 0)
        switch element {
        case .item(let item):
            node.isItem = true
            if case .uniformAcrossSiblings = size.width { node.uniform.x = true }
            if case .uniformAcrossSiblings = size.height { node.uniform.y = true }
            if node.estimated.x || node.estimated.y { takesOwnSizes = true }
            node.detail = items.count
            items.append(CompiledGroup.Item(
                contentInsets: item.contentInsets, badges: badges.count..<(badges.count + item.supplementaryItems.count)))
            badges.append(contentsOf: item.supplementaryItems)
            nodes.append(node)
        case .group(let group):
            node.detail = groups.count
            groups.append(CompiledGroup.Group(
                axis: group.direction.axis, children: 0..<0, count: group.repetition.count ?? 0,
                sharesExtent: group.repetition.sharesExtent, spacing: group.interItemSpacing ?? .fixed(0),
                contentInsets: group.contentInsets, hasUniformChildren: false, isFlat: false, fitIsStatic: false))
            nodes.append(node)
            // Children are added after their parent, so their indices are known only then.
            let ids = group.subitems.map { add($0) }
            groups[node.detail].children = children.count..<(children.count + ids.count)
            groups[node.detail].hasUniformChildren = ids.contains { nodes[$0].uniform.x || nodes[$0].uniform.y }
            let axis = group.direction.axis
            groups[node.detail].fitIsStatic = ids.allSatisfy { id in axis == .x ? !nodes[id].estimated.x : !nodes[id].estimated.y }
            groups[node.detail].isFlat = group.repetition == .fill && !(group.interItemSpacing?.isFlexible ?? false)
                && ids.allSatisfy { id in
                    let child = nodes[id]
                    let edges = child.edges
                    return child.isItem && !child.uniform.x && !child.uniform.y && !edges.flexibleLeading && !edges.flexibleTop
                        && !edges.flexibleTrailing && !edges.flexibleBottom
                }
            children.append(contentsOf: ids)
        }
        return index
    }
}
