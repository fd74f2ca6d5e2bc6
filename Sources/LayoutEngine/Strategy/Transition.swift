import LayoutGeometry

/// One element's move during an animated change: from one set of attributes to another,
/// starting `delay` seconds after the transition starts and lasting `duration` seconds.
public struct TransitionSegment: Hashable, Sendable {
    public var key: ElementKey
    public var from: LayoutAttributes
    public var to: LayoutAttributes
    public var delay: Double
    public var duration: Double
    /// How the segment's progress runs over its time (UIKit's `UIView.AnimationCurve`).
    public var curve: AnimationCurve

    public init(
        key: ElementKey, from: LayoutAttributes, to: LayoutAttributes, delay: Double = 0, duration: Double = 0,
        curve: AnimationCurve = .easeInOut
    ) {
        self.key = key
        self.from = from
        self.to = to
        self.delay = delay
        self.duration = duration
        self.curve = curve
    }
}

/// An animation plan a client can play back: segments with delays, and the total duration.
///
/// An element may have several segments (collapsible's pre-stack slides a card onto its
/// stack, then moves the stack); they never overlap in time and each starts where the
/// previous one ended. Segments are ordered by delay, then by element key.
public struct Transition: Hashable, Sendable {
    public var duration: Double
    public var segments: [TransitionSegment]

    /// UIKit's default animation length for layout changes.
    public static let defaultDuration = 0.3

    public init(duration: Double, segments: [TransitionSegment]) {
        self.duration = duration
        self.segments = segments.sorted { ($0.delay, $0.key) < ($1.delay, $1.key) }
    }

    /// Every move starts at once and lasts `duration`, on `curve` (UIKit's default, ease in and
    /// out, unless the plan says otherwise).
    public static func together(_ moves: [TransitionSegment], duration: Double, curve: AnimationCurve = .easeInOut) -> Transition {
        Transition(
            duration: moves.isEmpty ? 0 : duration,
            segments: moves.map { move in
                var segment = move
                segment.delay = 0
                segment.duration = duration
                segment.curve = curve
                return segment
            })
    }

    /// The segments of one element, in time order.
    public func segments(for key: ElementKey) -> [TransitionSegment] {
        segments.filter { $0.key == key }
    }
}

/// One element's two ends in an interactive transition (`View.beginTransition`): its
/// attributes in the layout before and in the target layout, equal when it does not move.
/// An element in one layout only has its other end from the target strategy's
/// initial (appearing) or final (disappearing) attributes.
public struct TransitionPair: Hashable, Sendable {
    public var key: ElementKey
    public var from: LayoutAttributes
    public var to: LayoutAttributes

    public init(key: ElementKey, from: LayoutAttributes, to: LayoutAttributes) {
        self.key = key
        self.from = from
        self.to = to
    }

    /// The element at `progress` (0...1) of the way from `from` to `to`; see
    /// `LayoutAttributes.interpolated(to:progress:)`.
    public func attributes(at progress: Double) -> LayoutAttributes {
        from.interpolated(to: to, progress: progress)
    }
}

extension LayoutAttributes {
    /// The attributes `progress` (0...1) of the way to `other`, the rule an interactive
    /// transition scrubs by (UIKit's `UICollectionViewTransitionLayout` blends the same way):
    /// frame (origin and size), alpha, each transform component and each effect present on
    /// both sides move linearly, `(1 − p)·from + p·to`, which is exactly `from` at 0 and exactly
    /// `to` at 1 (a value equal on both sides stays exactly that value); an effect on one side
    /// only keeps its value. What cannot blend (zIndex, hidden, section and item positions,
    /// which effects exist) switches at the midpoint: `self`'s below 0.5, `other`'s from 0.5 on.
    /// Key and kind are `self`'s (both sides name one element).
    public func interpolated(to other: LayoutAttributes, progress p: Double) -> LayoutAttributes {
        if p == 0 { return self }
        if p == 1 { return other }
        var blended = p < 0.5 ? self : other
        blended.frame = Rect(
            x: Self.blend(frame.minX, other.frame.minX, p), y: Self.blend(frame.minY, other.frame.minY, p),
            width: Self.blend(frame.width, other.frame.width, p), height: Self.blend(frame.height, other.frame.height, p))
        blended.alpha = Self.blend(alpha, other.alpha, p)
        if transform != other.transform {
            let (t, u) = (transform, other.transform)
            blended.transform = Transform2D(
                a: Self.blend(t.a, u.a, p), b: Self.blend(t.b, u.b, p), c: Self.blend(t.c, u.c, p), d: Self.blend(t.d, u.d, p),
                tx: Self.blend(t.tx, u.tx, p), ty: Self.blend(t.ty, u.ty, p))
        }
        if !effects.isEmpty || !other.effects.isEmpty, effects != other.effects {
            for (name, value) in blended.effects {
                if let start = effects[name], let end = other.effects[name] { blended.effects[name] = Self.blend(start, end, p) } else { blended.effects[name] = value }
            }
        }
        return blended
    }

    /// `(1 − p)·a + p·b`; `a` itself when both are equal, so what does not move never rounds.
    @inline(__always)
    static func blend(_ a: Double, _ b: Double, _ p: Double) -> Double {
        a == b ? a : (1 - p) * a + p * b
    }
}
