import LayoutGeometry

/// The window a mutation left, kept so the next mutation starts its delta from it instead of
/// querying the old window again.
struct WindowRecord {
    /// `Layout.revision` when `contents` were taken: they are the window's while it is unchanged.
    var revision: Int
    var window: Rect
    var contents: WindowContents
}

/// What entered, changed and left a window, in the order an `Invalidation` carries them: entered
/// and changed by key, left sorted.
struct WindowDelta: Equatable {
    var entered: [LayoutAttributes] = []
    var changed: [LayoutAttributes] = []
    var left: [ElementKey] = []
}

extension View {
    /// The window's contents now: the recorded ones while the layout and the window are as the
    /// last mutation left them (O(1)), else a query.
    func currentWindowContents() -> WindowContents {
        if let record = lastWindow, record.revision == layout.revision, record.window == window { return record.contents }
        return windowContents()
    }

    /// The full diff of two windows, each sorted by key: one merge, O(k) key comparisons and
    /// attribute comparisons for the k elements of both.
    static func delta(from before: [LayoutAttributes], to after: [LayoutAttributes]) -> WindowDelta {
        var delta = WindowDelta()
        var old = 0
        var new = 0
        while old < before.count, new < after.count {
            // Most elements are in both windows: equal ids compare cheaply (the same bits), so
            // they are tried before the ordering.
            if before[old].kind == after[new].kind, before[old].id == after[new].id {
                if before[old] != after[new] { delta.changed.append(after[new]) }
                old += 1
                new += 1
            } else if precedes(before[old], after[new]) {
                delta.left.append(before[old].key)
                old += 1
            } else {
                delta.entered.append(after[new])
                new += 1
            }
        }
        delta.left += before[old...].map(\.key)
        delta.entered += after[new...]
        return delta
    }

    /// The delta when every element that changed starts at or after `changeStart` along the
    /// scroll axis, before and after (see `LayoutStrategy.changeStart`; `infinity` for a scroll
    /// that moved no frame), and the window moved along the scroll axis only, if at all (a
    /// scroll, or the offset change that keeps the anchor in place).
    ///
    /// Held elements starting before `changeStart` are unchanged: they stay while they meet the
    /// new window and leave when they do not (a scan of frames, no query). The rest comes from
    /// one query of the new window's part from `changeStart` on, together with the band the
    /// window moved onto (where unchanged elements enter): the part's elements are diffed
    /// against the held ones starting there. So a 16 pt scroll tick costs the rows it crosses,
    /// and a change below the window costs nothing but the scan. When the change is a band
    /// (`changeEnd`: a section scroll moves its own elements only), elements starting at or
    /// after `changeEnd` are unchanged too and the query stops there.
    ///
    /// - Returns: `nil` when the shortcut does not apply (the old or the new window is cut to
    ///   the maximum, the window changed across the scroll axis, or its ends moved in opposite
    ///   directions): the caller diffs in full.
    /// - Complexity: O(log n + k + d log d) for the k held elements and the d elements queried.
    func partialDelta(
        from before: WindowContents, oldWindow: Rect, newWindow: Rect, changeStart: Double, changeEnd: Double = .infinity
    ) -> (WindowDelta, WindowContents)? {
        guard !before.isTruncated else { return nil }
        let axis = layout.strategy.scrollAxis
        let cross = axis.crossRange(of: newWindow)
        guard axis.crossRange(of: oldWindow) == cross else { return nil }
        let (oldMin, oldMax) = axis.mainRange(of: oldWindow)
        let (newMin, newMax) = axis.mainRange(of: newWindow)
        // The band holds every unchanged element that meets the new window and not the old
        // one: moving forward, such an element starts at or after the old end (it ends after
        // the new start, which is at or after the old start); backward, it ends at or before the
        // old start. Each reaches a point past its edge so that elements of no extent lying on
        // the edge are queried too; the filters below keep exactly the right ones.
        var query: (min: Double, max: Double)
        if newMin == oldMin, newMax == oldMax {
            // Every held element starts before the window's end: none changed, none moved out.
            guard changeStart < newMax, changeEnd > newMin else { return (WindowDelta(), before) }
            query = (.infinity, -.infinity)
        } else if newMin >= oldMin, newMax >= oldMax {
            query = (max(oldMax, newMin) - 1, newMax)
        } else if newMin <= oldMin, newMax <= oldMax {
            query = (newMin, min(oldMin, newMax) + 1)
        } else {
            return nil
        }
        if changeStart < newMax, changeEnd > newMin {
            query = (min(query.min, max(changeStart - 1, newMin)), max(query.max, min(changeEnd, newMax)))
        }
        func changes(_ frame: Rect) -> Bool {
            let start = axis.mainRange(of: frame).min
            return start >= changeStart && start < changeEnd
        }

        var delta = WindowDelta()
        var kept = [LayoutAttributes]()
        var heldChanging = [LayoutAttributes]()
        kept.reserveCapacity(before.elements.count)
        for attributes in before.elements {
            if changes(attributes.frame) {
                heldChanging.append(attributes)
            } else if attributes.frame.intersects(newWindow) {
                kept.append(attributes)
            } else {
                delta.left.append(attributes.key)
            }
        }
        var arrived = [LayoutAttributes]()
        var changing = [LayoutAttributes]()
        if query.min < query.max {
            let rect = axis.rect(cross: cross.min, main: query.min, crossExtent: cross.max - cross.min, mainExtent: query.max - query.min)
            for attributes in layout.elements(in: rect) where attributes.frame.intersects(newWindow) {
                if changes(attributes.frame) {
                    changing.append(attributes)
                } else if !attributes.frame.intersects(oldWindow) {
                    arrived.append(attributes)
                }
            }
        }
        guard kept.count + arrived.count + changing.count <= max(limits.maximumWindowElements, 0) else { return nil }
        Self.sortByKey(&arrived)
        Self.sortByKey(&changing)
        let changes = Self.delta(from: heldChanging, to: changing)
        delta.entered = Self.merged(arrived, changes.entered)
        delta.changed = changes.changed
        delta.left = Self.mergedKeys(delta.left, changes.left)
        let contents = Self.merged(kept, Self.merged(arrived, changing))
        return (delta, WindowContents(elements: contents, isTruncated: false))
    }

