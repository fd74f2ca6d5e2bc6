import LayoutGeometry

// The parts of a compositional layout description, as UIKit's NSCollectionLayout* classes name
// them. docs/compositional-layout.md has the rules; protocol/strategies.md the JSON.

/// One dimension of an item's, group's or supplementary's size (`NSCollectionLayoutDimension`).
public enum CompositionalDimension: Hashable, Sendable {
    /// Exactly this many points.
    case absolute(Double)
    /// This many points until the item is measured (`view.measure`), then the measurement.
    case estimated(Double)
    /// This fraction of the containing group's width (of the section's container for a
    /// top-level group or a boundary item).
    case fractionalWidth(Double)
    /// This fraction of the containing group's height.
    case fractionalHeight(Double)
    /// Estimated, then the largest of the sizes of the items beside it in the same group.
    case uniformAcrossSiblings(Double)

    /// Whether the content decides the extent (insets on this axis are ignored, as UIKit does).
    var isEstimated: Bool {
        switch self {
        case .estimated, .uniformAcrossSiblings: true
        default: false
        }
    }

    /// The extent in a container of `container` points wide and high; an estimated dimension
    /// gives its estimate.
    func resolve(in container: Size) -> Double {
        switch self {
        case .absolute(let value), .estimated(let value), .uniformAcrossSiblings(let value): value
        case .fractionalWidth(let fraction): fraction * container.width
        case .fractionalHeight(let fraction): fraction * container.height
        }
    }
}

/// A width and a height (`NSCollectionLayoutSize`).
public struct CompositionalSize: Hashable, Sendable {
    public var width: CompositionalDimension
    public var height: CompositionalDimension

    func dimension(_ axis: PhysicalAxis) -> CompositionalDimension { axis == .x ? width : height }

    func resolve(in container: Size) -> Size {
        Size(width: width.resolve(in: container), height: height.resolve(in: container))
    }
}

/// x or y: groups lay out along a physical axis whatever the scroll direction.
enum PhysicalAxis: Hashable, Sendable {
    case x, y

    var other: PhysicalAxis { self == .x ? .y : .x }
    static let both: [PhysicalAxis] = [.x, .y]

    func extent(of size: Size) -> Double { self == .x ? size.width : size.height }
    func coordinate(of point: Point) -> Double { self == .x ? point.x : point.y }
    func size(along: Double, across: Double) -> Size {
        self == .x ? Size(width: along, height: across) : Size(width: across, height: along)
    }
    func point(along: Double, across: Double) -> Point {
        self == .x ? Point(x: along, y: across) : Point(x: across, y: along)
    }
}

/// A gap: exactly `fixed`, or at least `flexible` and a share of the space left over
/// (`NSCollectionLayoutSpacing`).
public enum CompositionalSpacing: Hashable, Sendable {
    case fixed(Double)
    case flexible(Double)

    var minimum: Double {
        switch self {
        case .fixed(let value), .flexible(let value): value
        }
    }

    var isFlexible: Bool {
        if case .flexible = self { true } else { false }
    }
}

/// Insets by leading and trailing edge (`NSDirectionalEdgeInsets`); a right-to-left view
/// mirrors the whole layout, so leading is left here.
public struct DirectionalInsets: Hashable, Sendable {
    public var top = 0.0, leading = 0.0, bottom = 0.0, trailing = 0.0

    public static let zero = DirectionalInsets()

    func before(_ axis: PhysicalAxis) -> Double { axis == .x ? leading : top }
    func after(_ axis: PhysicalAxis) -> Double { axis == .x ? trailing : bottom }
}

/// Space outside an item on each edge, applied before its insets (`NSCollectionLayoutEdgeSpacing`).
public struct EdgeSpacing: Hashable, Sendable {
    public var leading: CompositionalSpacing?
    public var top: CompositionalSpacing?
    public var trailing: CompositionalSpacing?
    public var bottom: CompositionalSpacing?

    static let none = EdgeSpacing()

    func before(_ axis: PhysicalAxis) -> CompositionalSpacing? { axis == .x ? leading : top }
    func after(_ axis: PhysicalAxis) -> CompositionalSpacing? { axis == .x ? trailing : bottom }
}

/// Edges of a rectangle an anchor names: none is the centre on that axis.
public struct AnchorEdges: OptionSet, Hashable, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let top = AnchorEdges(rawValue: 1)
    public static let leading = AnchorEdges(rawValue: 2)
    public static let bottom = AnchorEdges(rawValue: 4)
    public static let trailing = AnchorEdges(rawValue: 8)

    /// 0 for the leading (top) edge, 1 for the trailing (bottom) edge, ½ for neither.
    func fraction(_ axis: PhysicalAxis) -> Double {
        let before: AnchorEdges = axis == .x ? .leading : .top
        let after: AnchorEdges = axis == .x ? .trailing : .bottom
        if contains(before) { return 0 }
        if contains(after) { return 1 }
        return 0.5
    }
}

/// Where a supplementary item attaches to its container (`NSCollectionLayoutAnchor`).
public struct CompositionalAnchor: Hashable, Sendable {
    public enum Offset: Hashable, Sendable {
        /// Points.
        case absolute(Point)
        /// Fractions of the supplementary item's own width and height.
        case fractional(Point)
    }

    public var edges: AnchorEdges
    public var offset: Offset
}

/// A supplementary item attached to an item: a badge (`NSCollectionLayoutSupplementaryItem`).
public struct AnchoredItem: Hashable, Sendable {
    public var kind: ElementKind
    public var size: CompositionalSize
    public var containerAnchor: CompositionalAnchor
    /// The point of the supplementary item placed on the container's anchor point; nil: the
    /// same edges as the container anchor, so the badge sits inside that corner.
    public var itemAnchor: CompositionalAnchor?
    public var zIndex: Int
}

