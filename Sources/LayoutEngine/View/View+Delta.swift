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
            if precedes(before[old], after[new]) {
                delta.left.append(before[old].key)
                old += 1
            } else if precedes(after[new], before[old]) {
                delta.entered.append(after[new])
                new += 1
            } else {
                if before[old] != after[new] { delta.changed.append(after[new]) }
                old += 1
                new += 1
            }
        }
        delta.left += before[old...].map(\.key)
        delta.entered += after[new...]
        return delta
    }

    /// The delta of a scroll that moved no frame (the strategy answered `.none`) and moved the
    /// window along the scroll axis only: the elements that leave are the held ones that no
    /// longer meet the new window (no query), the ones that enter are those of the band the
    /// window moved onto (a query of that band alone), so a 16 pt tick costs the rows it
    /// crosses, not the window.
    ///
    /// - Returns: `nil` when the shortcut does not apply (the old or the new window is cut to
    ///   the maximum, or the window changed across the scroll axis): the caller diffs in full.
    /// - Complexity: O(log n + b log b + k) for the b elements of the band and the k held ones
    ///   (a scan of frames, no key comparisons but the b insertions).
    func scrollDelta(from before: WindowContents, oldWindow: Rect, newWindow: Rect) -> (WindowDelta, WindowContents)? {
        guard !before.isTruncated else { return nil }
        let axis = layout.strategy.scrollAxis
        let oldCross = axis.crossRange(of: oldWindow)
        let cross = axis.crossRange(of: newWindow)
        guard oldCross == cross else { return nil }
        let (oldMin, oldMax) = axis.mainRange(of: oldWindow)
        let (newMin, newMax) = axis.mainRange(of: newWindow)
        // The band holds every element that meets the new window and not the old one: moving
        // forward, such an element starts at or after the old end (it ends after the new start,
        // which is after the old start); backward, it ends at or before the old start. The band
        // reaches a point past that edge so elements of no extent lying on it are queried too;
        // the filter below keeps exactly the ones that entered.
        let band: (min: Double, max: Double)
        if newMin >= oldMin, newMax >= oldMax {
            band = (max(oldMax, newMin) - 1, newMax)
        } else if newMin <= oldMin, newMax <= oldMax {
            band = (newMin, min(oldMin, newMax) + 1)
        } else {
            return nil
        }
        var delta = WindowDelta()
        var kept = [LayoutAttributes]()
        kept.reserveCapacity(before.elements.count)
        for attributes in before.elements {
            if attributes.frame.intersects(newWindow) {
                kept.append(attributes)
            } else {
                delta.left.append(attributes.key)
            }
        }
        let bandRect = axis.rect(cross: cross.min, main: band.min, crossExtent: cross.max - cross.min, mainExtent: band.max - band.min)
        delta.entered = layout.elements(in: bandRect)
            .filter { $0.frame.intersects(newWindow) && !$0.frame.intersects(oldWindow) }
            .sorted(by: Self.precedes)
        guard kept.count + delta.entered.count <= max(limits.maximumWindowElements, 0) else { return nil }
        return (delta, WindowContents(elements: Self.merged(kept, delta.entered), isTruncated: false))
    }

    /// `held` and `entered`, both sorted by key and disjoint, as one sorted array: a binary
    /// search finds where each entered element goes (after the previous one's place), so the
    /// key comparisons are the entered ones' and the rest is copying.
    ///
    /// - Complexity: O(k + b log k) for k held and b entered elements.
    private static func merged(_ held: [LayoutAttributes], _ entered: [LayoutAttributes]) -> [LayoutAttributes] {
        guard !entered.isEmpty else { return held }
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

    /// Key order (`ElementKey.<`) without building the keys.
    static func precedes(_ lhs: LayoutAttributes, _ rhs: LayoutAttributes) -> Bool {
        lhs.kind != rhs.kind ? lhs.kind < rhs.kind : lhs.id < rhs.id
    }
}
