import LayoutEngine
import LayoutGeometry

/// CHTCollectionViewWaterfallLayout as a built-in strategy: equal columns, each item scaled to
/// the column width and put in the shortest column. The algorithm is `WaterfallColumns`, which
/// the plugin form runs too; this type only walks the model through it and answers queries.
///
/// Frames are kept in flat arrays (cells in section order; headers and footers apart) with a
/// `BlockIndex` over each: a waterfall's frames are not sorted along y, but consecutive items
/// sit near each other, so the index's runs stay tight. Headers and footers are zIndex 0 like
/// the cells: they never overlap a cell, so nothing needs to be on top.
///
/// Every change (selection, measurements, data) lays out again from scratch: an item's column
/// depends on every item before it, so there is no cheaper exact update.
public final class WaterfallLayout: NativeStrategy {
    public static var descriptor: StrategyDescriptor { WaterfallParameters.descriptor }

    public let parameters: ResolvedParameters
    let configuration: WaterfallParameters

    public private(set) var viewport = Viewport(size: Size(width: 1, height: 1))
    public private(set) var contentSize = Size.zero
    private var cells = PreparedCells()
    private var supplementaries = PreparedSupplementaries()

    // MARK: Lifecycle

    public init(parameters: ResolvedParameters) {
        self.parameters = parameters
        configuration = WaterfallParameters(parameters)
    }

    // MARK: LayoutStrategy

    public var scrollAxis: Axis { .vertical }

    public var defaultItemSize: Size { configuration.itemSize }

    /// - Complexity: O(n · columnCount) for n items, plus O(log n) per selected expanding item.
    public func prepare(model: CollectionModel, viewport: Viewport) {
        self.viewport = viewport
        var columns = WaterfallColumns(parameters: configuration, width: WaterfallColumns.availableWidth(in: viewport))
        var frames = [Rect]()
        frames.reserveCapacity(model.numberOfItems)
        var headers = [Rect?]()
        var footers = [Rect?]()
        for section in model.sections {
            headers.append(columns.beginSection(headerSize: section.headerSize))
            let expanded = model.openSizes(of: section)
            section.forEachSize(default: configuration.itemSize) { index, base in
                frames.append(columns.place(expanded.isEmpty ? base : expanded[index] ?? base))
                return true
            }
            footers.append(columns.endSection(footerSize: section.footerSize))
        }
        cells = PreparedCells(frames: frames, items: GlobalItemIndex(model))
        supplementaries = PreparedSupplementaries(headers: headers, footers: footers)
        contentSize = columns.contentSize
    }

    /// Frames depend on the viewport only through W: scrolling, a height change or top and
    /// bottom insets change nothing.
    public func updateViewport(_ newViewport: Viewport, model: CollectionModel) -> ViewportInvalidation {
        guard WaterfallColumns.availableWidth(in: newViewport) != WaterfallColumns.availableWidth(in: viewport) else {
            viewport = newViewport
            return .none
        }
        prepare(model: model, viewport: newViewport)
        return .layout
    }

    /// - Complexity: O(n / 64 + m) for m candidates in the index runs that overlap `rect`.
    public func elements(in rect: Rect, model: CollectionModel) -> [LayoutAttributes] {
        var result = [LayoutAttributes]()
        cells.index.forEachCandidate(from: rect.minY, to: rect.maxY) { flat in
            guard cells.frames[flat].intersects(rect) else { return }
            result.append(cell(at: cells.items.path(ofGlobal: flat), frame: cells.frames[flat], model: model))
        }
        supplementaries.index.forEachCandidate(from: rect.minY, to: rect.maxY) { position in
            let element = supplementaries.elements[position]
            guard element.frame.intersects(rect) else { return }
            result.append(supplementary(element.kind, section: element.section, frame: element.frame, model: model))
        }
        return result
    }

    /// - Complexity: O(log n + chunk size) for the id lookup.
    public func attributes(forItem id: String, model: CollectionModel) -> LayoutAttributes? {
        guard let path = model.indexPath(ofItem: id) else { return nil }
        return LayoutAttributes(kind: .cell, id: id, section: path.section, item: path.item, frame: cells.frames[cells.items.global(path)])
    }

    public func attributes(
        forSupplementary kind: ElementKind, id: String, model: CollectionModel
    ) -> LayoutAttributes? {
        guard let section = model.sectionIndex(of: id), let frame = supplementaries.frame(of: kind, section: section) else {
            return nil
        }
        return supplementary(kind, section: section, frame: frame, model: model)
    }

    // MARK: Private

    private func cell(at path: ItemIndexPath, frame: Rect, model: CollectionModel) -> LayoutAttributes {
        LayoutAttributes(kind: .cell, id: model.itemID(at: path), section: path.section, item: path.item, frame: frame)
    }

    private func supplementary(_ kind: ElementKind, section: Int, frame: Rect, model: CollectionModel) -> LayoutAttributes {
        LayoutAttributes(kind: kind, id: model.sections[section].id, section: section, item: nil, frame: frame)
    }
}

/// Cell frames in section order, with the index that finds them by y.
private struct PreparedCells {
    var frames: [Rect] = []
    /// Where each section's items start in `frames`.
    var items = GlobalItemIndex()
    var index = BlockIndex()

    init() {}

    init(frames: [Rect], items: GlobalItemIndex) {
        self.frames = frames
        self.items = items
        index = BlockIndex(count: frames.count) { (frames[$0].minY, frames[$0].maxY) }
    }
}

/// Headers and footers in content order (so their y ranges never decrease), with the index
/// over them and where each section's are.
private struct PreparedSupplementaries {
    struct Element {
        var kind: ElementKind
        var section: Int
        var frame: Rect
    }

    var elements: [Element] = []
    var headers: [Rect?] = []
    var footers: [Rect?] = []
    var index = BlockIndex()

    init() {}

    init(headers: [Rect?], footers: [Rect?]) {
        self.headers = headers
        self.footers = footers
        for section in headers.indices {
            if let header = headers[section] { elements.append(Element(kind: .header, section: section, frame: header)) }
            if let footer = footers[section] { elements.append(Element(kind: .footer, section: section, frame: footer)) }
        }
        let elements = elements
        index = BlockIndex(count: elements.count) { (elements[$0].frame.minY, elements[$0].frame.maxY) }
    }

    func frame(of kind: ElementKind, section: Int) -> Rect? {
        guard section < headers.count else { return nil }
        switch kind {
        case .header: return headers[section]
        case .footer: return footers[section]
        default: return nil
        }
    }
}
