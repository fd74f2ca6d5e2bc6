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
