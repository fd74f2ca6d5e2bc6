import LayoutGeometry

/// One section of a `CollectionModel`, stored as parallel arrays (struct of arrays) so a
/// million items cost a few words each and uniform sections cost nothing per item.
public struct Section: Sendable {
    public let id: String
    public internal(set) var itemIDs: [String]
    /// Per-item sizes, or `nil` when every item uses the strategy's default size.
    public internal(set) var sizes: [Size]?
    /// Parallel to `sizes`; `nil` exactly when `sizes` is.
    public internal(set) var sizeSources: [SizeSource]?
    /// Open sizes of expanding items, by item id. Sparse: most items never expand.
    public internal(set) var selectedSizes: [String: Size]
    public internal(set) var headerSize: Size?
    public internal(set) var footerSize: Size?

    public var count: Int { itemIDs.count }

    /// The item's closed size: its own, or `defaultSize` when it has none.
    ///
    /// - Complexity: O(1).
    @inlinable
    public func baseSize(ofItem index: Int, default defaultSize: Size) -> Size {
        guard let sizes, let sizeSources, sizeSources[index] != .strategyDefault else {
            return defaultSize
        }
        return sizes[index]
    }

    init(spec: SectionSpec) {
        self.init(records: SectionRecords(spec: spec))
    }

    /// The section as a client would describe it again (round trip of `SectionSpec`).
    public var spec: SectionSpec {
        SectionSpec(
            id: id,
            items: itemIDs.indices.map { itemSpec(at: $0) },
            headerSize: headerSize, footerSize: footerSize)
    }

    public func itemSpec(at index: Int) -> ItemSpec {
        let id = itemIDs[index]
        var spec = ItemSpec(id: id, selectedSize: selectedSizes[id])
        if let sizes, let sizeSources {
            switch sizeSources[index] {
            case .strategyDefault: break
            case .absolute, .measured: spec.size = sizes[index]
            case .estimated: spec.estimatedSize = sizes[index]
            }
        }
        return spec
    }

    /// Records a measured size, materialising per-item storage the first time a section
    /// that used only default sizes gets one.
    mutating func setMeasuredSize(_ size: Size, ofItem index: Int) {
        if sizes == nil {
            sizes = Array(repeating: .zero, count: itemIDs.count)
            sizeSources = Array(repeating: .strategyDefault, count: itemIDs.count)
        }
        sizes![index] = size
        sizeSources![index] = .measured
    }
}
