import LayoutGeometry

/// One section laid out, in section-local coordinates: along the scroll axis from the section's
/// start; across it as on screen, except that an orthogonal section's cells and badges are where
/// they lie at section offset 0 (a query subtracts the offset).
///
/// The top-level group's instances (`spans`) follow one another along the axis they repeat on
/// (the scroll axis, or the cross axis in an orthogonal section), so a query binary-searches
/// them and reads only the items of the instances it meets.
struct CompositionalSection: Sendable {
    /// Along the scroll axis, everything included (boundary items that extend it, insets).
    var extent = 0.0
    /// Cell frames by item index.
    var cells: [Rect] = []
    /// Badges (supplementary items anchored to items), in item order.
    var badges: [Badge] = []
    var spans: [Span] = []
    /// `spans[i].high` maximised over `spans[0...i]`, and `spans[i].low` minimised over
    /// `spans[i...]`: both never decrease, so a query finds its first and last span by bisection
    /// even when a badge reaches past its own group.
    var reachHigh: [Double] = []
    var reachLow: [Double] = []
    var boundaries: [Boundary] = []
    var decorations: [Decoration] = []
    /// How far elements reach before the section's start and past its end along the scroll axis
    /// (badges and boundary offsets can): what a query widens its section search by.
    var reachBefore = 0.0
    var reachAfter = 0.0
    /// An orthogonal section: the content's extent across the scroll axis (insets included),
    /// the extent it is seen through, and the leading edge of each group at offset 0.
    var orthogonal: Orthogonal?

    /// A badge: plain values (its kind and z come from `badgeStyles[style]`), so laying out and
    /// copying thousands of them counts no references.
    struct Badge: Sendable {
        var item: Int
        var style: Int
        var frame: Rect
    }

    struct BadgeStyle: Sendable {
        var kind: ElementKind
        var zIndex: Int
    }

    /// The section description's badges in order, as `Badge.style` numbers them.
    var badgeStyles: [BadgeStyle] = []

    /// One instance of the top-level group: its first item and badge, and its extent along the
    /// axis groups repeat on (its elements' union, badges included).
    struct Span: Sendable {
        var firstItem: Int
        var firstBadge: Int
        var low: Double
        var high: Double
        /// Where the group itself starts and ends on that axis (snapping uses it).
        var groupStart: Double
        var groupEnd: Double
    }

    struct Boundary: Sendable {
        var item: BoundaryItem
        /// Where it sits unpinned.
        var frame: Rect
    }

    struct Decoration: Sendable {
        var kind: ElementKind
        var frame: Rect
        var zIndex: Int
    }

    struct Orthogonal: Sendable {
        var behavior: OrthogonalScrollingBehavior
        var contentExtent: Double
        /// Where the section is seen from and how wide, across the scroll axis.
        var visibleStart: Double
        var visibleExtent: Double
        /// The greatest offset: content beyond the visible extent.
        var maximumOffset: Double { max(0, contentExtent - visibleExtent) }
    }

    /// The end of a span range `items` reads: the next span's first item, or the section's count.
    func itemEnd(ofSpan index: Int) -> Int { index + 1 < spans.count ? spans[index + 1].firstItem : cells.count }
    func badgeEnd(ofSpan index: Int) -> Int { index + 1 < spans.count ? spans[index + 1].firstBadge : badges.count }

    /// The spans whose elements may meet `low..<high` on the repeating axis.
    func spans(meeting low: Double, _ high: Double) -> Range<Int> {
        var first = 0
        var end = spans.count
        while first < end {
            let mid = (first + end) / 2
            if reachHigh[mid] > low { end = mid } else { first = mid + 1 }
        }
        var last = first
        var upper = spans.count
        while last < upper {
            let mid = (last + upper) / 2
            if reachLow[mid] < high { last = mid + 1 } else { upper = mid }
        }
        return first..<last
    }
}

