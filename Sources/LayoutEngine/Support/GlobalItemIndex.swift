/// Numbers the items of all sections in one sequence (global index = items before the section
/// + item index), for strategies that lay items out as one run across sections.
public struct GlobalItemIndex: Sendable {
    /// Global index of each section's first item, plus one entry holding the total.
    private(set) var sectionFirst: [Int] = [0]

    public init() {}

    /// - Complexity: O(sections).
    public init(_ model: CollectionModel) {
        var firsts = [Int]()
        firsts.reserveCapacity(model.numberOfSections + 1)
        var total = 0
        for section in model.sections {
            firsts.append(total)
            total += section.count
        }
        firsts.append(total)
        sectionFirst = firsts
    }

    public var itemCount: Int { sectionFirst[sectionFirst.count - 1] }

    public var sectionCount: Int { sectionFirst.count - 1 }

    public func global(_ path: ItemIndexPath) -> Int { sectionFirst[path.section] + path.item }

    /// The global index one past the section's last item.
    public func end(ofSection section: Int) -> Int { sectionFirst[section + 1] }

    public func first(ofSection section: Int) -> Int { sectionFirst[section] }

    /// The index path of a global index (empty sections are skipped over).
    ///
    /// - Complexity: O(log sections).
    public func path(ofGlobal global: Int) -> ItemIndexPath {
        var low = 0
        var high = sectionFirst.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if sectionFirst[mid] <= global { low = mid } else { high = mid }
        }
        return ItemIndexPath(section: low, item: global - sectionFirst[low])
    }
}
