/// The scroll direction of a layout.
///
/// Strategies compute in *logical* coordinates: `main` runs along the scroll direction and
/// `cross` across it. A vertical layout maps main→y and cross→x; a horizontal one maps main→x and
/// cross→y. Writing each algorithm once in logical coordinates is how both directions stay exact
/// transposes of each other.
public enum Axis: String, Hashable, Sendable, CaseIterable {
    case vertical
    case horizontal

    // MARK: Logical → physical

    public func rect(cross: Double, main: Double, crossExtent: Double, mainExtent: Double) -> Rect {
        switch self {
        case .vertical:
            Rect(x: cross, y: main, width: crossExtent, height: mainExtent)
        case .horizontal:
            Rect(x: main, y: cross, width: mainExtent, height: crossExtent)
        }
    }

    public func size(cross: Double, main: Double) -> Size {
        switch self {
        case .vertical: Size(width: cross, height: main)
        case .horizontal: Size(width: main, height: cross)
        }
    }

    // MARK: Physical → logical

    /// Extent along the scroll direction.
    public func main(of size: Size) -> Double {
        self == .vertical ? size.height : size.width
    }

    /// Extent across the scroll direction.
    public func cross(of size: Size) -> Double {
        self == .vertical ? size.width : size.height
    }

    public func main(of point: Point) -> Double {
        self == .vertical ? point.y : point.x
    }

    public func cross(of point: Point) -> Double {
        self == .vertical ? point.x : point.y
    }

    public func mainRange(of rect: Rect) -> (min: Double, max: Double) {
        self == .vertical ? (rect.minY, rect.maxY) : (rect.minX, rect.maxX)
    }

    public func crossRange(of rect: Rect) -> (min: Double, max: Double) {
        self == .vertical ? (rect.minX, rect.maxX) : (rect.minY, rect.maxY)
    }

    /// Insets as (crossLeading, crossTrailing, mainLeading, mainTrailing).
    public func logical(_ insets: EdgeInsets) -> LogicalInsets {
        switch self {
        case .vertical:
            LogicalInsets(
                crossLeading: insets.left, crossTrailing: insets.right,
                mainLeading: insets.top, mainTrailing: insets.bottom)
        case .horizontal:
            LogicalInsets(
                crossLeading: insets.top, crossTrailing: insets.bottom,
                mainLeading: insets.left, mainTrailing: insets.right)
        }
    }
}

/// Insets expressed along a layout's main and cross axes (see `Axis`).
public struct LogicalInsets: Hashable, Sendable {
    public var crossLeading: Double
    public var crossTrailing: Double
    public var mainLeading: Double
    public var mainTrailing: Double

    public init(crossLeading: Double, crossTrailing: Double, mainLeading: Double, mainTrailing: Double) {
        self.crossLeading = crossLeading
        self.crossTrailing = crossTrailing
        self.mainLeading = mainLeading
        self.mainTrailing = mainTrailing
    }
}

extension Size {
    /// The same size with width and height swapped: how a vertical layout becomes horizontal.
    public var transposed: Size { Size(width: height, height: width) }
}

extension Point {
    public var transposed: Point { Point(x: y, y: x) }
}

extension Rect {
    public var transposed: Rect { Rect(origin: origin.transposed, size: size.transposed) }
}

extension EdgeInsets {
    /// Top↔left and bottom↔right: the insets of the transposed layout.
    public var transposed: EdgeInsets { EdgeInsets(top: left, left: top, bottom: right, right: bottom) }
}
