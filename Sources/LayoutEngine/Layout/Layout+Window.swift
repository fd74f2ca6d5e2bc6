import LayoutGeometry

/// The elements a client's window holds: at most a maximum of them, sorted by key.
public struct WindowContents: Hashable, Sendable {
    /// Sorted by key (cells, then headers, then footers; by id within a kind).
    public var elements: [LayoutAttributes]
    /// The window rect held more elements than the maximum; `elements` are the ones nearest the
    /// viewport.
    public var isTruncated: Bool

    public init(elements: [LayoutAttributes], isTruncated: Bool) {
        self.elements = elements
        self.isTruncated = isTruncated
    }
}

extension Layout {
    /// The elements of the window `window` around `viewport`, at most `maximum` of them.
    ///
    /// When the window rect holds more, the ones kept are those nearest the viewport along the
    /// scroll axis (every element on screen is at distance 0), ties broken by key: the window
    /// then behaves as if its margin were only as wide as `maximum` elements allow, and the
    /// elements on screen are the last to go. The choice is a function of the layout and the
    /// viewport alone, so a client mirror fed with deltas between two truncated windows stays
    /// equal to the truncated window recomputed.
    ///
    /// - Complexity: O(k log k) for the k elements in `window` (the strategy's query, the
    ///   sort of their distances, then the sort of the at most `maximum` kept).
    public func windowContents(in window: Rect, viewport: Rect, maximum: Int) -> WindowContents {
        Self.windowContents(elements(in: window), viewport: viewport, axis: strategy.scrollAxis, maximum: maximum)
    }

    /// `elements` cut to `maximum` as `windowContents(in:viewport:maximum:)` describes.
    public static func windowContents(_ elements: [LayoutAttributes], viewport: Rect, axis: Axis, maximum: Int) -> WindowContents {
        let maximum = max(maximum, 0)
        guard elements.count > maximum else {
            return WindowContents(elements: elements.sorted { $0.key < $1.key }, isTruncated: false)
        }
        let screen = axis.mainRange(of: viewport)
        func distance(_ attributes: LayoutAttributes) -> Double {
            let range = axis.mainRange(of: attributes.frame)
            return max(0, range.min - screen.max, screen.min - range.max)
        }
        let distances = elements.map(distance)
        guard maximum > 0 else { return WindowContents(elements: [], isTruncated: true) }
        // Everything nearer than the maximum-th distance is kept; at that distance, the
        // lowest keys fill the rest.
        let cut = distances.sorted()[maximum - 1]
        var kept = [LayoutAttributes]()
        var tied = [LayoutAttributes]()
        kept.reserveCapacity(maximum)
        for (index, attributes) in elements.enumerated() {
            if distances[index] < cut {
                kept.append(attributes)
            } else if distances[index] == cut {
                tied.append(attributes)
            }
        }
        tied.sort { $0.key < $1.key }
        kept += tied.prefix(maximum - kept.count)
        kept.sort { $0.key < $1.key }
        return WindowContents(elements: kept, isTruncated: true)
    }
}
