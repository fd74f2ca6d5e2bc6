import LayoutGeometry

/// The kind of element a frame belongs to.
public enum ElementKind: String, Hashable, Sendable, CaseIterable, Comparable {
    case cell, header, footer

    public static func < (lhs: ElementKind, rhs: ElementKind) -> Bool {
        lhs.order < rhs.order
    }

    private var order: Int {
        switch self {
        case .cell: 0
        case .header: 1
        case .footer: 2
        }
    }
}

/// Identifies one element across layouts: cells by item id, headers and footers by section id
/// (item and section ids are separate namespaces).
public struct ElementKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var kind: ElementKind
    public var id: String

    public init(kind: ElementKind, id: String) {
        self.kind = kind
        self.id = id
    }

    public static func < (lhs: ElementKey, rhs: ElementKey) -> Bool {
        (lhs.kind, lhs.id) < (rhs.kind, rhs.id)
    }

    public var description: String { "\(kind.rawValue):\(id)" }
}

/// Everything a client needs to place and draw one element, as UIKit's
/// `UICollectionViewLayoutAttributes` carries it, plus named strategy effects (for example an
/// ultravisual cover alpha) so a client can render the whole effect without redoing the math.
public struct LayoutAttributes: Hashable, Sendable, CustomStringConvertible {
    public var kind: ElementKind
    public var id: String
    public var section: Int
    /// The item index for cells; `nil` for headers and footers.
    public var item: Int?
    public var frame: Rect
    public var zIndex: Int
    public var alpha: Double
    public var isHidden: Bool
    public var transform: Transform2D
    public var effects: [String: Double]

    public init(
        kind: ElementKind, id: String, section: Int, item: Int?, frame: Rect,
        zIndex: Int = 0, alpha: Double = 1, isHidden: Bool = false,
        transform: Transform2D = .identity, effects: [String: Double] = [:]
    ) {
        self.kind = kind
        self.id = id
        self.section = section
        self.item = item
        self.frame = frame
        self.zIndex = zIndex
        self.alpha = alpha
        self.isHidden = isHidden
        self.transform = transform
        self.effects = effects
    }

    public var key: ElementKey { ElementKey(kind: kind, id: id) }

    public var indexPath: ItemIndexPath? {
        item.map { ItemIndexPath(section: section, item: $0) }
    }

    public var description: String {
        let position = item.map { "[\(section), \($0)]" } ?? "[\(section)]"
        return "\(kind.rawValue) \(id) \(position) \(frame) z\(zIndex)"
    }
}
