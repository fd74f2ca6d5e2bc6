import LayoutGeometry

/// One change of an atomic batch (UIKit's `performBatchUpdates`, by id).
///
/// Positions are in the *final* state, after the whole batch, as UIKit's insertion and move
/// destinations are: the batch removes what it deletes or moves, replaces what it reloads, then
/// inserts sections and then items in ascending order of their final positions.
public enum BatchUpdate: Hashable, Sendable {
    case insertItems([ItemSpec], section: String, at: Int)
    case deleteItems([String])
    case moveItem(String, toSection: String, at: Int)
    /// Same ids, new sizes (content changed).
    case reloadItems([ItemSpec])
    case insertSections([SectionSpec], at: Int)
    case deleteSections([String])
    case moveSection(String, to: Int)
    /// Same section ids; the sections' items and supplementary sizes are replaced.
    case reloadSections([SectionSpec])

    /// How many items and sections the update names: what the batch-size limit counts.
    public var size: Int {
        switch self {
        case .insertItems(let items, _, _): items.count
        case .deleteItems(let ids): ids.count
        case .moveItem, .moveSection: 1
        case .reloadItems(let items): items.count
        case .insertSections(let sections, _): sections.reduce(sections.count) { $0 + $1.items.count }
        case .deleteSections(let ids): ids.count
        case .reloadSections(let sections): sections.reduce(sections.count) { $0 + $1.items.count }
        }
    }
}

/// An item's size before a change, for strategies that keep counts of sizes.
public struct PreviousSize: Hashable, Sendable {
    /// The item's own size, or `nil` when it used the strategy's default.
    public var size: Size?
    /// The open size that was in effect (the item was selected and expands), if any.
    public var openSize: Size?

    public init(size: Size?, openSize: Size?) {
        self.size = size
        self.openSize = openSize
    }

    /// The size the item had in a layout whose default item size is `defaultSize`.
    public func effective(default defaultSize: Size) -> Size { openSize ?? size ?? defaultSize }
}

/// One item-level step of a change, in the order it was applied; positions are valid at that
/// moment (section ordinals do not change within a change that has item edits only).
public enum ItemEdit: Hashable, Sendable {
    case removed(section: Int, item: Int, previous: PreviousSize)
    case inserted(section: Int, item: Int, count: Int)
    /// The item's size (or open state) changed.
    case resized(section: Int, item: Int, previous: PreviousSize)

    public var section: Int {
        switch self {
        case .removed(let section, _, _), .inserted(let section, _, _), .resized(let section, _, _): section
        }
    }
}

/// What a data change did, by id: the UIKit-style summary a client animates from.
public struct DataChanges: Hashable, Sendable {
    public var insertedItems: [String] = []
    public var deletedItems: [String] = []
    public var movedItems: [String] = []
    public var reloadedItems: [String] = []
    public var insertedSections: [String] = []
    public var deletedSections: [String] = []
    public var movedSections: [String] = []
    public var reloadedSections: [String] = []
    /// Sections whose items changed (items deleted from, moved out of, moved into, inserted
    /// into or reloaded in them), for strategies that lay out only what changed.
    public var touchedSections: [String] = []
    /// The item-level steps, in order (empty when sections themselves changed).
    public var edits: [ItemEdit] = []

    public init() {}

    /// Whether sections themselves came, went, moved or were replaced.
    public var changesSectionList: Bool {
        !insertedSections.isEmpty || !deletedSections.isEmpty || !movedSections.isEmpty || !reloadedSections.isEmpty
    }

    public var isEmpty: Bool {
        insertedItems.isEmpty && deletedItems.isEmpty && movedItems.isEmpty && reloadedItems.isEmpty
            && insertedSections.isEmpty && deletedSections.isEmpty && movedSections.isEmpty && reloadedSections.isEmpty
    }

    /// Whether the number of sections or of items in some section changed (UIKit's
    /// `invalidateDataSourceCounts`).
    public var changesCounts: Bool {
        !insertedItems.isEmpty || !deletedItems.isEmpty || !movedItems.isEmpty || !insertedSections.isEmpty
            || !deletedSections.isEmpty || !reloadedSections.isEmpty
    }

    /// Every item id named, for the invalidation context.
    public var touchedItems: [String] { insertedItems + deletedItems + movedItems + reloadedItems }
}
