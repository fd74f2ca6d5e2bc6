extension CollectionModel {
    /// A page of the selection in data order (section, then item): at most `limit` selected
    /// items after the item `after` (by its position: it need not be selected), and whether
    /// more follow. What a client reads to learn the whole selection, which events only name
    /// by the ids that changed.
    ///
    /// - Throws: `itemNotFound` when `after` is not an item of the model.
    /// - Complexity: O(s log s) for s selected items when they are few (under a 32nd of the
    ///   items: their positions, sorted), else O(n) for the n items from `after` on (a walk in
    ///   order); either way independent of how many pages came before.
    public func selectedItems(after: String?, limit: Int) throws(LayoutError) -> (ids: [String], more: Bool) {
        var start = ItemIndexPath(section: 0, item: -1)
        if let after {
            guard let path = indexPath(ofItem: after) else { throw .itemNotFound(after) }
            start = path
        }
        guard !selection.isEmpty, limit > 0 else { return ([], false) }
        if selection.count <= numberOfItems / 32 {
            var positions = [(path: ItemIndexPath, id: String)]()
            positions.reserveCapacity(selection.count)
            for id in selection {
                if let path = indexPath(ofItem: id), start < path { positions.append((path, id)) }
            }
            positions.sort { $0.path < $1.path }
            return (positions.prefix(limit).map(\.id), positions.count > limit)
        }
        var ids = [String]()
        for index in max(0, start.section)..<sections.count {
            let items = sections[index].itemIDs
            let first = index == start.section ? start.item + 1 : 0
            guard first < items.count else { continue }
            for id in items[first...] where selection.contains(id) {
                if ids.count == limit { return (ids, true) }
                ids.append(id)
            }
        }
        return (ids, false)
    }
}
