/// Where an item currently sits: derived from the model's order, never stored by clients
/// (clients address items by id). Named apart from Foundation's `IndexPath` so modules that
/// import both need no qualification.
public struct ItemIndexPath: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var section: Int
    public var item: Int

    public init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    public static func < (lhs: ItemIndexPath, rhs: ItemIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    public var description: String { "[\(section), \(item)]" }
}