/// Lays out one section from its description, the viewport and its items' sizes.
struct CompositionalSectionSolver {
    let description: SectionDescription
    /// The scroll axis as a physical axis (vertical scrolling: y).
    let main: PhysicalAxis
    let viewport: Viewport
    /// Each item's own size, or a negative width where it has none (the description decides).
    let sizes: UnsafeBufferPointer<Size>
    /// Open sizes of selected expanding items, by item index.
    let open: [Int: Size]
    /// Measured sizes of this section's estimated boundary items (by kind) and badges (by item
    /// index, then kind): what their estimated dimensions take.
    let boundarySizes: [ElementKind: Size]
    let badgeSizes: [Int: [ElementKind: Size]]
    /// The section's group as the solver walks it; its buffers, read through these copies of
    /// their pointers (the tree, held here, keeps them alive).
    private let tree: CompiledGroup
    private let nodes: UnsafeMutableBufferPointer<CompiledGroup.Node>
    private let groups: UnsafeMutableBufferPointer<CompiledGroup.Group>
    private let items: UnsafeMutableBufferPointer<CompiledGroup.Item>
    private let children: UnsafeMutableBufferPointer<Int>

    /// Cell frames while the section is laid out: a buffer of the solver's own (allocated by
    /// `solve`, copied into the section at the end), so the many writes check nothing.
    private var cells = UnsafeMutableBufferPointer<Rect>(start: nil, count: 0)
    private var badges: [CompositionalSection.Badge] = []
    private var cursor = 0
    /// Children of the groups being laid out, as a stack: each group uses the part above the
    /// height it found, so nested groups allocate nothing.
    private var slots: [Slot] = []
    /// How many of `slots` are in use (the rest are kept for reuse).
    private var slotCount = 0

    /// The first full instance of a static top-level group (one whose items take no sizes of
    /// their own: no estimated dimension), in its own coordinates: every later instance with
    /// items enough lays out the same, so it is copied rather than solved.
    private var template: Template?
    private var isStatic = false

    private struct Template {
        var cells: [Rect]
        /// Badges with `item` counted from the instance's first item.
        var badges: [CompositionalSection.Badge]
        var size: Size
    }

    /// A child of a group being laid out: which subitem, what it needs, where its items went.
    private struct Slot {
        var node: Int
        var size: Size
        var firstItem: Int
        var firstBadge: Int
        var endItem: Int
        var endBadge: Int
    }

    /// For each group (`CompiledGroup.groups`) whose fit is static: how many items an instance
    /// takes when items do not run out, once an instance has found it (-1 before).
    private var fitCounts: [Int] = []
    /// Whether flat groups take the one-pass path (`placeFlat`); off only to test it against
    /// the general one.
    private let usesFlatPath: Bool

    /// - Parameter tree: `description.group` compiled (`CompiledGroup`), when the caller keeps one.
    init(
        description: SectionDescription, tree: CompiledGroup? = nil, main: PhysicalAxis, viewport: Viewport,
        sizes: UnsafeBufferPointer<Size>, open: [Int: Size], boundarySizes: [ElementKind: Size] = [:],
        badgeSizes: [Int: [ElementKind: Size]] = [:], usesFlatPath: Bool = true
    ) {
        self.boundarySizes = boundarySizes
        self.badgeSizes = badgeSizes
        self.usesFlatPath = usesFlatPath
        self.description = description
        self.main = main
        self.viewport = viewport
        self.sizes = sizes
        self.open = open
        self.tree = tree ?? CompiledGroup(description.group)
        (nodes, groups, items, children) = (self.tree.nodes, self.tree.groups, self.tree.items, self.tree.children)
    }

    static let tolerance = 1e-9

    // MARK: Section

    /// The cross-axis insets `contentInsetsReference` adds: before and after.
    static func referenceInsets(_ reference: ContentInsetsReference, viewport: Viewport, cross: PhysicalAxis) -> (Double, Double) {
        func along(_ insets: EdgeInsets) -> (Double, Double) { cross == .x ? (insets.left, insets.right) : (insets.top, insets.bottom) }
        switch reference {
        case .none: return (0, 0)
        case .automatic, .safeArea: return along(viewport.safeAreaInsets)
        case .layoutMargins: return along(viewport.layoutMargins)
        case .readableContent:
            let margins = along(viewport.layoutMargins)
            guard let readable = viewport.readableWidth else { return margins }
            let extent = cross.extent(of: viewport.size)
            // UIKit's readable content guide: at most the readable width, centred, never
            // narrower than the margins leave.
            let side = max(0, (extent - readable) / 2)
            return (max(margins.0, side), max(margins.1, side))
        }
    }

