import LayoutEngine
import LayoutGeometry

/// The waterfall's parameters, typed: one declaration shared by the built-in strategy and the
/// plugin, so both publish the same descriptor and read values the same way.
public struct WaterfallParameters: Hashable, Sendable {
    public static let descriptor = StrategyDescriptor(
        name: "waterfall",
        summary: "Columns of equal width; each item goes to the shortest column (CHTCollectionViewWaterfallLayout)",
        parameters: [
            ParameterDescription(
                "columnCount", .integer(minimum: 1, maximum: 64), default: .integer(2), "number of columns"),
            ParameterDescription(
                "columnSpacing", .number(minimum: 0, maximum: nil), default: .number(10),
                "horizontal gap between columns"),
            ParameterDescription(
                "itemSpacing", .number(minimum: 0, maximum: nil), default: .number(10),
                "vertical gap between items in a column"),
            ParameterDescription(
                "sectionInset", .insets, default: .insets(.zero),
                "space around each section's items (not around headers and footers)"),
            ParameterDescription(
                "itemSize", .size, default: .size(Size(width: 100, height: 100)),
                "size of items that have no size of their own; scaled to the column width like any other"),
        ])

    public var columnCount: Int
    public var columnSpacing: Double
    public var itemSpacing: Double
    public var sectionInset: EdgeInsets
    public var itemSize: Size

    /// Reads parameters resolved against `descriptor`.
    public init(_ parameters: ResolvedParameters) {
        columnCount = parameters.integer("columnCount")
        columnSpacing = parameters.number("columnSpacing")
        itemSpacing = parameters.number("itemSpacing")
        sectionInset = parameters.insets("sectionInset")
        itemSize = parameters.size("itemSize")
    }
}
