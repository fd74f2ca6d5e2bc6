import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

/// One switch a transition can scrub: the view it starts from and what `beginTransition` gets.
struct ScrubbedSwitch: CustomStringConvertible, Sendable {
    var name: String
    var strategy: String
    var parameters: [String: ParameterValue]
    /// nil: a parameter change over the current values (as `configure`).
    var target: String?
    var changes: [String: ParameterValue]
    var selected: [String] = []
    var direction: LayoutDirection = .ltr

    var description: String { "\(name) \(direction.rawValue)" }

    func makeView(items: Int = 120, offset: Double = 230, margin: Double = 40) throws -> View {
        let sections = [
            SectionSpec(id: "s0", items: (0..<items / 2).map { ItemSpec(id: "a\($0)") }, headerSize: Size(width: 0, height: 30)),
            SectionSpec(id: "s1", items: (0..<items / 2).map { ItemSpec(id: "b\($0)") }),
        ]
        let view = try View(
            strategy: strategy, parameters: parameters, sections: sections,
            viewport: Viewport(size: Size(width: 375, height: 667), offset: Point(x: 0, y: offset)), windowMargin: margin,
            layoutDirection: direction)
        if !selected.isEmpty { try view.select(selected, mode: .set) }
        return view
    }

    /// The same switch made at once, not animated: what a commit must equal.
    func plainSwitch(_ view: View) throws {
        if let target {
            try view.switchStrategy(to: target, parameters: changes)
        } else {
            try view.configure(changes)
        }
    }

    func begin(_ view: View, ifEpoch: Int? = nil) throws -> TransitionPlan {
        try view.beginTransition(to: target, parameters: changes, ifEpoch: ifEpoch)
    }

    static let item = ParameterValue.size(Size(width: 100, height: 100))
    static let headers = ParameterValue.size(Size(width: 0, height: 30))

    static let all: [ScrubbedSwitch] = {
        let basic = [
            ScrubbedSwitch(
                name: "flow grid to display list", strategy: "flow", parameters: ["itemSize": item, "headerReferenceSize": headers],
                target: "display", changes: ["mode": .string("list"), "rowHeight": .number(60)]),
            ScrubbedSwitch(
                name: "display list to flow grid", strategy: "display", parameters: ["mode": .string("list")], target: "flow",
                changes: ["itemSize": item]),
            ScrubbedSwitch(
                name: "display grid to list", strategy: "display", parameters: [:], target: nil, changes: ["mode": .string("list")]),
            ScrubbedSwitch(
                name: "display grid to inline (the axis turns)", strategy: "display", parameters: [:], target: nil,
                changes: ["mode": .string("inline")]),
            ScrubbedSwitch(
                name: "collapsible collapsed on", strategy: "collapsible", parameters: [:], target: nil,
                changes: ["collapsed": .bool(true)], selected: ["a3", "a4", "a5", "a6", "a20", "a21"]),
            ScrubbedSwitch(
                name: "collapsible collapsed off", strategy: "collapsible", parameters: ["collapsed": .bool(true)], target: nil,
                changes: ["collapsed": .bool(false)], selected: ["a3", "a4", "a5", "a6", "a20", "a21"]),
            ScrubbedSwitch(
                name: "flow to ultravisual", strategy: "flow", parameters: ["itemSize": item], target: "ultravisual", changes: [:]),
        ]
        return basic + basic.map { var rtl = $0; rtl.direction = .rtl; return rtl }
    }()
}

@Suite("interactive transitions (begin, update, end)")
struct InteractiveTransitionTests {
    typealias Mirror = [ElementKey: LayoutAttributes]

    static func mirror(_ view: View) -> Mirror {
        Dictionary(uniqueKeysWithValues: view.snapshot().map { ($0.key, $0) })
    }

    /// What a client sees of a view: everything but the epoch.
    static func state(_ view: View) -> String {
        "\(view.strategyName) \(view.parameters.values.sorted { $0.key < $1.key }) \(view.viewport) \(view.layout.contentSize) \(view.window) \(view.snapshot())"
    }