    mutating func solve() -> CompositionalSection {
        let cross = main.other
        let insets = description.contentInsets
        let (referenceBefore, referenceAfter) = Self.referenceInsets(description.contentInsetsReference, viewport: viewport, cross: cross)
        let crossStart = referenceBefore
        let crossEnd = max(crossStart, cross.extent(of: viewport.size) - referenceAfter)
        let contentCrossStart = crossStart + insets.before(cross)
        let contentCrossExtent = max(0, crossEnd - insets.after(cross) - contentCrossStart)
        let viewportInsets = Self.physical(viewport.contentInsets)
        let visibleMain = max(0, main.extent(of: viewport.size) - viewportInsets.before(main) - viewportInsets.after(main))
        let container = main.size(
            along: max(0, visibleMain - insets.before(main) - insets.after(main)), across: contentCrossExtent)

        // Boundary items: the ones that extend the section before and after its content.
        let follow = description.supplementariesFollowContentInsets
        let boundaryCrossStart = follow ? contentCrossStart : crossStart
        let boundaryCrossExtent = follow ? contentCrossExtent : crossEnd - crossStart
        let boundaryContainer = main.size(along: visibleMain, across: boundaryCrossExtent)
        let boundarySizes = description.boundarySupplementaryItems.map { item in
            Self.measured(item.size.resolve(in: boundaryContainer), item.size, self.boundarySizes[item.kind])
        }
        var leadingExtent = 0.0
        var trailingExtent = 0.0
        for (item, size) in zip(description.boundarySupplementaryItems, boundarySizes) where item.extendsBoundary {
            switch Self.mainEdge(of: item.alignment, main: main) {
            case .before: leadingExtent = max(leadingExtent, main.extent(of: size))
            case .after: trailingExtent = max(trailingExtent, main.extent(of: size))
            case .neither: break
            }
        }

        cells = .allocate(capacity: sizes.count)
        cells.initialize(repeating: .zero)
        defer { cells.deallocate() }
        badges = []
        cursor = 0
        template = nil
        // Only flat groups with a static fit count (no allocation for the rest).
        fitCounts = tree.hasStaticFit ? Array(repeating: -1, count: groups.count) : []
        // Measured badges differ per item: then no two instances are alike.
        isStatic = !tree.takesOwnSizes && badgeSizes.isEmpty
        var spans = [CompositionalSection.Span]()
        let contentMainStart = leadingExtent + insets.before(main)
        let spacing = description.interGroupSpacing
        var contentMainEnd: Double
        var orthogonal: CompositionalSection.Orthogonal?
        if description.isOrthogonal {
            // Groups follow one another across the scroll axis; the section is as deep as the
            // deepest group.
            var position = contentCrossStart
            var deepest = 0.0
            var placed: [(span: CompositionalSection.Span, size: Size)] = []
            while cursor < sizes.count {
                let (firstItem, firstBadge) = (cursor, badges.count)
                let size = placeInstance(container: container, origin: .zero)
                if placed.isEmpty, let instances = reserveForTemplate() { placed.reserveCapacity(instances) }
                placed.append((CompositionalSection.Span(firstItem: firstItem, firstBadge: firstBadge, low: 0, high: 0, groupStart: 0, groupEnd: 0), size))
                deepest = max(deepest, main.extent(of: size))
            }
            if description.orthogonalScrollingBehavior == .groupPagingCentered, let first = placed.first {
                // Centred paging: the first group rests centred (docs/compositional-layout.md).
                position = max(position, crossStart + (crossEnd - crossStart - cross.extent(of: first.size)) / 2)
            }
            var trailingPad = insets.after(cross)
            if description.orthogonalScrollingBehavior == .groupPagingCentered, let last = placed.last {
                trailingPad = max(trailingPad, (crossEnd - crossStart - cross.extent(of: last.size)) / 2)
            }
            for (index, entry) in placed.enumerated() {
                let end = index + 1 < placed.count ? placed[index + 1].span.firstItem : sizes.count
                let badgeEnd = index + 1 < placed.count ? placed[index + 1].span.firstBadge : badges.count
                let origin = main.point(along: contentMainStart, across: position)
                translate(items: entry.span.firstItem..<end, badges: entry.span.firstBadge..<badgeEnd, by: origin)
                var span = entry.span
                span.groupStart = position
                span.groupEnd = position + cross.extent(of: entry.size)
                (span.low, span.high) = reach(items: span.firstItem..<end, badges: span.firstBadge..<badgeEnd, axis: cross, start: span.groupStart, end: span.groupEnd)
                spans.append(span)
                position = span.groupEnd + spacing
            }
            if !placed.isEmpty { position -= spacing }
            contentMainEnd = contentMainStart + deepest + insets.after(main)
            orthogonal = CompositionalSection.Orthogonal(
                behavior: description.orthogonalScrollingBehavior, contentExtent: position + trailingPad - crossStart,
                visibleStart: crossStart, visibleExtent: crossEnd - crossStart)
        } else {
            var position = contentMainStart
            while cursor < sizes.count {
                let (firstItem, firstBadge) = (cursor, badges.count)
                let size = placeInstance(container: container, origin: main.point(along: position, across: contentCrossStart))
                if spans.isEmpty, let instances = reserveForTemplate() { spans.reserveCapacity(instances) }
                let end = position + main.extent(of: size)
                let (low, high) = reach(items: firstItem..<cursor, badges: firstBadge..<badges.count, axis: main, start: position, end: end)
                spans.append(CompositionalSection.Span(firstItem: firstItem, firstBadge: firstBadge, low: low, high: high, groupStart: position, groupEnd: end))
                position = end + spacing
            }
            if !spans.isEmpty { position -= spacing }
            contentMainEnd = position + insets.after(main)
        }
        let extent = contentMainEnd + trailingExtent

        var section = CompositionalSection()
        section.extent = extent
        section.orthogonal = orthogonal
        for (item, size) in zip(description.boundarySupplementaryItems, boundarySizes) {
            let mainPosition: Double
            switch (Self.mainEdge(of: item.alignment, main: main), item.extendsBoundary) {
            case (.before, true): mainPosition = leadingExtent - main.extent(of: size)
            case (.after, true): mainPosition = contentMainEnd
            case (.after, false): mainPosition = contentMainEnd - main.extent(of: size)
            case (.before, false), (.neither, _): mainPosition = leadingExtent
            }
            let fraction = item.alignment.edges.fraction(cross)
            let crossPosition = boundaryCrossStart + fraction * (boundaryCrossExtent - cross.extent(of: size))
            let origin = main.point(along: mainPosition, across: crossPosition)
            let frame = Rect(x: origin.x + item.offset.x, y: origin.y + item.offset.y, width: size.width, height: size.height)
            section.boundaries.append(CompositionalSection.Boundary(item: item, frame: frame))
        }
        for decoration in description.decorationItems {
            let inset = decoration.contentInsets
            let low = main.point(along: leadingExtent + inset.before(main), across: crossStart + inset.before(cross))
            let along = max(0, contentMainEnd - leadingExtent - inset.before(main) - inset.after(main))
            let across = max(0, crossEnd - crossStart - inset.before(cross) - inset.after(cross))
            let size = main.size(along: along, across: across)
            section.decorations.append(CompositionalSection.Decoration(
                kind: decoration.kind, frame: Rect(x: low.x, y: low.y, width: size.width, height: size.height), zIndex: decoration.zIndex))
        }

        section.cells = Array(cells)
        section.badgeStyles = tree.badgeStyles
        // A group places its items' badges after the badges of the groups nested in it: put
        // them in item order (the lookup by item bisects), each item's in description order.
        // Every span's badges stay together, since spans hold consecutive items.
        if zip(badges, badges.dropFirst()).contains(where: { $0.item > $1.item }) {
            badges = badges.enumerated().sorted { ($0.element.item, $0.offset) < ($1.element.item, $1.offset) }.map(\.element)
        }
        section.badges = badges
        section.spans = spans
        var reachHigh = [Double](repeating: 0, count: spans.count)
        var reachLow = reachHigh
        var high = -Double.infinity
        var low = Double.infinity
        for index in spans.indices {
            high = max(high, spans[index].high)
            reachHigh[index] = high
            let back = spans.count - 1 - index
            low = min(low, spans[back].low)
            reachLow[back] = low
        }
        section.reachHigh = reachHigh
        section.reachLow = reachLow
        var before = 0.0
        var after = 0.0
        func widen(_ frame: Rect) {
            let coordinate = main.coordinate(of: Point(x: frame.minX, y: frame.minY))
            before = max(before, -coordinate)
            after = max(after, coordinate + main.extent(of: frame.size) - extent)
        }
        for boundary in section.boundaries { widen(boundary.frame) }
        // A background's insets can place it past an empty section's end.
        for decoration in section.decorations { widen(decoration.frame) }
        for badge in badges { widen(badge.frame) }
        for span in spans where section.orthogonal == nil {
            before = max(before, -span.low)
            after = max(after, span.high - extent)
        }
        if section.orthogonal != nil {
            for cell in cells { widen(cell) }
        }
        section.reachBefore = before
        section.reachAfter = after
        return section
    }