    /// Two sorted lists of distinct keys as one.
    private static func mergedKeys(_ first: [ElementKey], _ second: [ElementKey]) -> [ElementKey] {
        guard !first.isEmpty else { return second }
        guard !second.isEmpty else { return first }
        var result = [ElementKey]()
        result.reserveCapacity(first.count + second.count)
        var i = 0
        var j = 0
        while i < first.count, j < second.count {
            if first[i] < second[j] {
                result.append(first[i])
                i += 1
            } else {
                result.append(second[j])
                j += 1
            }
        }
        result += first[i...]
        result += second[j...]
        return result
    }

    /// `held` and `entered`, both sorted by key and disjoint, as one sorted array: a binary
    /// search finds where each entered element goes (after the previous one's place), so the
    /// key comparisons are the entered ones' (usually the fewer) and the rest is copying.
    ///
    /// - Complexity: O(k + b log k) for k held and b entered elements.
    private static func merged(_ held: [LayoutAttributes], _ entered: [LayoutAttributes]) -> [LayoutAttributes] {
        guard !entered.isEmpty else { return held }
        guard !held.isEmpty else { return entered }
        var result = [LayoutAttributes]()
        result.reserveCapacity(held.count + entered.count)
        var copied = 0
        for attributes in entered {
            var low = copied
            var high = held.count
            while low < high {
                let middle = (low + high) / 2
                if precedes(held[middle], attributes) { low = middle + 1 } else { high = middle }
            }
            result += held[copied..<low]
            result.append(attributes)
            copied = low
        }
        result += held[copied...]
        return result
    }

    /// Sorts by key through an index permutation: attributes are large, so moving indices
    /// while sorting and each element once afterwards beats moving the elements.
    private static func sortByKey(_ elements: inout [LayoutAttributes]) {
        guard elements.count > 1 else { return }
        let order = elements.indices.sorted { precedes(elements[$0], elements[$1]) }
        elements = order.map { elements[$0] }
    }

    /// Key order (`ElementKey.<`) without building the keys.
    static func precedes(_ lhs: LayoutAttributes, _ rhs: LayoutAttributes) -> Bool {
        lhs.kind != rhs.kind ? lhs.kind < rhs.kind : lhs.id < rhs.id
    }
}