    @Test("progress 0 is the layout before and 1 the layout after a plain switch", arguments: ScrubbedSwitch.all)
    func ends(_ scrub: ScrubbedSwitch) throws {
        let view = try scrub.makeView()
        let switched = try view.copy()
        try scrub.plainSwitch(switched)
        let before = Self.mirror(view)
        let after = Self.mirror(switched)

        let plan = try scrub.begin(view)
        #expect(plan.progress == 0)
        #expect(plan.fromContentOffset == view.viewport.offset)
        #expect(plan.toContentOffset == switched.viewport.offset)
        #expect(plan.toContentSize == switched.layout.contentSize)
        #expect(Set(plan.pairs.map(\.key)) == Set(before.keys).union(after.keys), "the pairs are both windows")
        let start = try view.updateTransition(progress: 0)
        for attributes in start.elements where before[attributes.key] != nil {
            #expect(attributes == before[attributes.key], "\(attributes.key) at 0")
        }
        for attributes in start.elements where before[attributes.key] == nil {
            #expect(attributes.alpha == 0 || view.layout.attributes(for: attributes.key) == attributes, "\(attributes.key) appears or slides in")
        }
        let end = try view.updateTransition(progress: 1)
        for attributes in end.elements where after[attributes.key] != nil {
            #expect(attributes == after[attributes.key], "\(attributes.key) at 1")
        }
        #expect(end.contentOffset == switched.viewport.offset)
        #expect(end.contentSize == switched.layout.contentSize)
        #expect(start.contentOffset == view.viewport.offset)
    }