    enum Edge { case before, after, neither }

    /// Which end of the scroll axis an alignment names.
    static func mainEdge(of alignment: BoundaryAlignment, main: PhysicalAxis) -> Edge {
        switch alignment.edges.fraction(main) {
        case 0: .before
        case 1: .after
        default: .neither
        }
    }

    static func physical(_ insets: EdgeInsets) -> DirectionalInsets {
        DirectionalInsets(top: insets.top, leading: insets.left, bottom: insets.bottom, trailing: insets.right)
    }

    /// The extent of a span's elements along `axis`, at least the group's own: cells can
    /// overflow their group (a first subitem larger than it still goes), badges their cells.
    private func reach(items: Range<Int>, badges range: Range<Int>, axis: PhysicalAxis, start: Double, end: Double) -> (Double, Double) {
        var low = start
        var high = end
        func widen(_ frame: Rect) {
            let coordinate = axis.coordinate(of: frame.origin)
            low = min(low, coordinate)
            high = max(high, coordinate + axis.extent(of: frame.size))
        }
        for index in items { widen(cells[index]) }
        for badge in badges[range] { widen(badge.frame) }
        return (low, high)
    }

    private mutating func translate(items: Range<Int>, badges range: Range<Int>, by offset: Point) {
        guard offset.x != 0 || offset.y != 0 else { return }
        for index in items { cells[index] = cells[index].offsetBy(dx: offset.x, dy: offset.y) }
        for index in range { badges[index].frame = badges[index].frame.offsetBy(dx: offset.x, dy: offset.y) }
    }

