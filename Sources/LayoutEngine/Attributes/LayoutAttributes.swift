import LayoutGeometry

/// The kind of element a frame belongs to: a cell, a section's header or footer, or any other
/// kind a strategy names (compositional layout's boundary items, badges and backgrounds).
///
/// Kinds order cells first, then headers, then footers, then every other kind by name: the
/// protocol's element order.
public struct ElementKind: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String

    /// Any name; `isValidName` says which ones a client may give a kind of its own.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let cell = ElementKind(rawValue: "cell")
    public static let header = ElementKind(rawValue: "header")
    public static let footer = ElementKind(rawValue: "footer")

    /// The kinds every strategy may produce.
    public static let standard: [ElementKind] = [.cell, .header, .footer]

    /// A name a layout description may give a kind of its own: 1 to 64 ASCII letters, digits,
    /// `-`, `_` or `.`, and not `cell`.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name != "cell"
            && name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".")
            }
    }

    /// 0 for cells, 1 headers, 2 footers, 3 any other kind (then ordered by name).
    public var rank: Int {
        switch rawValue {
        case "cell": 0
        case "header": 1
        case "footer": 2
        default: 3
        }
    }

    public static func < (lhs: ElementKind, rhs: ElementKind) -> Bool {
        (lhs.rank, lhs.rawValue) < (rhs.rank, rhs.rawValue)
    }

    public var description: String { rawValue }
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
    /// The item index for cells and for elements anchored to an item (badges); `nil` for
    /// headers, footers and other elements of a section.
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
