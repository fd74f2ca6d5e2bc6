import LayoutGeometry

/// A chunk's item sizes in the smallest form that keeps them exactly: one size for the whole
/// chunk when all are equal, 32-bit floats when every width and height is one (sizes in
/// points nearly always are: whole, half or quarter points), else doubles. 0, 8 or 16 bytes an
/// item instead of 16.
///
/// A change that the current form cannot hold widens it; only building a column anew
/// (`init`) narrows it again.
struct SizeColumn: RandomAccessCollection, Sendable {
    private enum Storage {
        case uniform(Size, count: Int)
        /// Width, height, width, height, ...
        case single([Float])
        case double([Double])
    }

    private var storage: Storage

    init(_ sizes: some Collection<Size>) {
        storage = Self.narrowest(sizes)
    }

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch storage {
        case .uniform(_, let count): count
        case .single(let values): values.count / 2
        case .double(let values): values.count / 2
        }
    }

    subscript(offset: Int) -> Size {
        get {
            switch storage {
            case .uniform(let size, _): size
            case .single(let values): Size(width: Double(values[2 * offset]), height: Double(values[2 * offset + 1]))
            case .double(let values): Size(width: values[2 * offset], height: values[2 * offset + 1])
            }
        }
        set {
            widen(toHold: CollectionOfOne(newValue))
            switch storage {
            case .uniform: break
            case .single(var values):
                storage = .uniform(.zero, count: 0)
                values[2 * offset] = Float(newValue.width)
                values[2 * offset + 1] = Float(newValue.height)
                storage = .single(values)
            case .double(var values):
                storage = .uniform(.zero, count: 0)
                values[2 * offset] = newValue.width
                values[2 * offset + 1] = newValue.height
                storage = .double(values)
            }
        }
    }

    /// The form of this column, for tests and memory accounting: bytes stored per item.
    var bytesPerItem: Int {
        switch storage {
        case .uniform: 0
        case .single: 8
        case .double: 16
        }
    }

    mutating func insert(contentsOf sizes: some Collection<Size>, at offset: Int) {
        widen(toHold: sizes)
        switch storage {
        case .uniform(let size, let count): storage = .uniform(size, count: count + sizes.count)
        case .single(var values):
            storage = .uniform(.zero, count: 0)
            values.insert(contentsOf: sizes.lazy.flatMap { [Float($0.width), Float($0.height)] }, at: 2 * offset)
            storage = .single(values)
        case .double(var values):
            storage = .uniform(.zero, count: 0)
            values.insert(contentsOf: sizes.lazy.flatMap { [$0.width, $0.height] }, at: 2 * offset)
            storage = .double(values)
        }
    }

    mutating func remove(at offset: Int) {
        switch storage {
        case .uniform(let size, let count): storage = .uniform(size, count: count - 1)
        case .single(var values):
            storage = .uniform(.zero, count: 0)
            values.removeSubrange(2 * offset..<2 * offset + 2)
            storage = .single(values)
        case .double(var values):
            storage = .uniform(.zero, count: 0)
            values.removeSubrange(2 * offset..<2 * offset + 2)
            storage = .double(values)
        }
    }

    /// Writes the sizes in `range` (all of them by default) to `target`, which has room for
    /// them: a full layout's bulk read, a tight loop per form instead of a switch per item.
    func copy(_ range: Range<Int>? = nil, into target: UnsafeMutablePointer<Size>) {
        let range = range ?? 0..<count
        switch storage {
        case .uniform(let size, _): target.initialize(repeating: size, count: range.count)
        case .single(let values):
            values.withUnsafeBufferPointer { values in
                for offset in range {
                    target[offset - range.lowerBound] = Size(
                        width: Double(values[2 * offset]), height: Double(values[2 * offset + 1]))
                }
            }
        case .double(let values):
            values.withUnsafeBufferPointer { values in
                for offset in range {
                    target[offset - range.lowerBound] = Size(width: values[2 * offset], height: values[2 * offset + 1])
                }
            }
        }
    }

    // MARK: Private

    private static func isSingle(_ value: Double) -> Bool { Double(Float(value)) == value }

    private static func narrowest(_ sizes: some Collection<Size>) -> Storage {
        guard let first = sizes.first, !sizes.allSatisfy({ $0 == first }) else {
            return .uniform(sizes.first ?? .zero, count: sizes.count)
        }
        if sizes.allSatisfy({ isSingle($0.width) && isSingle($0.height) }) {
            var values = [Float]()
            values.reserveCapacity(2 * sizes.count)
            for size in sizes {
                values.append(Float(size.width))
                values.append(Float(size.height))
            }
            return .single(values)
        }
        var values = [Double]()
        values.reserveCapacity(2 * sizes.count)
        for size in sizes {
            values.append(size.width)
            values.append(size.height)
        }
        return .double(values)
    }

    /// Changes the form, if need be, to one that holds `sizes` too.
    private mutating func widen(toHold sizes: some Collection<Size>) {
        switch storage {
        case .uniform(let size, let count):
            guard !sizes.allSatisfy({ $0 == size }) else { return }
            let current = Array(repeating: size, count: count)
            // Narrowest for old and new sizes together; the caller then writes the new ones.
            storage = Self.narrowest(current + sizes)
            trim(to: count)
        case .single(let values):
            guard !sizes.allSatisfy({ Self.isSingle($0.width) && Self.isSingle($0.height) }) else { return }
            storage = .double(values.map(Double.init))
        case .double:
            return
        }
    }

    /// Drops sizes past `count` (what `widen` added to choose a form).
    private mutating func trim(to count: Int) {
        switch storage {
        case .uniform(let size, _): storage = .uniform(size, count: count)
        case .single(var values):
            storage = .uniform(.zero, count: 0)
            values.removeSubrange((2 * count)...)
            storage = .single(values)
        case .double(var values):
            storage = .uniform(.zero, count: 0)
            values.removeSubrange((2 * count)...)
            storage = .double(values)
        }
    }
}
