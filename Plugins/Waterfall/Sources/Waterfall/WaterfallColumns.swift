import LayoutEngine
import LayoutGeometry

/// The waterfall algorithm as a stream: sections are fed in order, each as `beginSection`, one
/// `place` per item, `endSection`. The built-in strategy and the plugin both drive this one
/// type, so the two forms cannot drift apart.
///
/// Vertical only. With W the available width (`availableWidth(in:)`) and `top` starting at 0:
///
/// 1. a header of height > 0 spans (0, top, W, height); top moves below it;
/// 2. top += sectionInset.top; every column starts at top;
/// 3. columns are w = max(0, (W − insets.left − insets.right − (n−1)·columnSpacing) / n) wide;
/// 4. each item is scaled to the column width (height · w / width; unscaled when its width is
///    0) and goes to the shortest column, the leftmost on a tie, itemSpacing below what is
///    already there;
/// 5. a section with items ends at its tallest column (without the trailing itemSpacing); then
///    top += sectionInset.bottom;
/// 6. a footer of height > 0 spans (0, top, W, height); top moves below it.
///
/// Frames are not rounded to pixels: clients round, and unrounded frames compare exactly
/// between the two forms.
public struct WaterfallColumns {
    public let parameters: WaterfallParameters
    /// W: the width the layout spans, content insets excluded.
    public let width: Double
    /// Every column's width (the same for all sections: it depends only on W and parameters).
    public let columnWidth: Double
    /// Where the next element goes; after the last section, the content height.
    public private(set) var top = 0.0
    private var columnHeights: [Double]
    private var placedInSection = 0

    // MARK: Lifecycle

    public init(parameters: WaterfallParameters, width: Double) {
        self.parameters = parameters
        self.width = width
        let inset = parameters.sectionInset
        let columns = Double(parameters.columnCount)
        let spacing = Double(parameters.columnCount - 1) * parameters.columnSpacing
        columnWidth = max(0, (width - inset.left - inset.right - spacing) / columns)
        columnHeights = Array(repeating: 0, count: parameters.columnCount)
    }

    /// W for a viewport: its width less the left and right content insets, never negative.
    public static func availableWidth(in viewport: Viewport) -> Double {
        max(0, viewport.size.width - viewport.contentInsets.left - viewport.contentInsets.right)
    }

    // MARK: Streaming

    /// STEPS 1–2: the section's header frame, if it has one; then the columns restart below
    /// the header and the top inset.
    public mutating func beginSection(headerSize: Size?) -> Rect? {
        let header = supplementaryFrame(headerSize)
        top += parameters.sectionInset.top
        for column in columnHeights.indices { columnHeights[column] = top }
        placedInSection = 0
        return header
    }

    /// STEPS 3–4: the frame of the section's next item, whose size (own, open or default) is
    /// `size`.
    ///
    /// - Complexity: O(columnCount).
    public mutating func place(_ size: Size) -> Rect {
        let height = size.width > 0 ? size.height * columnWidth / size.width : size.height
        let column = shortestColumn()
        let x = parameters.sectionInset.left + Double(column) * (columnWidth + parameters.columnSpacing)
        let frame = Rect(x: x, y: columnHeights[column], width: columnWidth, height: height)
        columnHeights[column] += height + parameters.itemSpacing
        placedInSection += 1
        return frame
    }

    /// STEPS 5–6: closes the section below its tallest column and the bottom inset; returns
    /// the footer frame, if it has one.
    public mutating func endSection(footerSize: Size?) -> Rect? {
        if placedInSection > 0 {
            // Every column that got an item carries one itemSpacing too many; a column that got
            // none sits at top and is never the tallest once an item was placed.
            top = columnHeights.max()! - parameters.itemSpacing
        }
        top += parameters.sectionInset.bottom
        return supplementaryFrame(footerSize)
    }

    /// The content's size once every section has ended.
    public var contentSize: Size { Size(width: width, height: top) }

    // MARK: Private

    /// The leftmost of the shortest columns: a strict `<` keeps the first on a tie.
    private func shortestColumn() -> Int {
        var shortest = 0
        for column in columnHeights.indices.dropFirst() where columnHeights[column] < columnHeights[shortest] {
            shortest = column
        }
        return shortest
    }

    /// A full-width header or footer at `top`, moving `top` below it; a height of 0 means none.
    private mutating func supplementaryFrame(_ size: Size?) -> Rect? {
        guard let size, size.height > 0 else { return nil }
        let frame = Rect(x: 0, y: top, width: width, height: size.height)
        top += size.height
        return frame
    }
}
