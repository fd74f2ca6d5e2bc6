import LayoutGeometry

/// An item with its size and where the size came from: the unit batch updates move around, so
/// a measured size survives a move.
struct ItemRecord {
    var id: String
    var size: Size
    var source: SizeSource
    var selectedSize: Size?

    init(spec: ItemSpec) {
        id = spec.id
        selectedSize = spec.selectedSize
        if let size = spec.size {
            self.size = size
            source = .absolute
        } else if let estimate = spec.estimatedSize {
            size = estimate
            source = .estimated
        } else {
            size = .zero
            source = .strategyDefault
        }
    }

    init(id: String, size: Size, source: SizeSource, selectedSize: Size?) {
        self.id = id
        self.size = size
        self.source = source
        self.selectedSize = selectedSize
    }
}

/// A section as a list of records, for building or rebuilding a model.
struct SectionRecords {
    var id: String
    var items: [ItemRecord]
    var headerSize: Size?
    var footerSize: Size?

    init(spec: SectionSpec) {
        id = spec.id
        items = spec.items.map(ItemRecord.init(spec:))
        headerSize = spec.headerSize
        footerSize = spec.footerSize
    }
}