    // MARK: Groups

    /// The size of one leaf item in `container` (its group's content area): estimated axes take
    /// the item's open, measured or own size when it has one.
    private func itemSize(_ item: CompiledGroup.Node, index: Int, container: Size) -> Size {
        var size = item.size.resolve(in: container)
        guard item.estimated.x || item.estimated.y else { return size }
        let own = open.isEmpty ? sizes[index] : open[index] ?? sizes[index]
        if own.width >= 0 {
            if item.estimated.x { size.width = own.width }
            if item.estimated.y { size.height = own.height }
        }
        return size
    }

    /// After the first instance of a static group: how many instances the section has (each
    /// takes as many items as the template), with room reserved for their badges, so the arrays
    /// grow once. Nil for a group that is not static (instances vary).
    private mutating func reserveForTemplate() -> Int? {
        guard let template, !template.cells.isEmpty else { return nil }
        let instances = (sizes.count + template.cells.count - 1) / template.cells.count
        badges.reserveCapacity(instances * template.badges.count)
        return instances
    }

    /// One instance of the section's group at the cursor, with its origin at `origin`: copied
    /// from the template when the group is static and items enough remain (then it would be
    /// laid out exactly so), else laid out.
    private mutating func placeInstance(container: Size, origin: Point) -> Size {
        if let template, sizes.count - cursor >= template.cells.count {
            let first = cursor
            for (offset, frame) in template.cells.enumerated() { cells[first + offset] = frame.offsetBy(dx: origin.x, dy: origin.y) }
            for var badge in template.badges {
                badge.item += first
                badge.frame = badge.frame.offsetBy(dx: origin.x, dy: origin.y)
                badges.append(badge)
            }
            cursor += template.cells.count
            return template.size
        }
        let (firstItem, firstBadge) = (cursor, badges.count)
        let size = place(0, container: container, origin: origin)
        if isStatic && template == nil {
            template = Template(
                cells: cells[firstItem..<cursor].map { $0.offsetBy(dx: -origin.x, dy: -origin.y) },
                badges: badges[firstBadge...].map { badge in
                    var relative = badge
                    relative.item -= firstItem
                    relative.frame = relative.frame.offsetBy(dx: -origin.x, dy: -origin.y)
                    return relative
                },
                size: size)
        }
        return size
    }

    /// What both ways of placing a group start from: its size in the container, which axes
    /// its content decides, and the content area inside its insets (ignored on estimated axes).
    private struct GroupBox {
        let along: PhysicalAxis
        let across: PhysicalAxis
        let provisional: Size
        let alongEstimated: Bool
        let acrossEstimated: Bool
        /// The insets before the content along and across the group's axis.
        let insetBefore: Double
        let crossBefore: Double
        let contentAlong: Double
        let contentAcross: Double
        var content: Size { along.size(along: contentAlong, across: contentAcross) }

