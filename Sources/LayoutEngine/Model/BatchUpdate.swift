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