/// A leaf of a group: one cell (`NSCollectionLayoutItem`).
public struct ItemDescription: Hashable, Sendable {
    public var size: CompositionalSize
    public var contentInsets: DirectionalInsets
    public var edgeSpacing: EdgeSpacing
    public var supplementaryItems: [AnchoredItem]
}

/// A group: items and groups along one axis (`NSCollectionLayoutGroup`).
public struct GroupDescription: Hashable, Sendable {
    public enum Direction: String, Hashable, Sendable, CaseIterable {
        case horizontal, vertical

        var axis: PhysicalAxis { self == .horizontal ? .x : .y }
    }

    /// How an instance takes its subitems: the three ways UIKit builds a group.
    public enum Repetition: Hashable, Sendable {
        /// `subitems` (`horizontal(layoutSize:subitems:)`): the subitems in order, repeated
        /// while the next one fits; on an estimated axis each once.
        case fill
        /// `repeatingSubitem` + `count` (iOS 16's `horizontal(layoutSize:repeatingSubitem:count:)`):
        /// exactly `count` copies of the one subitem, each at its own size; that they fit is the
        /// description's responsibility, as Apple's documentation says (they overflow otherwise).
        case repeating(count: Int)
        /// `subitem` + `count` (iOS 13's `horizontal(layoutSize:subitem:count:)`, deprecated in
        /// iOS 16): exactly `count` equally sized copies filling the group's extent along its
        /// axis, less the spacing between them; the subitem's own extent along it is ignored.
        case equal(count: Int)

        /// The fixed number of copies, or nil for `fill`.
        var count: Int? {
            switch self {
            case .fill: nil
            case .repeating(let count), .equal(let count): count
            }
        }

        /// `equal`: the copies share the group's extent.
        var sharesExtent: Bool {
            if case .equal = self { return true }
            return false
        }
    }

    public var direction: Direction
    public var size: CompositionalSize
    /// The subitems in order (one for `repeating` and `equal`).
    public var subitems: [ElementDescription]
    public var repetition: Repetition
    public var interItemSpacing: CompositionalSpacing?
    public var contentInsets: DirectionalInsets
    public var edgeSpacing: EdgeSpacing
}

/// An item or a group, as a group's subitem.
public indirect enum ElementDescription: Hashable, Sendable {
    case item(ItemDescription)
    case group(GroupDescription)

    var size: CompositionalSize {
        switch self {
        case .item(let item): item.size
        case .group(let group): group.size
        }
    }

    var edgeSpacing: EdgeSpacing {
        switch self {
        case .item(let item): item.edgeSpacing
        case .group(let group): group.edgeSpacing
        }
    }
}

/// Where a boundary item sits on its section (`NSRectAlignment`).
public enum BoundaryAlignment: String, Hashable, Sendable, CaseIterable {
    case top, topLeading, leading, bottomLeading, bottom, bottomTrailing, trailing, topTrailing

    /// The anchor edges the alignment names.
    var edges: AnchorEdges {
        switch self {
        case .top: .top
        case .topLeading: [.top, .leading]
        case .leading: .leading
        case .bottomLeading: [.bottom, .leading]
        case .bottom: .bottom
        case .bottomTrailing: [.bottom, .trailing]
        case .trailing: .trailing
        case .topTrailing: [.top, .trailing]
        }
    }
}

/// A header, footer or any named kind on a section's boundary
/// (`NSCollectionLayoutBoundarySupplementaryItem`).
public struct BoundaryItem: Hashable, Sendable {
    public var kind: ElementKind
    public var size: CompositionalSize
    public var alignment: BoundaryAlignment
    public var offset: Point
    public var extendsBoundary: Bool
    public var pinToVisibleBounds: Bool
    public var zIndex: Int
}

/// A view behind a section's content: its background (`NSCollectionLayoutDecorationItem`).
public struct DecorationItem: Hashable, Sendable {
    public var kind: ElementKind
    public var contentInsets: DirectionalInsets
    public var zIndex: Int
}

/// Which of the viewport's margins a section's insets are measured from
/// (`UIContentInsetsReference`).
public enum ContentInsetsReference: String, Hashable, Sendable, CaseIterable {
    /// The safe area (what UIKit's automatic reference resolves to for a plain collection view).
    case automatic
    case none, safeArea, layoutMargins, readableContent
}

/// How a section scrolls across the main scroll direction
/// (`UICollectionLayoutSectionOrthogonalScrollingBehavior`).
public enum OrthogonalScrollingBehavior: String, Hashable, Sendable, CaseIterable {
    case none, continuous, continuousGroupLeadingBoundary, paging, groupPaging, groupPagingCentered
}

/// One section's layout (`NSCollectionLayoutSection`).
public struct SectionDescription: Hashable, Sendable {
    public var group: GroupDescription
    public var interGroupSpacing: Double
    public var contentInsets: DirectionalInsets
    public var contentInsetsReference: ContentInsetsReference
    public var orthogonalScrollingBehavior: OrthogonalScrollingBehavior
    public var boundarySupplementaryItems: [BoundaryItem]
    public var decorationItems: [DecorationItem]
    /// Whether boundary items are inset by the section's content insets across the scroll
    /// direction (`supplementariesFollowContentInsets`, UIKit's default true).
    public var supplementariesFollowContentInsets: Bool

    var isOrthogonal: Bool { orthogonalScrollingBehavior != .none }
}
