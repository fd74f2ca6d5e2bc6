import LayoutGeometry
import LayoutProtocol

/// The client's copy of one view's window, kept from a snapshot and the invalidations after it
/// (protocol/subscriptions.md, "Keeping a mirror"): after each step it holds exactly the
/// elements the daemon's window holds, with their current attributes.
public struct WindowMirror: Sendable {
    public private(set) var view: String
    public private(set) var epoch: Int
    public private(set) var window: Rect
    public private(set) var contentSize: Size
    public private(set) var contentOffset: Point
    public private(set) var windowTruncated: Bool
    private var byKey: [ElementKey: Attributes]

    /// What `apply(_:)` did with an invalidation.
    public enum Outcome: Equatable, Sendable {
        /// The next epoch: applied.
        case applied
        /// An epoch the mirror already has (the mutating client's own reply and its event):
        /// nothing to do.
        case alreadyApplied
        /// An epoch past the next: some were missed; the mirror is unchanged and must be
        /// replaced from a snapshot (`view.get`, or subscribing again).
        case missed
    }

    public init(_ snapshot: Snapshot) {
        view = snapshot.view
        epoch = snapshot.epoch
        window = snapshot.window
        contentSize = snapshot.contentSize
        contentOffset = snapshot.viewport.offset
        windowTruncated = snapshot.windowTruncated
        byKey = Dictionary(snapshot.elements.map { ($0.key, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// What one step did to the mirror's elements, so a front end touches only those widgets:
    /// elements that `entered` (keys the mirror did not have), that `changed` (keys it had,
    /// with new attributes) and keys that `left`. Applying it to the elements before the step
    /// gives the elements after it.
    public struct Change: Equatable, Sendable {
        public var entered: [Attributes]
        public var changed: [Attributes]
        public var left: [ElementKey]
        /// The mirror's epoch after the step.
        public var epoch: Int

        public init(entered: [Attributes] = [], changed: [Attributes] = [], left: [ElementKey] = [], epoch: Int) {
            self.entered = entered
            self.changed = changed
            self.left = left
            self.epoch = epoch
        }

        public var isEmpty: Bool { entered.isEmpty && changed.isEmpty && left.isEmpty }
    }

    /// Starts again from `snapshot` (a `view.resync`, or after `missed`); returns what that
    /// changed: every element that is new, different or gone.
    ///
    /// - Complexity: O(n) in the elements of both windows.
    @discardableResult
    public mutating func replace(with snapshot: Snapshot) -> Change {
        let before = byKey
        self = WindowMirror(snapshot)
        var change = Change(epoch: epoch)
        for element in elements {
            switch before[element.key] {
            case nil: change.entered.append(element)
            case let old? where old != element: change.changed.append(element)
            default: break
            }
        }
        change.left = before.keys.filter { byKey[$0] == nil }.sorted()
        return change
    }

    /// Applies an invalidation: `left` first, then `entered` and `changed`.
    @discardableResult
    public mutating func apply(_ invalidation: Invalidation) -> Outcome { apply(invalidation, reporting: { _ in }) }

    /// Applies an invalidation and, when applied, reports what it changed (`Change`), judged
    /// by what the mirror held before and holds after: a key it did not have and has now
    /// entered, a key it had and has no more left, a key it had and still has (listed as
    /// entered or changed) changed, even with equal attributes (a reloaded item).
    ///
    /// - Complexity: O(k) in the invalidation's elements.
    @discardableResult
    public mutating func apply(_ invalidation: Invalidation, reporting change: (Change) -> Void) -> Outcome {
        guard !invalidation.dryRun else { return .alreadyApplied }
        if invalidation.epoch <= epoch { return .alreadyApplied }
        guard invalidation.epoch == epoch + 1 else { return .missed }
        var touched = [ElementKey]()
        var before = [ElementKey: Attributes?]()
        for key in invalidation.left + invalidation.entered.map(\.key) + invalidation.changed.map(\.key) where before[key] == nil {
            before[key] = .some(byKey[key])
            touched.append(key)
        }
        for key in invalidation.left { byKey[key] = nil }
        for element in invalidation.entered { byKey[element.key] = element }
        for element in invalidation.changed { byKey[element.key] = element }
        var report = Change(epoch: invalidation.epoch)
        for key in touched {
            switch (before[key] ?? nil, byKey[key]) {
            case (nil, let now?): report.entered.append(now)
            case (.some, let now?): report.changed.append(now)
            case (.some, nil): report.left.append(key)
            case (nil, nil): break
            }
        }
        epoch = invalidation.epoch
        window = invalidation.window
        contentSize = invalidation.contentSize
        contentOffset = invalidation.contentOffset
        windowTruncated = invalidation.windowTruncated
        change(report)
        return .applied
    }

    /// The elements, sorted by key (the daemon's order).
    public var elements: [Attributes] { byKey.values.sorted { $0.key < $1.key } }

    public var count: Int { byKey.count }

    public subscript(key: ElementKey) -> Attributes? { byKey[key] }

    /// The elements as they are drawn at time `t` (seconds since the start) of `transition`:
    /// every element of the mirror, those with segments interpolated, plus the elements that
    /// only the animation still shows (those that left and are fading out).
    public func elements(at t: Double, of transition: Transition) -> [Attributes] {
        var drawn = byKey
        for (key, attributes) in transition.attributes(at: t) { drawn[key] = attributes }
        return drawn.values.sorted { $0.key < $1.key }
    }
}

extension Transition {
    /// Every element with a segment as drawn at time `t`: before its first segment it is at
    /// that segment's `from`, during a segment its frame, alpha, transform and effects move
    /// linearly from `from` to `to` (protocol/mutations.md, "How to play it"), after its last
    /// it is at that one's `to`. Position, zIndex and hidden switch to `to` once the segment
    /// starts.
    public func attributes(at t: Double) -> [ElementKey: Attributes] {
        var result = [ElementKey: Attributes]()
        var latestStart = [ElementKey: Double]()
        for segment in segments {
            let key = segment.key
            if t < segment.delay {
                // Not started: the earliest segment's start stands, unless a started one exists.
                if result[key] == nil { result[key] = segment.from }
                continue
            }
            guard segment.delay >= latestStart[key] ?? -.infinity else { continue }
            latestStart[key] = segment.delay
            let progress = segment.duration > 0 ? segment.curve.progress(at: min(1, (t - segment.delay) / segment.duration)) : 1
            result[key] = Self.interpolate(segment.from, segment.to, progress)
        }
        return result
    }

    /// `from` moved a fraction `p` of the way to `to`.
    public static func interpolate(_ from: Attributes, _ to: Attributes, _ p: Double) -> Attributes {
        func mix(_ a: Double, _ b: Double) -> Double { p >= 1 ? b : a + (b - a) * p }
        var result = to
        result.frame = Rect(
            x: mix(from.frame.minX, to.frame.minX), y: mix(from.frame.minY, to.frame.minY), width: mix(from.frame.width, to.frame.width),
            height: mix(from.frame.height, to.frame.height))
        result.alpha = mix(from.alpha, to.alpha)
        let (f, g) = (from.transform, to.transform)
        result.transform = Transform(a: mix(f.a, g.a), b: mix(f.b, g.b), c: mix(f.c, g.c), d: mix(f.d, g.d), tx: mix(f.tx, g.tx), ty: mix(f.ty, g.ty))
        var effects = [String: Double]()
        for name in Set(from.effects.keys).union(to.effects.keys) {
            effects[name] = mix(from.effects[name] ?? to.effects[name] ?? 0, to.effects[name] ?? from.effects[name] ?? 0)
        }
        result.effects = effects
        return result
    }
}

/// One view followed through a subscription: its mirror, kept from the connection's events.
/// Feed it every event of the connection (`handle(_:)`); events of other subscriptions are
/// ignored. A missed epoch or a `seq` gap reloads the mirror from `view.get`; a `view.resync`
/// replaces it; `view.deleted` ends it.
public final class FollowedView {
    public let connection: LayoutdConnection
    public let view: String
    public private(set) var subscription: Int
    public private(set) var mirror: WindowMirror
    /// Set once the view was deleted: no more events come.
    public private(set) var isDeleted = false
    /// Called after every step applied to the mirror (an invalidation, a reload after a missed
    /// epoch or a gap, a resync) with what entered, changed and left, so a front end touches
    /// only those widgets (the change may be empty: the window or content size moved only).
    public var onChange: ((WindowMirror.Change) -> Void)?

    /// Subscribes to `view` on `connection`.
    ///
    /// - Parameter onChange: see `onChange`.
    public nonisolated(nonsending) init(
        _ view: String, on connection: LayoutdConnection, onChange: ((WindowMirror.Change) -> Void)? = nil
    ) async throws(LayoutdError) {
        self.connection = connection
        self.view = view
        self.onChange = onChange
        let subscribed = try await connection.viewSubscribe(view: view)
        subscription = subscribed.subscription
        mirror = WindowMirror(subscribed.snapshot)
    }

    /// Applies one event of the connection; returns whether the mirror changed. Runs on the
    /// caller's actor (the main actor's code can hand it events without sending the view).
    @discardableResult
    public nonisolated(nonsending) func handle(_ event: Event) async throws(LayoutdError) -> Bool {
        switch event {
        case .invalidated(let id, let invalidation) where id == subscription:
            switch apply(reply: invalidation) {
            case .applied: return true
            case .alreadyApplied: return false
            case .missed:
                try await reload()
                return true
            }
        case .resync(let id, _, let snapshot) where id == subscription:
            replace(with: snapshot)
            return true
        case .deleted(let id, _) where id == subscription:
            isDeleted = true
            return true
        case .gap:
            // Events were lost on this connection: start again from the daemon's state.
            try await reload()
            return true
        default:
            return false
        }
    }

    /// Applies the reply of a mutation this client made itself (the same object its event
    /// carries; whichever comes second is recognised by its epoch and skipped).
    @discardableResult
    public func apply(reply invalidation: Invalidation) -> WindowMirror.Outcome {
        mirror.apply(invalidation) { change in onChange?(change) }
    }

    private nonisolated(nonsending) func reload() async throws(LayoutdError) {
        replace(with: try await connection.viewGet(view: view))
    }

    private func replace(with snapshot: Snapshot) {
        let change = mirror.replace(with: snapshot)
        onChange?(change)
    }
}