        /// - Parameter forced: an extent on one axis the group takes instead of its own (a copy
        ///   of `subitem` + `count` shares its parent's extent), which is then not estimated.
        init(_ node: CompiledGroup.Node, _ details: CompiledGroup.Group, in container: Size, forced: (axis: PhysicalAxis, extent: Double)?) {
            along = details.axis
            across = along.other
            var size = node.size.resolve(in: container)
            var estimated = node.estimated
            if let forced {
                size = forced.axis == .x ? Size(width: forced.extent, height: size.height) : Size(width: size.width, height: forced.extent)
                if forced.axis == .x { estimated.x = false } else { estimated.y = false }
            }
            provisional = size
            alongEstimated = along == .x ? estimated.x : estimated.y
            acrossEstimated = along == .x ? estimated.y : estimated.x
            let insets = details.contentInsets
            insetBefore = alongEstimated ? 0 : insets.before(along)
            let insetAfter = alongEstimated ? 0 : insets.after(along)
            crossBefore = acrossEstimated ? 0 : insets.before(across)
            let crossAfter = acrossEstimated ? 0 : insets.after(across)
            contentAlong = max(0, along.extent(of: provisional) - insetBefore - insetAfter)
            contentAcross = max(0, across.extent(of: provisional) - crossBefore - crossAfter)
        }
    }

    /// Lays out one instance of the group at node `group` with its origin at `origin` in
    /// `container`, taking items from `cursor` on, and returns its size. At least one item is
    /// taken (a first subitem that does not fit still goes, as in UIKit, so every instance makes
    /// progress). `forced`: the extent on one axis its parent gives it instead of its own size's
    /// (`GroupBox`).
    private mutating func place(
        _ group: Int, container: Size, origin instanceOrigin: Point = .zero, forced: (axis: PhysicalAxis, extent: Double)? = nil
    ) -> Size {
        let node = nodes[group]
        let details = groups[node.detail]
        if details.isFlat && usesFlatPath { return placeFlat(node, details, container: container, origin: instanceOrigin, forced: forced) }
        let box = GroupBox(node, details, in: container, forced: forced)
        let (along, across) = (box.along, box.across)
        let spacing = details.spacing
        let subitems = details.children
        let count = details.count

        let base = slotCount
        var used = 0.0
        var index = 0
        while cursor < sizes.count {
            if count > 0 && index == count { break }
            // An estimated extent grows to fit: each subitem once. A fixed one repeats them
            // until the next does not fit.
            if count == 0 && box.alongEstimated && index == subitems.count { break }
            let child = children[subitems.lowerBound + index % subitems.count]
            let gap = index > 0 ? spacing.minimum : 0
            let childNode = nodes[child]
            let edges = childNode.edges
            let edgeMinimum = edges.before(along) + edges.after(along)
            // `subitem` + `count`: the copies share the extent along the axis equally, whatever
            // their own. A copy resolves its other dimension in the group as any subitem does.
            // (`repeatingSubitem` copies, like `subitems`, take their own size in the group.)
            let share = details.sharesExtent
                ? max(0, (box.contentAlong - spacing.minimum * Double(count - 1)) / Double(count) - edgeMinimum) : nil
            let start = (cursor, badges.count)
            var size: Size
            if childNode.isItem {
                size = itemSize(childNode, index: cursor, container: box.content)
                if let share { size = along.size(along: share, across: across.extent(of: size)) }
                cursor += 1
            } else {
                // A group copy is laid out at the share, so its own subitems' fractions resolve
                // against the extent it has, not a fraction of it.
                size = place(child, container: box.content, forced: share.map { (along, $0) })
            }
            let need = gap + edgeMinimum + along.extent(of: size)
            // A fixed count takes its copies whether or not they fit (UIKit leaves that to the
            // description); `subitems` stop at the first that does not.
            if index > 0 && count == 0 && !box.alongEstimated && used + need > box.contentAlong + Self.tolerance {
                // Does not fit: give the items back for the next instance.
                cursor = start.0
                if badges.count > start.1 { badges.removeLast(badges.count - start.1) }
                break
            }
            used += need
            let slot = Slot(node: child, size: size, firstItem: start.0, firstBadge: start.1, endItem: cursor, endBadge: badges.count)
            if slotCount == slots.count { slots.append(slot) } else { slots[slotCount] = slot }
            slotCount += 1
            index += 1
        }

        if details.hasUniformChildren { applyUniformSizes(from: base) }
        used = 0
        var deepest = 0.0
        var flexible = spacing.isFlexible ? max(0, slotCount - base - 1) : 0
        for position in base..<slotCount {
            let slot = slots[position]
            let edges = nodes[slot.node].edges
            used += (position > base ? spacing.minimum : 0) + edges.before(along) + edges.after(along) + along.extent(of: slot.size)
            deepest = max(deepest, edges.before(across) + across.extent(of: slot.size) + edges.after(across))
            if edges.flexibleBefore(along) { flexible += 1 }
            if edges.flexibleAfter(along) { flexible += 1 }
        }
        let groupAlong = box.alongEstimated ? used : along.extent(of: box.provisional)
        let acrossContent = box.acrossEstimated ? deepest : box.contentAcross
        let groupAcross = box.acrossEstimated ? deepest : across.extent(of: box.provisional)

        // Space left along the axis goes to the flexible gaps and edges in equal shares.
        let leftover = box.alongEstimated ? 0 : max(0, box.contentAlong - used)
        let share = flexible > 0 ? leftover / Double(flexible) : 0

        var position = box.insetBefore
        for index in base..<slotCount {
            let slot = slots[index]
            let child = nodes[slot.node]
            let edges = child.edges
            if index > base { position += spacing.minimum + (spacing.isFlexible ? share : 0) }
            position += edges.before(along) + (edges.flexibleBefore(along) ? share : 0)
            // Across: fixed edges push, flexible ones share what the group leaves.
            let room = max(0, acrossContent - across.extent(of: slot.size) - edges.before(across) - edges.after(across))
            let flexibleAcross = (edges.flexibleBefore(across) ? 1 : 0) + (edges.flexibleAfter(across) ? 1 : 0)
            let acrossPosition = box.crossBefore + edges.before(across) + (edges.flexibleBefore(across) ? room / Double(flexibleAcross) : 0)
            var origin = along.point(along: position, across: acrossPosition)
            origin.x += instanceOrigin.x
            origin.y += instanceOrigin.y
            if child.isItem {
                let item = items[child.detail]
                cells[slot.firstItem] = frame(of: child, insets: item.contentInsets, origin: origin, size: slot.size)
                if !item.badges.isEmpty { addBadges(item.badges, index: slot.firstItem) }
            } else {
                translate(items: slot.firstItem..<slot.endItem, badges: slot.firstBadge..<slot.endBadge, by: origin)
            }
            position += along.extent(of: slot.size)
            position += edges.after(along) + (edges.flexibleAfter(along) ? share : 0)
        }
        slotCount = base
        return along.size(along: groupAlong, across: groupAcross)
    }

