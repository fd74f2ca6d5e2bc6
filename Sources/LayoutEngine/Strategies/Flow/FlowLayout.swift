import LayoutGeometry

/// UIKit's flow layout, exactly, plus what people add to it: fixed spacing, pinned headers,
/// self-sizing with a no-op tolerance, and expanding items. The rules are in
/// docs/flow-layout.md; the algorithm is written once in logical coordinates, so the
/// horizontal layout is the exact transpose of the vertical one.
///
/// Sections whose items share one size store nothing per item: their frames are arithmetic.
/// Other sections keep one record per line. Queries binary-search sections and lines.
public final class FlowLayout: NativeStrategy {
    public let parameters: ResolvedParameters
    let configuration: FlowConfiguration

    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    var sections: [FlowSection] = []
    var contentCross = 0.0
    /// See `LayoutStrategy.changeStart`: set by every incremental update (`apply`).
    public internal(set) var changeStart: Double?

    // MARK: Lifecycle

    public init(parameters: ResolvedParameters) {
        self.parameters = parameters
        self.configuration = FlowConfiguration(parameters)
    }

    /// Every cache is a value (`FlowSection`s, line lists, Fenwick trees): the copy shares
    /// their storage until one side changes it.
    public func copy(model: CollectionModel) -> any LayoutStrategy {
        let copy = FlowLayout(parameters: parameters)
        copy.viewport = viewport
        copy.sections = sections
        copy.contentCross = contentCross
        copy.changeStart = changeStart
        return copy
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { configuration.axis }

    public var defaultItemSize: Size { configuration.defaultItemSize }
    public var estimatesDefaultSize: Bool { configuration.estimatedItemSize != nil }

    /// - Complexity: O(sections + items in sections with varying sizes).
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        let viewportCross = configuration.axis.cross(of: viewport.size)
        var cursor = 0.0
        var widest = viewportCross
        var prepared = [FlowSection]()
        prepared.reserveCapacity(model.numberOfSections)
        for section in model.sections {
            let laidOut = Self.layoutSection(
                section, at: cursor, model: model, viewportCross: viewportCross, configuration: configuration)
            prepared.append(laidOut)
            cursor = laidOut.end
            widest = max(widest, laidOut.crossExtent)
        }
        sections = prepared
        contentCross = widest
        changeStart = nil
    }

    /// Only expanding items change size with the selection; their lines re-flow.
    ///
    /// - Complexity: O(k) for k ids when none of them expands; otherwise as `sizesDidChange`.
    public func selectionDidChange(_ ids: [String], model: CollectionModel) {
        var edits = [ItemEdit]()
        for id in ids {
            guard let path = model.indexPath(ofItem: id), let open = model.sections[path.section].selectedSizes[id] else {
                continue
            }
            var previous = model.previousSize(of: path)
            previous.openSize = model.isSelected(id) ? nil : open
            edits.append(.resized(section: path.section, item: path.item, previous: previous))
        }
        apply(edits, model: model)
    }

    /// - Complexity: see `apply(_:model:)`.
    public func sizesDidChange(_ edits: [ItemEdit], model: CollectionModel) {
        apply(edits, model: model)
    }

    /// Item changes re-flow the lines around them; section changes lay out everything.
    public func dataDidChange(_ changes: DataChanges, model: CollectionModel) {
        guard !changes.changesSectionList, sections.count == model.numberOfSections else {
            prepare(model: model, viewport: viewport)
            return
        }
        apply(changes.edits, model: model)
    }

    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        let axis = configuration.axis
        let old = viewport
        if axis.cross(of: old.size) != axis.cross(of: newViewport.size) {
            prepare(model: model, viewport: newViewport)
            return .layout
        }
        viewport = newViewport
        let pinningMoved = axis.main(of: old.offset) != axis.main(of: newViewport.offset)
            || old.contentInsets != newViewport.contentInsets
        return configuration.pinsHeaders && pinningMoved ? .offsetDependent : .none
    }

    public var contentSize: Size {
        configuration.axis.size(cross: contentCross, main: sections.last?.end ?? 0)
    }
}
