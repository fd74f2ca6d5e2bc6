import LayoutGeometry

extension FlowLayout {
    /// How the last line of a section is placed in `justified` spacing mode.
    public enum LastLineAlignment: String, Sendable, CaseIterable {
        /// `gridAligned` when every item in the section has the same size, else `leading`:
        /// what UIKit's flow layout does.
        case automatic
        /// Items sit on the columns a full line would have.
        case gridAligned
        /// Items are packed from the leading edge with exactly the minimum spacing.
        case leading
        /// Items are packed with the minimum spacing and centered as a group.
        case centered
        /// The last line is justified like every other line.
        case justified
    }

    /// How items are spaced along a line.
    public enum SpacingMode: String, Sendable, CaseIterable {
        /// UIKit's flow layout: full lines spread their leftover space between items.
        case justified
        /// Exactly the minimum interitem spacing everywhere, lines aligned by `lineAlignment`
        /// (the compositional-layout answer to "flow layout spreads my spacing").
        case fixed
    }

    /// Where a packed line sits across the layout in `fixed` spacing mode.
    public enum LineAlignment: String, Sendable, CaseIterable {
        case leading, center, trailing
    }

    /// Where an item sits along the scroll axis within a line taller than it.
    public enum ItemAlignment: String, Sendable, CaseIterable {
        /// `center` in `justified` mode (UIKit), `start` in `fixed` mode (top-aligned rows).
        case automatic
        case start, center, end
    }

    public static let descriptor = StrategyDescriptor(
        name: "flow",
        summary: "UIKit flow layout: greedy lines, justified spacing, headers and footers, "
            + "pinned headers, fixed-spacing mode, self-sizing and expanding items",
        parameters: [
            ParameterDescription(
                "itemSize", .size, default: .size(Size(width: 50, height: 50)),
                "size of items that have no size of their own"),
            ParameterDescription(
                "estimatedItemSize", .optionalSize, default: .null,
                "when set, items without a size use it as an estimate until measured (self-sizing)"),
            ParameterDescription(
                "minimumInteritemSpacing", .number(minimum: 0, maximum: nil), default: .number(10),
                "smallest gap between items in a line"),
            ParameterDescription(
                "minimumLineSpacing", .number(minimum: 0, maximum: nil), default: .number(10),
                "gap between lines"),
            ParameterDescription(
                "sectionInset", .insets, default: .insets(.zero),
                "space around each section's items (not around headers and footers)"),
            ParameterDescription(
                "headerReferenceSize", .size, default: .size(.zero),
                "header size; only the extent along the scroll axis is used, 0 means no header"),
            ParameterDescription(
                "footerReferenceSize", .size, default: .size(.zero),
                "footer size; only the extent along the scroll axis is used, 0 means no footer"),
            ParameterDescription(
                "scrollDirection", .choice(Axis.allCases.map(\.rawValue)), default: .string("vertical"),
                "vertical: lines are rows; horizontal: lines are columns"),
            ParameterDescription(
                "sectionHeadersPinToVisibleBounds", .bool, default: .bool(false),
                "headers stick to the top of the viewport while their section is visible"),
            ParameterDescription(
                "lastLineAlignment", .choice(LastLineAlignment.allCases.map(\.rawValue)),
                default: .string("automatic"),
                "last line in justified mode: automatic = gridAligned for uniform sections, else leading"),
            ParameterDescription(
                "spacingMode", .choice(SpacingMode.allCases.map(\.rawValue)), default: .string("justified"),
                "justified: UIKit spacing; fixed: exactly minimumInteritemSpacing between items"),
            ParameterDescription(
                "lineAlignment", .choice(LineAlignment.allCases.map(\.rawValue)), default: .string("leading"),
                "fixed mode: where each packed line sits"),
            ParameterDescription(
                "itemAlignment", .choice(ItemAlignment.allCases.map(\.rawValue)), default: .string("automatic"),
                "where an item sits within a taller line: automatic = center (justified) or start (fixed)"),
        ])
}

/// Flow parameters in the form the algorithm uses: logical axes, resolved automatic choices.
struct FlowConfiguration {
    var axis: Axis
    var itemSize: Size
    var estimatedItemSize: Size?
    var interitemSpacing: Double
    var lineSpacing: Double
    var sectionInset: LogicalInsets
    var headerReferenceSize: Size
    var footerReferenceSize: Size
    var pinsHeaders: Bool
    var lastLineAlignment: FlowLayout.LastLineAlignment
    var spacingMode: FlowLayout.SpacingMode
    var lineAlignment: FlowLayout.LineAlignment
    /// Never `.automatic`: resolved from the spacing mode.
    var itemAlignment: FlowLayout.ItemAlignment

    /// zIndex of pinned-capable headers: above every cell, as UIKit does.
    static let pinnedHeaderZIndex = 1024

    init(_ parameters: ResolvedParameters) {
        axis = parameters.choice("scrollDirection", as: Axis.self)
        itemSize = parameters.size("itemSize")
        estimatedItemSize = parameters.optionalSize("estimatedItemSize")
        interitemSpacing = parameters.number("minimumInteritemSpacing")
        lineSpacing = parameters.number("minimumLineSpacing")
        sectionInset = axis.logical(parameters.insets("sectionInset"))
        headerReferenceSize = parameters.size("headerReferenceSize")
        footerReferenceSize = parameters.size("footerReferenceSize")
        pinsHeaders = parameters.bool("sectionHeadersPinToVisibleBounds")
        lastLineAlignment = parameters.choice("lastLineAlignment", as: FlowLayout.LastLineAlignment.self)
        spacingMode = parameters.choice("spacingMode", as: FlowLayout.SpacingMode.self)
        lineAlignment = parameters.choice("lineAlignment", as: FlowLayout.LineAlignment.self)
        let alignment = parameters.choice("itemAlignment", as: FlowLayout.ItemAlignment.self)
        if alignment == .automatic {
            itemAlignment = spacingMode == .justified ? .center : .start
        } else {
            itemAlignment = alignment
        }
    }

    /// The size of items without their own size.
    var defaultItemSize: Size { estimatedItemSize ?? itemSize }

    /// Offset of an item of main extent `extent` inside a line of main extent `thickness`.
    func mainOffset(ofItemExtent extent: Double, inLineOf thickness: Double) -> Double {
        switch itemAlignment {
        case .start, .automatic: 0
        case .center: (thickness - extent) / 2
        case .end: thickness - extent
        }
    }
}
