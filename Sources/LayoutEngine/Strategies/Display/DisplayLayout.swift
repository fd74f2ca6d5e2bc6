import LayoutGeometry

/// Grid / list / inline switching (docs/layout-semantics.md, section 4, and the grid/list/inline
/// article in the seeds): one content, three presentations.
///
/// - `grid`: vertical, `columns` square items of side `(W − (columns−1)·interitemSpacing)/columns`;
/// - `list`: vertical, full-width rows of `rowHeight`;
/// - `inline`: horizontal, one row of items `inlineWidthFraction·W` wide and `inlineHeight`
///   tall, vertically centered (never above the top edge).
///
/// Sections follow each other along the scroll axis, each starting a new line, separated by
/// the line spacing (interitem spacing for inline). Every item of a mode has one size, so
/// nothing is stored per item. Switching modes is a reconfiguration (`Layout.reconfigure`),
/// which keeps the first visible item anchored and animates from/to.
public final class DisplayLayout: NativeStrategy {
    public enum Mode: String, Sendable, CaseIterable {
        case grid, list, inline
    }

    public static let descriptor = StrategyDescriptor(
        name: "display",
        summary: "one content as a grid, a list or an inline row, with anchored animated switching",
        parameters: [
            ParameterDescription(
                "mode", .choice(Mode.allCases.map(\.rawValue)), default: .string("grid"), "grid, list or inline"),
            ParameterDescription(
                "columns", .integer(minimum: 1, maximum: 1000), default: .integer(2), "grid: items per row"),
            ParameterDescription(
                "rowHeight", .number(minimum: 0, maximum: nil), default: .number(130), "list: row height"),
            ParameterDescription(
                "inlineWidthFraction", .number(minimum: 0, maximum: 10), default: .number(0.9),
                "inline: item width as a fraction of the viewport width"),
            ParameterDescription(
                "inlineHeight", .number(minimum: 0, maximum: nil), default: .number(300), "inline: item height"),
            ParameterDescription(
                "interitemSpacing", .number(minimum: 0, maximum: nil), default: .number(10),
                "gap between items in a line (grid columns, inline items)"),
            ParameterDescription(
                "lineSpacing", .number(minimum: 0, maximum: nil), default: .number(10), "gap between lines (rows)"),
            ParameterDescription(
                "animationDuration", .number(minimum: 0, maximum: 10), default: .number(0.3),
                "seconds for a mode switch"),
        ])

    /// One mode's geometry in logical coordinates (see `Axis`).
    struct Geometry {
        var axis: Axis
        var perLine: Int
        var itemCross: Double
        var itemMain: Double
        var crossOffset: Double
        var crossStep: Double
        var mainSpacing: Double

        var pitch: Double { itemMain + mainSpacing }
    }

    public let parameters: ResolvedParameters
    public let mode: Mode
    let animationDuration: Double

    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    private(set) var geometry: Geometry
    private(set) var items = GlobalItemIndex()
    /// Where each section starts along the scroll axis, plus one entry for the content's end
    /// (trailing spacing included).
    private(set) var sectionStarts: [Double] = [0]
    private var sectionsWithItems = 0
    /// See `LayoutStrategy.changeStart`: set by every incremental update.
    public private(set) var changeStart: Double?

    // MARK: Lifecycle

    public init(parameters: ResolvedParameters) {
        self.parameters = parameters
        mode = parameters.choice("mode", as: Mode.self)
        animationDuration = parameters.number("animationDuration")
        geometry = Self.geometry(for: parameters, viewport: Viewport(size: Size(width: 1, height: 1)))
    }

