/// A segment's timing curve: UIKit's `UIView.AnimationCurve`, each a cubic Bézier from (0, 0) to
/// (1, 1) with the control points CSS gives the same names (`linear`, `ease-in`, `ease-out`,
/// `ease-in-out`), so a web client hands the name to Web Animations and every other client
/// solves the same curve.
public enum AnimationCurve: String, Hashable, Sendable, CaseIterable {
    /// Constant speed: keyframes interpolated linearly (collapsible's pre-stack phase).
    case linear
    case easeIn
    /// Fast, then slowing: a release from a gesture, whose motion is already under way.
    case easeOut
    /// Slow, fast, slow: UIKit's default for `UIView.animate` and batch updates.
    case easeInOut

    /// (x1, y1, x2, y2): the two inner control points.
    public var controlPoints: (x1: Double, y1: Double, x2: Double, y2: Double) {
        switch self {
        case .linear: (0, 0, 1, 1)
        case .easeIn: (0.42, 0, 1, 1)
        case .easeOut: (0, 0, 0.58, 1)
        case .easeInOut: (0.42, 0, 0.58, 1)
        }
    }

    /// The progress at `time` (both 0...1): the curve's y where its x is `time`, x solved by
    /// Newton's method with bisection as the fallback (x(t) is monotonic for these points).
    public func progress(at time: Double) -> Double {
        let x = min(max(time, 0), 1)
        let (x1, y1, x2, y2) = controlPoints
        if self == .linear || x == 0 || x == 1 { return x }
        func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
        }
        func slope(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * p1 + 6 * u * t * (p2 - p1) + 3 * t * t * (1 - p2)
        }
        var t = x
        for _ in 0..<8 {
            let error = bezier(t, x1, x2) - x
            if abs(error) < 1e-12 { return bezier(t, y1, y2) }
            let d = slope(t, x1, x2)
            guard abs(d) > 1e-9 else { break }
            t -= error / d
        }
        var (low, high) = (0.0, 1.0)
        t = x
        for _ in 0..<60 {
            let value = bezier(t, x1, x2)
            if abs(value - x) < 1e-12 { break }
            if value < x { low = t } else { high = t }
            t = (low + high) / 2
        }
        return bezier(t, y1, y2)
    }
}
