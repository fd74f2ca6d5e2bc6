import LayoutGeometry

/// One section of a `CollectionModel`. Items live in chunks (`ItemList`), so inserting or
/// removing one costs a chunk's worth of work, not the section's; a chunk stores sizes only
/// once one of its items has a size of its own, so uniform sections cost nothing per item
/// beyond their ids.
public struct Section: Sendable {
    public let id: String
    /// Stable while the section exists; the model's id index refers to sections by serial.
    let serial: Int
    var items: ItemList
    /// Open sizes of expanding items, by item id. Sparse: most items never expand.
    public internal(set) var selectedSizes: [String: Size]
    public internal(set) var headerSize: Size?
    public internal(set) var footerSize: Size?

    public var count: Int { items.count }

    /// The item ids in order. Iterating walks the chunks; a subscript is O(log chunks).
    public var itemIDs: ItemIDs { ItemIDs(items: items) }

    /// Whether any item has a size of its own; a section without is laid out from the
    /// strategy's default size alone.
    public var hasOwnSizes: Bool { items.hasOwnSizes }

    /// Every item's stored size (`.zero` where the default applies), or `nil` when no item has
    /// a size of its own. For inspection: O(n).
    public var sizes: [Size]? {
        guard hasOwnSizes else { return nil }
        return items.chunks.flatMap { $0.sizes.map(Array.init) ?? Array(repeating: .zero, count: $0.count) }
    }

    /// Where each item's size came from, or `nil` when no item has a size of its own. O(n).
    public var sizeSources: [SizeSource]? {
        guard hasOwnSizes else { return nil }
        return items.chunks.flatMap { $0.sources ?? Array(repeating: .strategyDefault, count: $0.count) }
    }

    /// The item's closed size: its own, or `defaultSize` when it has none.
    ///
    /// - Complexity: O(log chunks).
    public func baseSize(ofItem index: Int, default defaultSize: Size) -> Size {
        items.size(at: index, default: defaultSize)
    }

    /// Calls `body` with each item's index, id and closed size, in order from `start`, until it
    /// returns false: how full layouts read a section without a lookup per item.
    public func forEachItem(from start: Int = 0, default defaultSize: Size, _ body: (Int, String, Size) -> Bool) {
        items.forEach(from: start, default: defaultSize, body)
    }

    /// Writes every item's closed size, in order, to `target`, which must hold `count` sizes.
    public func copySizes(into target: UnsafeMutablePointer<Size>, default defaultSize: Size) {
        items.copySizes(into: target, default: defaultSize)
    }

    /// Like `forEachItem`, without the ids.
    public func forEachSize(from start: Int = 0, default defaultSize: Size, _ body: (Int, Size) -> Bool) {
        items.forEachSize(from: start, default: defaultSize, body)
    }

    /// A section of validated specs. Their records are made a chunk at a time, so that a large
    /// section is never held as specs and as records at once.
    init(spec: SectionSpec, serial: Int) {
        id = spec.id
        self.serial = serial
        items = ItemList(spec.items.lazy.map(ItemRecord.init(spec:)))
        var selectedSizes = [String: Size]()
        for item in spec.items {
            if let open = item.selectedSize { selectedSizes[item.id] = open }
        }
        self.selectedSizes = selectedSizes
        headerSize = spec.headerSize
        footerSize = spec.footerSize
    }

    /// The section as a client would describe it again (round trip of `SectionSpec`).
    public var spec: SectionSpec {
        var specs = [ItemSpec]()
        specs.reserveCapacity(count)
        for chunk in items.chunks {
            for offset in 0..<chunk.count {
                specs.append(Self.itemSpec(chunk: chunk, offset: offset, selectedSizes: selectedSizes))
            }
        }
        return SectionSpec(id: id, items: specs, headerSize: headerSize, footerSize: footerSize)
    }

    public func itemSpec(at index: Int) -> ItemSpec {
        let (ordinal, offset) = items.locate(index)
        return Self.itemSpec(chunk: items.chunks[ordinal], offset: offset, selectedSizes: selectedSizes)
    }

    private static func itemSpec(chunk: ItemList.Chunk, offset: Int, selectedSizes: [String: Size]) -> ItemSpec {
        let id = chunk.ids[offset]
        var spec = ItemSpec(id: id, selectedSize: selectedSizes[id])
        if let sizes = chunk.sizes, let sources = chunk.sources {
            switch sources[offset] {
            case .strategyDefault: break
            case .absolute, .measured: spec.size = sizes[offset]
            case .estimated: spec.estimatedSize = sizes[offset]
            }
        }
        return spec
    }

    /// Where the item's stored size came from.
    public func sizeSource(ofItem index: Int) -> SizeSource {
        let (ordinal, offset) = items.locate(index)
        return items.chunks[ordinal].sources?[offset] ?? .strategyDefault
    }

    /// `sizeSource(ofItem:)` of each of `indices` (ascending), in one walk.
    public func sizeSources(ofItems indices: [Int]) -> [SizeSource] { items.sources(at: indices) }

    /// The size the item was measured at, if its size came from `view.measure`.
    public func measuredSize(ofItem index: Int) -> Size? {
        let (ordinal, offset) = items.locate(index)
        let chunk = items.chunks[ordinal]
        guard let sources = chunk.sources, sources[offset] == .measured else { return nil }
        return chunk.sizes?[offset]
    }

    /// Records a measured size.
    mutating func setMeasuredSize(_ size: Size, ofItem index: Int) {
        items.setSize(size, source: .measured, at: index)
    }
}

/// A section's item ids in order, without copying them out of the section's chunks.
public struct ItemIDs: RandomAccessCollection, Sendable {
    let items: ItemList

    public var startIndex: Int { 0 }
    public var endIndex: Int { items.count }

    /// - Complexity: O(log chunks).
    public subscript(position: Int) -> String { items.id(at: position) }

    public func makeIterator() -> Iterator { Iterator(chunks: items.chunks) }

    /// Walks the chunks in order: O(1) per id.
    public struct Iterator: IteratorProtocol {
        let chunks: [ItemList.Chunk]
        var chunk = 0
        var offset = 0

        public mutating func next() -> String? {
            while chunk < chunks.count {
                if offset < chunks[chunk].count {
                    defer { offset += 1 }
                    return chunks[chunk].ids[offset]
                }
                chunk += 1
                offset = 0
            }
            return nil
        }
    }
}