    /// `place` for a flat group (`CompiledGroup.Group.isFlat`): with fixed gaps only, an item's
    /// position along the axis is the extent of those before it, and across it the fixed edge
    /// before it, so each item is placed as it is taken and nothing is stored or given back.
    /// The same arithmetic as `place`, in the same order (the test compares the two).
    private mutating func placeFlat(
        _ node: CompiledGroup.Node, _ details: CompiledGroup.Group, container: Size, origin: Point, forced: (axis: PhysicalAxis, extent: Double)?
    ) -> Size {
        let box = GroupBox(node, details, in: container, forced: forced)
        let (along, across) = (box.along, box.across)
        let gap = details.spacing.minimum
        let subitems = details.children
        let known = details.fitIsStatic ? fitCounts[node.detail] : -1

        var fitted = 0.0
        var used = 0.0
        var deepest = 0.0
        var position = box.insetBefore
        var index = 0
        while cursor < sizes.count {
            if box.alongEstimated && index == subitems.count { break }
            if index == known { break }
            let child = nodes[children[subitems.lowerBound + (subitems.count == 1 ? 0 : index % subitems.count)]]
            let edges = child.edges
            let size = itemSize(child, index: cursor, container: box.content)
            // Summed as `place` sums them (its fit test, then its extent), to the last bit.
            let need = (index > 0 ? gap : 0) + (edges.before(along) + edges.after(along)) + along.extent(of: size)
            if known < 0 && index > 0 && !box.alongEstimated && fitted + need > box.contentAlong + Self.tolerance {
                if details.fitIsStatic { fitCounts[node.detail] = index }
                break
            }
            fitted += need
            used += (index > 0 ? gap : 0) + edges.before(along) + edges.after(along) + along.extent(of: size)
            if index > 0 { position += gap }
            position += edges.before(along)
            var cellOrigin = along.point(along: position, across: box.crossBefore + edges.before(across))
            cellOrigin.x += origin.x
            cellOrigin.y += origin.y
            let item = items[child.detail]
            cells[cursor] = frame(of: child, insets: item.contentInsets, origin: cellOrigin, size: size)
            if !item.badges.isEmpty { addBadges(item.badges, index: cursor) }
            position += along.extent(of: size)
            position += edges.after(along)
            deepest = max(deepest, edges.before(across) + across.extent(of: size) + edges.after(across))
            cursor += 1
            index += 1
        }
        let groupAlong = box.alongEstimated ? used : along.extent(of: box.provisional)
        let groupAcross = box.acrossEstimated ? deepest : across.extent(of: box.provisional)
        return along.size(along: groupAlong, across: groupAcross)
    }

