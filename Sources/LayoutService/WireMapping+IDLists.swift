import LayoutEngine
import LayoutProtocol

/// The id lists of an invalidation (`context.invalidated` and the arrays of `changes`), which
/// name every item a mutation touched: a bounded reply whatever the change's size
/// (protocol/mutations.md, "Large changes").
///
/// A commit of 1M items with UUID ids listed each id twice (`changes.insertedItems` and
/// `context.invalidated`): a 78 MB line, past the default `output-limit`, so the committing
/// client and every subscriber got `OutputOverflow` and lost their connection. Past a bound the
/// lists are left empty and `omittedIDs` gives their lengths instead; the window delta, which a
/// mirror applies, is bounded by `maximumWindowElements` anyway and stays exact.
extension WireMapping {
    /// Whether `invalidation` lists its ids: their UTF-8 lengths total at most
    /// `maximumBytes`, the line cap in effect (`max-line-length`), so a change that one request
    /// line can name is always listed. The ids counted are those of `changes` when the mutation
    /// has them (`context.invalidated` repeats its items), else those of `context.invalidated`.
    /// Listed, the lists take a few times `maximumBytes` encoded: each id in both lists with
    /// quotes and a comma, at worst 18 × for one-byte ids escaped as `\u00XX`.
    ///
    /// - Parameter maximumBytes: read only when there are ids (most mutations, scrolls, have
    ///   none).
    /// - Complexity: O(n) for the n ids, stopping at the bound (`utf8.count` is O(1) for the
    ///   daemon's native strings).
    static func listsIDs(_ invalidation: Invalidation, maximumBytes: () -> Int) -> Bool {
        let lists: [[String]] = invalidation.changes.map {
            [$0.insertedItems, $0.deletedItems, $0.movedItems, $0.reloadedItems, $0.insertedSections, $0.deletedSections,
             $0.movedSections, $0.reloadedSections]
        } ?? [invalidation.context.invalidatedItems]
        guard lists.contains(where: { !$0.isEmpty }) else { return true }
        var budget = maximumBytes()
        for list in lists {
            for id in list {
                budget -= id.utf8.count
                if budget < 0 { return false }
            }
        }
        return true
    }

    /// `ids` as a JSON array when `listed`, else `[]`.
    static func write(ids: [String], listed: Bool, into writer: inout JSONWriter) {
        guard listed else { return writer.write(raw: "[]") }
        write(ids: ids, into: &writer)
    }

    /// `,"omittedIDs":{…}`: how many ids each list left empty would have held, in the order the
    /// lists come in the invalidation (`invalidated`, then the eight of `changes` when present).
    static func writeOmittedIDs(of invalidation: Invalidation, into writer: inout JSONWriter) {
        writer.write(raw: #","omittedIDs":{"invalidated":"#)
        writer.writeInteger(Int64(invalidation.context.invalidatedItems.count))
        if let changes = invalidation.changes {
            let counts: [(String, Int)] = [
                ("insertedItems", changes.insertedItems.count), ("deletedItems", changes.deletedItems.count),
                ("movedItems", changes.movedItems.count), ("reloadedItems", changes.reloadedItems.count),
                ("insertedSections", changes.insertedSections.count), ("deletedSections", changes.deletedSections.count),
                ("movedSections", changes.movedSections.count), ("reloadedSections", changes.reloadedSections.count),
            ]
            for (key, count) in counts {
                writer.writeKey(key, first: false)
                writer.writeInteger(Int64(count))
            }
        }
        writer.append(UInt8(ascii: "}"))
    }
}