    @Test("in between, every element is the linear interpolation of its pair", arguments: ScrubbedSwitch.all)
    func linear(_ scrub: ScrubbedSwitch) throws {
        let view = try scrub.makeView()
        let plan = try scrub.begin(view)
        for p in [0.1, 0.25, 0.5, 0.75, 0.9] {
            let frame = try view.updateTransition(progress: p)
            #expect(frame.elements.count == plan.pairs.count)
            for (pair, attributes) in zip(plan.pairs, frame.elements) {
                func lerp(_ a: Double, _ b: Double) -> Double { (1 - p) * a + p * b }
                let (f, t) = (pair.from.frame, pair.to.frame)
                let expected = Rect(
                    x: lerp(f.minX, t.minX), y: lerp(f.minY, t.minY), width: lerp(f.width, t.width), height: lerp(f.height, t.height))
                #expect(attributes.key == pair.key)
                #expect(attributes.frame.isClose(to: expected, tolerance: 1e-9), "\(pair.key) at \(p)")
                #expect(abs(attributes.alpha - lerp(pair.from.alpha, pair.to.alpha)) < 1e-12)
                #expect(attributes.zIndex == (p < 0.5 ? pair.from.zIndex : pair.to.zIndex))
                for (name, value) in attributes.effects {
                    if let a = pair.from.effects[name], let b = pair.to.effects[name] { #expect(abs(value - lerp(a, b)) < 1e-12) }
                }
            }
        }
    }

    @Test("commit equals the plain switch, revert the view before, each one epoch step", arguments: ScrubbedSwitch.all)
    func commitAndRevert(_ scrub: ScrubbedSwitch) throws {
        for commit in [true, false] {
            let view = try scrub.makeView()
            let plain = try view.copy()
            try scrub.plainSwitch(plain)
            let before = Self.state(view)
            let epoch = view.epoch
            let plan = try scrub.begin(view)
            #expect(view.epoch == epoch, "begin is not a mutation")
            let progress = 0.4
            let frame = try view.updateTransition(progress: progress)
            var mirror = Self.mirror(view)
            let ended = try view.endTransition(commit: commit)
            #expect(ended.epoch == epoch + 1)
            #expect(view.transition == nil)
            #expect(ViewChecks.mirror(ended, mirror: &mirror, view: view, epoch: epoch) == [])
            #expect(Self.state(view) == (commit ? Self.state(plain) : before))
            // The end animates from where the gesture left each element, for what remains.
            let transition = try #require(ended.transition)
            let now = Dictionary(uniqueKeysWithValues: frame.elements.map { ($0.key, $0) })
            for segment in transition.segments {
                #expect(segment.from == now[segment.key], "\(segment.key) starts where the gesture left it")
                let pair = try #require(plan.pairs.first { $0.key == segment.key })
                #expect(segment.to == (commit ? pair.to : pair.from))
                #expect(segment.delay == 0)
            }
            if !transition.segments.isEmpty {
                #expect(abs(transition.duration - plan.duration * (commit ? 1 - progress : progress)) < 1e-12)
            }
            #expect(ended.context.invalidatesEverything == commit)
        }
    }

    @Test("a mirror fed only the replies equals the view and the pairs a fresh begin gives, at every step", arguments: 0..<12)
    func mirrorProperty(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &* 7919)
        let scrub = ScrubbedSwitch.all[seed % ScrubbedSwitch.all.count]
        let view = try scrub.makeView(items: 400, offset: Double(Int.random(in: 0...2000, using: &random)))
        var mirror = Self.mirror(view)
        let plan = try scrub.begin(view)
        var pairs = Dictionary(uniqueKeysWithValues: plan.pairs.map { ($0.key, $0) })
        for _ in 0..<8 {
            let epoch = view.epoch
            if Bool.random(using: &random) {
                _ = try view.updateTransition(progress: Double.random(in: 0...1, using: &random))
                #expect(view.epoch == epoch)
                continue
            }
            var offset = view.viewport.offset
            let axis = view.layout.strategy.scrollAxis
            let step = Double.random(in: -700...700, using: &random)
            if axis == .vertical { offset.y += step } else { offset.x += step }
            let scrolled = try view.scroll(to: offset)
            #expect(ViewChecks.mirror(scrolled, mirror: &mirror, view: view, epoch: epoch) == [])
            let replanned = try #require(scrolled.interactiveTransition)
            for key in replanned.left ?? [] { #expect(pairs.removeValue(forKey: key) != nil, "\(key) left but was not held") }
            for pair in replanned.pairs { pairs[pair.key] = pair }
            #expect(replanned.elements == replanned.pairs.map { $0.attributes(at: view.transition!.progress) })
            // The pairs a transition begun now would have: both layouts queried afresh.
            let fresh = try view.copy()
            try fresh.endTransition(commit: false)
            let begun = try scrub.begin(fresh)
            #expect(pairs == Dictionary(uniqueKeysWithValues: begun.pairs.map { ($0.key, $0) }), "seed \(seed)")
            #expect(replanned.toContentOffset == begun.toContentOffset)
        }
        let epoch = view.epoch
        let plain = try view.copy()
        try plain.endTransition(commit: false)
        try scrub.plainSwitch(plain)
        let ended = try view.endTransition(commit: true)
        #expect(ViewChecks.mirror(ended, mirror: &mirror, view: view, epoch: epoch) == [])
        #expect(Self.state(view) == Self.state(plain), "a commit after scrolling is the plain switch made then")
    }

    @Test("mixed with other mutations: each ends the transition back, the mirror holds, a new one begins", arguments: 0..<8)
    func interruptedAtRandom(seed: Int) throws {
        var random = SeededGenerator(seed: UInt64(seed) &* 104_729)
        let scrub = ScrubbedSwitch.all[(seed * 5) % ScrubbedSwitch.all.count]
        let view = try scrub.makeView(items: 300, offset: Double(Int.random(in: 0...1500, using: &random)))
        var mirror = Self.mirror(view)
        for _ in 0..<12 {
            let epoch = view.epoch
            let before = Self.state(view)
            let invalidation: Invalidation
            switch Int.random(in: 0..<5, using: &random) {
            case 0 where view.transition == nil:
                _ = try scrub.begin(view)
                #expect(Self.state(view) == before && view.epoch == epoch, "begin changes nothing")
                continue
            case 1 where view.transition != nil:
                invalidation = try view.endTransition(commit: Bool.random(using: &random))
            case 2:
                let id = view.model.itemID(at: ItemIndexPath(section: 0, item: Int.random(in: 0..<150, using: &random)))
                let active = view.transition
                invalidation = try view.select([id], mode: .toggle)
                #expect((invalidation.interruptedTransition != nil) == (active != nil))
                #expect(view.transition == nil)
            case 3:
                let active = view.transition != nil
                invalidation = try view.measure([(id: "a\(Int.random(in: 0..<150, using: &random))", size: Size(width: 80, height: 140))])
                #expect((invalidation.interruptedTransition != nil) == active)
            default:
                var offset = view.viewport.offset
                let step = Double.random(in: -500...500, using: &random)
                if view.layout.strategy.scrollAxis == .vertical { offset.y += step } else { offset.x += step }
                let active = view.transition != nil
                invalidation = try view.scroll(to: offset)
                #expect((invalidation.interactiveTransition != nil) == active && (view.transition != nil) == active)
            }
            #expect(ViewChecks.mirror(invalidation, mirror: &mirror, view: view, epoch: epoch) == [], "seed \(seed)")
        }
    }

    @Test("refusals are named and change nothing")
    func refusals() throws {
        let scrub = ScrubbedSwitch.all[0]
        let view = try scrub.makeView()
        let before = Self.state(view)
        #expect(throws: LayoutError.noActiveTransition) { try view.updateTransition(progress: 0.5) }
        #expect(throws: LayoutError.noActiveTransition) { try view.endTransition(commit: true) }
        #expect(throws: LayoutError.unknownStrategy("nope")) { try view.beginTransition(to: "nope") }
        #expect(throws: LayoutError.self) { try view.beginTransition(to: nil, parameters: ["itemSzie": .number(1)]) }
        #expect(throws: LayoutError.self) { try view.beginTransition(to: "display", parameters: ["columns": .integer(0)]) }
        #expect(throws: LayoutError.staleEpoch(expected: 7, actual: view.epoch)) { try view.beginTransition(to: "display", ifEpoch: 7) }
        #expect(view.transition == nil)
        #expect(Self.state(view) == before && view.epoch == 0)

        _ = try scrub.begin(view)
        _ = try view.updateTransition(progress: 0.3)
        let pairs = view.transition!.pairs
        #expect(throws: LayoutError.transitionInProgress) { try view.beginTransition(to: "display") }
        for bad in [-0.01, 1.01, .nan, .infinity, -.infinity] {
            #expect(throws: LayoutError.invalidParameter(parameter: "progress", reason: "must be finite and within 0...1")) {
                try view.updateTransition(progress: bad)
            }
        }
        #expect(throws: LayoutError.staleEpoch(expected: 5, actual: 0)) { try view.endTransition(commit: true, ifEpoch: 5) }
        #expect(view.transition?.progress == 0.3 && view.transition?.pairs == pairs)
        #expect(Self.state(view) == before && view.epoch == 0)
    }

    @Test("any mutation but a scroll ends the transition back, and says so; a refused one does not")
    func interruption() throws {
        let scrub = ScrubbedSwitch.all[0]
        let view = try scrub.makeView()
        _ = try scrub.begin(view)
        _ = try view.updateTransition(progress: 0.6)
        #expect(throws: LayoutError.itemNotFound("zz")) { try view.select(["zz"], mode: .set) }
        #expect(view.transition != nil)
        let selected = try view.select(["a1"], mode: .set)
        #expect(selected.interruptedTransition?.strategy == "display" && selected.interruptedTransition?.progress == 0.6)
        #expect(selected.interactiveTransition == nil)
        #expect(view.transition == nil)
        #expect(view.strategyName == "flow")
        // A dry run (on a copy) leaves the real transition alone.
        _ = try scrub.begin(view)
        let copy = try view.copy()
        try copy.setWindowMargin(10)
        #expect(copy.transition == nil && view.transition != nil)
    }
}