    /// Every cache is a value: the copy shares its storage until one side changes it.
    public func copy(model: CollectionModel) -> any LayoutStrategy {
        let copy = DisplayLayout(parameters: parameters)
        copy.viewport = viewport
        copy.geometry = geometry
        copy.items = items
        copy.sectionStarts = sectionStarts
        copy.sectionsWithItems = sectionsWithItems
        copy.changeStart = changeStart
        return copy
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { geometry.axis }

    public var defaultItemSize: Size { geometry.axis.size(cross: geometry.itemCross, main: geometry.itemMain) }

    /// - Complexity: O(sections).
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        geometry = Self.geometry(for: parameters, viewport: viewport)
        items = GlobalItemIndex(model)
        var starts = [Double]()
        starts.reserveCapacity(model.numberOfSections + 1)
        var cursor = 0.0
        sectionsWithItems = 0
        for section in model.sections {
            starts.append(cursor)
            guard section.count > 0 else { continue }
            sectionsWithItems += 1
            let lines = (section.count + geometry.perLine - 1) / geometry.perLine
            cursor += Double(lines) * geometry.itemMain + Double(lines) * geometry.mainSpacing
        }
        starts.append(cursor)
        sectionStarts = starts
        changeStart = nil
    }

    /// Selection does not change this layout.
    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        changeStart = .infinity
    }

    /// Sizes come from the mode: measurements do not change this layout.
    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        changeStart = .infinity
    }

    /// Lays out again (O(sections)), and reports where the first edit's line started: a frame
    /// is its section's start plus its line's, and the starts before the first edited section
    /// are summed again in the same order, so they come out the same.
    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) {
        var start: Double?
        if !changes.changesSectionList, model.numberOfSections == items.sectionCount {
            start = .infinity
            for edit in changes.edits {
                let item: Int
                switch edit {
                case .removed(_, let index, _), .inserted(_, let index, _), .resized(_, let index, _): item = index
                }
                start = min(start!, sectionStarts[edit.section] + Double(item / geometry.perLine) * geometry.pitch)
            }
        }
        prepare(model: model, viewport: viewport)
        changeStart = start
    }

    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        guard newViewport.size != viewport.size else {
            viewport = newViewport
            return .none
        }
        prepare(model: model, viewport: newViewport)
        return .layout
    }

    public var contentSize: Size {
        let main = max(0, sectionStarts[sectionStarts.count - 1] - (sectionsWithItems > 0 ? geometry.mainSpacing : 0))
        let cross = max(geometry.axis.cross(of: viewport.size), geometry.crossOffset + geometry.itemCross)
        return geometry.axis.size(cross: cross, main: main)
    }

    public func planTransition(
        from previous: any LayoutStrategy, moves: [TransitionSegment], model: CollectionModel
    ) -> Transition {
        .together(moves, duration: animationDuration)
    }

    // MARK: Geometry

    static func geometry(for parameters: ResolvedParameters, viewport: Viewport) -> Geometry {
        let width = viewport.size.width
        let spacing = parameters.number("interitemSpacing")
        let lineSpacing = parameters.number("lineSpacing")
        switch parameters.choice("mode", as: Mode.self) {
        case .grid:
            let columns = parameters.integer("columns")
            let side = max(0, (width - Double(columns - 1) * spacing) / Double(columns))
            return Geometry(
                axis: .vertical, perLine: columns, itemCross: side, itemMain: side, crossOffset: 0,
                crossStep: side + spacing, mainSpacing: lineSpacing)
        case .list:
            return Geometry(
                axis: .vertical, perLine: 1, itemCross: width, itemMain: parameters.number("rowHeight"),
                crossOffset: 0, crossStep: 0, mainSpacing: lineSpacing)
        case .inline:
            let height = parameters.number("inlineHeight")
            return Geometry(
                axis: .horizontal, perLine: 1, itemCross: height,
                itemMain: parameters.number("inlineWidthFraction") * width,
                crossOffset: max(0, (viewport.size.height - height) / 2), crossStep: 0, mainSpacing: spacing)
        }
    }

    func frame(ofItem item: Int, inSection section: Int) -> Rect {
        let line = item / geometry.perLine
        let column = item % geometry.perLine
        return geometry.axis.rect(
            cross: geometry.crossOffset + Double(column) * geometry.crossStep,
            main: sectionStarts[section] + Double(line) * geometry.pitch,
            crossExtent: geometry.itemCross, mainExtent: geometry.itemMain)
    }
}