    /// `uniformAcrossSiblings`: the group's leaf items with such a dimension take the largest
    /// extent any of them has on that axis.
    private mutating func applyUniformSizes(from base: Int) {
        for axis in PhysicalAxis.both {
            func isUniform(_ slot: Slot) -> Bool {
                let uniform = nodes[slot.node].uniform
                return axis == .x ? uniform.x : uniform.y
            }
            var largest = -1.0
            for slot in slots[base..<slotCount] where isUniform(slot) {
                largest = max(largest, axis.extent(of: slot.size))
            }
            guard largest >= 0 else { continue }
            for position in base..<slotCount {
                if isUniform(slots[position]) {
                    let size = slots[position].size
                    slots[position].size = axis == .x ? Size(width: largest, height: size.height) : Size(width: size.width, height: largest)
                }
            }
        }
    }

    /// The cell's frame: its slot inset by its content insets, except on estimated axes.
    private func frame(of item: CompiledGroup.Node, insets: DirectionalInsets, origin: Point, size: Size) -> Rect {
        let left = item.estimated.x ? 0 : insets.leading
        let right = item.estimated.x ? 0 : insets.trailing
        let top = item.estimated.y ? 0 : insets.top
        let bottom = item.estimated.y ? 0 : insets.bottom
        return Rect(
            x: origin.x + left, y: origin.y + top,
            width: max(0, size.width - left - right), height: max(0, size.height - top - bottom))
    }

    private mutating func addBadges(_ range: Range<Int>, index: Int) {
        let cell = cells[index]
        let measured = badgeSizes.isEmpty ? nil : badgeSizes[index]
        for style in range {
            let badge = tree.badges[style]
            let size = Self.measured(badge.size.resolve(in: cell.size), badge.size, measured?[badge.kind])
            badges.append(CompositionalSection.Badge(item: index, style: style, frame: Self.anchored(badge, size: size, to: cell)))
        }
    }

    /// `resolved` with a measurement on the dimensions `size` estimates.
    static func measured(_ resolved: Size, _ size: CompositionalSize, _ measurement: Size?) -> Size {
        guard let measurement else { return resolved }
        return Size(
            width: size.width.isEstimated ? measurement.width : resolved.width,
            height: size.height.isEstimated ? measurement.height : resolved.height)
    }

    /// The badge's frame: the point its item anchor names (the container anchor's edges when it
    /// has none) sits on the point the container anchor names on the cell, then both offsets.
    static func anchored(_ badge: AnchoredItem, size: Size, to cell: Rect) -> Rect {
        let container = badge.containerAnchor
        let own = badge.itemAnchor ?? CompositionalAnchor(edges: container.edges, offset: .absolute(.zero))
        func shift(_ anchor: CompositionalAnchor) -> Point {
            switch anchor.offset {
            case .absolute(let point): point
            case .fractional(let point): Point(x: point.x * size.width, y: point.y * size.height)
            }
        }
        let target = Point(
            x: cell.minX + container.edges.fraction(.x) * cell.width, y: cell.minY + container.edges.fraction(.y) * cell.height)
        let containerShift = shift(container)
        let itemShift = badge.itemAnchor.map(shift) ?? .zero
        return Rect(
            x: target.x - own.edges.fraction(.x) * size.width + containerShift.x + itemShift.x,
            y: target.y - own.edges.fraction(.y) * size.height + containerShift.y + itemShift.y,
            width: size.width, height: size.height)
    }
}
