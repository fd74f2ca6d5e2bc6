import LayoutGeometry

/// One element's move during an animated change: from one set of attributes to another,
/// starting `delay` seconds after the transition starts and lasting `duration` seconds.
public struct TransitionSegment: Hashable, Sendable {
    public var key: ElementKey
    public var from: LayoutAttributes
    public var to: LayoutAttributes
    public var delay: Double
    public var duration: Double

    public init(key: ElementKey, from: LayoutAttributes, to: LayoutAttributes, delay: Double = 0, duration: Double = 0) {
        self.key = key
        self.from = from
        self.to = to
        self.delay = delay
        self.duration = duration
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

    /// Every move starts at once and lasts `duration`.
    public static func together(_ moves: [TransitionSegment], duration: Double) -> Transition {
        Transition(
            duration: moves.isEmpty ? 0 : duration,
            segments: moves.map { move in
                var segment = move
                segment.delay = 0
                segment.duration = duration
                return segment
            })
    }

    /// The segments of one element, in time order.
    public func segments(for key: ElementKey) -> [TransitionSegment] {
        segments.filter { $0.key == key }
    }
}
