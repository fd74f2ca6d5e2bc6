import LayoutEngine
import LayoutFuzzing
import LayoutGeometry
import Testing

/// One runner for every file in `Tests/Fixtures/<strategy>/`. Flow fixtures also run
/// transposed into the other scroll direction. A failure prints the input, the expected and the
/// actual frames, and the list of differences.
@Suite("fixtures")
struct FixtureTests {
    static let flow = Fixture.files(strategy: "flow")
    static let collapsible = Fixture.files(strategy: "collapsible")
    static let ultravisual = Fixture.files(strategy: "ultravisual")
    static let display = Fixture.files(strategy: "display")
    static let waterfall = Fixture.files(strategy: "waterfall")
    static let compositional = Fixture.files(strategy: "compositional")

    @Test("every strategy has its fixtures: 40+ for flow, the semantics vectors + 15 for the others, 10+ for waterfall, 60+ for compositional")
    func fixtureCounts() {
        #expect(Self.flow.count >= 40, "flow: \(Self.flow.count)")
        #expect(Self.collapsible.count >= 17, "collapsible: \(Self.collapsible.count)")
        #expect(Self.ultravisual.count >= 18, "ultravisual: \(Self.ultravisual.count)")
        #expect(Self.display.count >= 17, "display: \(Self.display.count)")
        #expect(Self.waterfall.count >= 10, "waterfall: \(Self.waterfall.count)")
        #expect(Self.compositional.count >= 60, "compositional: \(Self.compositional.count)")
    }

    @Test("flow fixture matches as written", arguments: flow)
    func flowAsWritten(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }

    @Test("flow fixture matches transposed", arguments: flow)
    func flowTransposed(file: String) throws {
        let fixture = try Fixture.load(file)
        guard fixture.transposable else { return }
        try FixtureRunner.run(fixture.transposed)
    }

    /// Every fixture again right to left, against the mirror of what it expects (flow's also
    /// transposed: horizontal, right to left).
    @Test("fixture matches mirrored right to left", arguments: flow + collapsible + ultravisual + display + waterfall + compositional)
    func mirroredRightToLeft(file: String) throws {
        let fixture = try Fixture.load(file)
        guard fixture.mirrorable else { return }
        try FixtureRunner.run(fixture, mirrored: true)
        if fixture.transposable { try FixtureRunner.run(fixture.transposed, mirrored: true) }
    }

    @Test("collapsible fixture matches", arguments: collapsible)
    func collapsibleFixture(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }

    @Test("ultravisual fixture matches", arguments: ultravisual)
    func ultravisualFixture(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }

    @Test("display fixture matches", arguments: display)
    func displayFixture(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }

    @Test("compositional fixture matches", arguments: compositional)
    func compositionalFixture(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }

    @Test("waterfall fixture matches", arguments: waterfall)
    func waterfallFixture(file: String) throws { try FixtureRunner.run(try Fixture.load(file)) }
}

enum FixtureRunner {
    static let tolerance = 1e-6

    /// Runs `fixture` as written or, `mirrored`, laid out right to left against the mirror of
    /// every expectation (the right-to-left fixtures generated from the left-to-right ones).
    static func run(_ fixture: Fixture, mirrored: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var viewport = fixture.viewport
        if mirrored {
            // The mirrored layout's insets are the left-to-right layout's, sides swapped.
            func swapped(_ insets: EdgeInsets) -> EdgeInsets {
                EdgeInsets(top: insets.top, left: insets.right, bottom: insets.bottom, right: insets.left)
            }
            viewport.contentInsets = swapped(viewport.contentInsets)
            viewport.safeAreaInsets = swapped(viewport.safeAreaInsets)
            viewport.layoutMargins = swapped(viewport.layoutMargins)
        }
        let view = try View(
            strategy: fixture.strategy, parameters: fixture.parameters, sections: fixture.sections,
            viewport: viewport, windowMargin: fixture.windowMargin, registry: Fixture.registry, anchor: fixture.anchor,
            layoutDirection: mirrored ? .rtl : fixture.layoutDirection)
        let layout = view.layout
        // A horizontal view right to left takes its offset from its right end already; a vertical
        // one is given the mirror of the left-to-right offset.
        if mirrored, layout.strategy.scrollAxis == .vertical {
            let wanted = Point(x: layout.contentSize.width - viewport.size.width - viewport.offset.x, y: viewport.offset.y)
            if wanted != layout.viewport.offset { try view.scroll(to: wanted) }
        }
        try view.select(fixture.selected, mode: .set)
        var measured: [String]?
        if !fixture.measurements.isEmpty {
            measured = try view.measure(fixture.measurements).context.invalidatedItems
        }
        var width = layout.contentSize.width
        var viewportWidth = layout.viewport.size.width
        func stageExpectation(_ expected: Expectation) -> Expectation {
            defer { (width, viewportWidth) = (layout.contentSize.width, layout.viewport.size.width) }
            guard mirrored else { return expected }
            return expected.mirrored(
                width: layout.contentSize.width, viewportWidth: layout.viewport.size.width, previousWidth: width,
                previousViewportWidth: viewportWidth)
        }
        let stage = mirrored ? "right to left, " : ""
        let input = stageExpectation(fixture.expected)
        report(
            check(view, input, measured: measured), layout: layout, expected: input,
            fixture: fixture, stage: stage + "input", sourceLocation: sourceLocation)

        for (index, step) in fixture.steps.enumerated() {
            var invalidation: Invalidation?
            var target: Point?
            let animated = step.animated
            let anchor = step.anchor
            /// An offset the left-to-right fixture gives, on the screen of this run.
            func screen(_ offset: Point) -> Point {
                mirrored ? Point(x: layout.contentSize.width - layout.viewport.size.width - offset.x, y: offset.y) : offset
            }
            /// A finger the left-to-right fixture gives (viewport coordinates), on this run's
            /// screen: a drag mirrors, and its targets (data positions) stay what they were.
            func finger(_ point: Point) -> Point {
                mirrored ? Point(x: layout.viewport.size.width - point.x, y: point.y) : point
            }
            let before = (epoch: view.epoch, elements: allElements(of: layout), offset: layout.viewport.offset)
            do {
                switch step.action {
                case .select(let ids, let mode):
                    invalidation = try view.select(ids, mode: mode, animated: animated, anchor: anchor)
                case .configure(let changes, let margin):
                    if margin != view.windowMargin { try view.setWindowMargin(margin) }
                    invalidation = try view.configure(changes, animated: animated, anchor: anchor)
                case .scroll(let offset):
                    invalidation = try view.scroll(to: screen(offset))
                case .resize(let size):
                    invalidation = try view.resize(to: size, animated: animated, anchor: anchor)
                case .targetContentOffset(let proposed, let velocity):
                    let velocity = mirrored ? Point(x: -velocity.x, y: velocity.y) : velocity
                    target = layout.targetContentOffset(proposed: screen(proposed), velocity: velocity)
                case .batch(let updates):
                    invalidation = try view.performBatch(updates, animated: animated, anchor: anchor)
                case .measure(let sizes, let supplementary):
                    invalidation = try view.measure(sizes, supplementary: supplementary, animated: animated, anchor: anchor)
                case .replace(let sections):
                    invalidation = try view.replaceData(sections, animated: animated, anchor: anchor)
                case .scrollSection(let id, let offset):
                    invalidation = try refused(step.error, view: view) { () throws(LayoutError) in try view.scrollSection(id, to: offset) }
                case .scrollSectionEnd(let id, let proposed, let velocity):
                    invalidation = try refused(step.error, view: view) { () throws(LayoutError) in
                        try view.scrollSectionEnd(id, proposed: proposed, velocity: velocity)
                    }
                case .scrollTo(let key, let align, let offset):
                    invalidation = try view.scrollTo(key, align: align, offset: offset)
                case .setAnchor(let policy):
                    invalidation = try view.setAnchor(policy)
                case .beginTransition(let strategy, let parameters):
                    let plan = try view.beginTransition(to: strategy, parameters: parameters, registry: Fixture.registry)
                    #expect(plan.elements == view.transition?.pairs.map(\.from), "\(fixture): progress 0 is every pair's from")
                case .updateTransition(let progress):
                    let frame = try view.updateTransition(progress: progress)
                    #expect(frame.elements == view.transition?.pairs.map { $0.attributes(at: progress) }, "\(fixture): the frame is the pairs blended")
                case .endTransition(let commit):
                    invalidation = try view.endTransition(commit: commit)
                case .beginMove(let id):
                    invalidation = try refused(step.error, view: view) { () throws(LayoutError) in try view.beginMove(id) }
                case .updateMove(let point):
                    invalidation = try refused(step.error, view: view) { () throws(LayoutError) in try view.updateMove(to: finger(point)) }
                case .endMove(let commit):
                    invalidation = try refused(step.error, view: view) { () throws(LayoutError) in try view.endMove(commit: commit, animated: animated) }
                case .autoScroll(let point, let seconds, let ticks):
                    invalidation = try autoScroll(view, holding: finger(point), seconds: seconds, ticks: ticks)
                }
                if let error = step.expected.error {
                    Issue.record("\(fixture) \(stage)step \(index + 1): expected \(error), the step succeeded", sourceLocation: sourceLocation)
                }
            } catch {
                var problems = [String]()
                let name = (error as? LayoutError)?.name ?? "\(error)"
                if name != step.expected.error {
                    problems.append("error: expected \(step.expected.error ?? "none"), actual \(name): \(error)")
                }
                if view.epoch != before.epoch || layout.viewport.offset != before.offset || allElements(of: layout) != before.elements {
                    problems.append("a refused step changed the view")
                }
                report(
                    problems, layout: layout, expected: step.expected, fixture: fixture,
                    stage: stage + "step \(index + 1) (\(step.action))", sourceLocation: sourceLocation)
                continue
            }
            let expected = stageExpectation(step.expected)
            report(
                check(view, expected, invalidation: invalidation, target: target) + check(view.transition, against: expected),
                layout: layout, expected: expected, fixture: fixture, stage: stage + "step \(index + 1) (\(step.action))",
                sourceLocation: sourceLocation)
        }
    }

    /// Runs `change`; with `expectedError`, it must be refused with that name and leave the view
    /// (epoch, move, window) as it was.
    static func refused(
        _ expectedError: String?, view: View, _ change: () throws(LayoutError) -> Invalidation
    ) throws -> Invalidation? {
        guard let expectedError else { return try change() }
        let before = (view.epoch, view.moveState, view.snapshot(), allElements(of: view.layout))
        do {
            _ = try change()
            Issue.record("expected \(expectedError), the change was applied")
        } catch {
            #expect(error.name == expectedError)
        }
        #expect(before.0 == view.epoch && before.1 == view.moveState && before.2 == view.snapshot() && before.3 == allElements(of: view.layout), "a refused move step changed the view")
        return nil
    }

    /// A drag held at `point` while the client follows the auto-scroll it is given: each tick
    /// an `updateMove`, then a scroll by the velocity times `seconds`, clamped to the resting
    /// range (as a client scrolls), until the velocity is zero. The last invalidation is the
    /// step's.
    static func autoScroll(_ view: View, holding point: Point, seconds: Double, ticks: Int) throws -> Invalidation? {
        var last = try view.updateMove(to: point)
        for _ in 0..<ticks {
            guard let velocity = last.move?.autoScroll, velocity != .zero else { break }
            let axis = view.layout.strategy.scrollAxis
            let insets = axis.logical(view.viewport.contentInsets)
            let lowest = -insets.mainLeading
            let highest = max(lowest, axis.main(of: view.layout.contentSize) + insets.mainTrailing - axis.main(of: view.viewport.size))
            var offset = view.viewport.offset
            if axis == .vertical {
                offset.y = min(max(offset.y + velocity.y * seconds, lowest), highest)
            } else {
                offset.x = min(max(offset.x + velocity.x * seconds, lowest), highest)
            }
            _ = try view.scroll(to: offset)
            last = try view.updateMove(to: point)
        }
        return last
    }

    /// Every difference between `layout` and `expected`, as readable lines.
    static func check(
        _ view: View, _ expected: Expectation, measured: [String]? = nil, invalidation: Invalidation? = nil,
        target: Point? = nil
    ) -> [String] {
        let layout = view.layout
        var problems = [String]()
        let all = allElements(of: layout)
        if let offset = expected.sectionOffset, invalidation?.section.map({ abs($0.scroll.offset - offset) <= tolerance }) != true {
            problems.append("section offset: expected \(offset), actual \(invalidation?.section.map { "\($0.scroll.offset)" } ?? "none")")
        }
        if let maximum = expected.maximumSectionOffset,
            invalidation?.section.map({ abs($0.scroll.maximumOffset - maximum) <= tolerance }) != true
        {
            problems.append("maximum section offset: expected \(maximum), actual \(invalidation?.section.map { "\($0.scroll.maximumOffset)" } ?? "none")")
        }
        if let size = expected.contentSize, !layout.contentSize.isClose(to: size, tolerance: tolerance) {
            problems.append("content size: expected \(size), actual \(layout.contentSize)")
        }
        if let expectedMeasured = expected.measured, measured != expectedMeasured {
            problems.append("measurements that took effect: expected \(expectedMeasured), actual \(measured ?? [])")
        }
        for (key, element) in expected.frames.sorted(by: { $0.key < $1.key }) {
            guard let actual = all[key] else {
                problems.append("\(key): expected \(element.frame), actual missing")
                continue
            }
            if !actual.frame.isClose(to: element.frame, tolerance: tolerance) {
                problems.append("\(key): expected \(element.frame), actual \(actual.frame)")
            }
            if let zIndex = element.zIndex, zIndex != actual.zIndex {
                problems.append("\(key): expected zIndex \(zIndex), actual \(actual.zIndex)")
            }
            if let alpha = element.alpha, abs(alpha - actual.alpha) > tolerance {
                problems.append("\(key): expected alpha \(alpha), actual \(actual.alpha)")
            }
            for (name, value) in element.effects ?? [:] {
                guard let actualValue = actual.effects[name], abs(actualValue - value) <= tolerance else {
                    problems.append("\(key): expected effect \(name) \(value), actual \(actual.effects[name] as Any)")
                    continue
                }
            }
        }
        if expected.complete && !expected.frames.isEmpty || expected.complete && expected.contentSize != nil {
            for key in all.keys.sorted() where expected.frames[key] == nil {
                problems.append("\(key): not expected, actual \(all[key]!.frame)")
            }
        }
        let queried = layout.elements(in: everywhere(layout.contentSize))
        if Set(queried.map(\.key)) != Set(all.keys) || queried.count != all.count {
            problems.append("elements(in: everything) differs from per-element lookup:\n\(listing(all))")
        }
        for attributes in queried where all[attributes.key] != attributes {
            problems.append("\(attributes.key): elements(in:) and attributes(for:) disagree")
        }
        for query in expected.queries {
            let actual = Set(layout.elements(in: query.rect).map(\.key))
            if actual != query.keys {
                problems.append("query \(query.rect): expected \(query.keys.sorted()), actual \(actual.sorted())")
            }
        }
        // The visible window must agree with brute force too, not only the whole content.
        let window = layout.viewport.bounds
        let windowed = Set(layout.elements(in: window).map(\.key))
        let brute = Set(bruteForce(all, in: window).keys)
        if windowed != brute {
            problems.append("window query \(window): expected \(brute.sorted()), actual \(windowed.sorted())")
        }
        if let offset = expected.contentOffset {
            let actual = invalidation?.contentOffset ?? layout.viewport.offset
            if abs(actual.x - offset.x) > tolerance || abs(actual.y - offset.y) > tolerance {
                problems.append("content offset: expected \(offset), actual \(actual)")
            }
            if actual != layout.viewport.offset {
                problems.append("the layout's offset \(layout.viewport.offset) is not the reported \(actual)")
            }
        }
        if let anchor = expected.anchor, invalidation?.anchor != anchor {
            problems.append("anchor: expected \(anchor as Any), actual \(invalidation?.anchor as Any)")
        }
        if let delta = expected.delta {
            let entered = Set(invalidation?.entered.map(\.key) ?? [])
            let changed = Set(invalidation?.changed.map(\.key) ?? [])
            let left = Set(invalidation?.left ?? [])
            if let keys = delta.entered, keys != entered { problems.append("entered: expected \(keys.sorted()), actual \(entered.sorted())") }
            if let keys = delta.changed, keys != changed { problems.append("changed: expected \(keys.sorted()), actual \(changed.sorted())") }
            if let keys = delta.left, keys != left { problems.append("left: expected \(keys.sorted()), actual \(left.sorted())") }
            if let adjustment = delta.contentOffsetAdjustment, invalidation?.context.contentOffsetAdjustment != adjustment {
                problems.append(
                    "content offset adjustment: expected \(adjustment), actual \(invalidation?.context.contentOffsetAdjustment as Any)")
            }
            if let adjustment = delta.contentSizeAdjustment, invalidation?.context.contentSizeAdjustment != adjustment {
                problems.append(
                    "content size adjustment: expected \(adjustment), actual \(invalidation?.context.contentSizeAdjustment as Any)")
            }
        }
        if let expectedTarget = expected.target {
            if let target, abs(target.x - expectedTarget.x) <= tolerance, abs(target.y - expectedTarget.y) <= tolerance {
            } else {
                problems.append("target content offset: expected \(expectedTarget), actual \(target as Any)")
            }
        }
        if let transition = expected.transition {
            problems += check(invalidation?.transition, against: transition)
        }
        if let policy = expected.anchorPolicy, invalidation?.anchorPolicy != policy {
            problems.append("anchor policy: expected \(policy as Any), actual \(invalidation?.anchorPolicy as Any)")
        }
        if let ids = expected.needsMeasure, invalidation?.needsMeasure != ids {
            problems.append("needsMeasure: expected \(ids), actual \(invalidation?.needsMeasure as Any)")
        }
        for hit in expected.hits {
            let actual = layout.hitTest(hit.point, kinds: hit.kinds)?.key
            if actual != hit.key { problems.append("hitTest \(hit.point): expected \(hit.key as Any), actual \(actual as Any)") }
        }
        for entry in expected.neighbors {
            do {
                let actual = try layout.neighbor(of: entry.id, direction: entry.direction)?.key
                if entry.error != nil || actual != entry.key {
                    problems.append(
                        "neighbor \(entry.direction) of \(entry.id): expected \(entry.error ?? "\(entry.key as Any)"), actual \(actual as Any)")
                }
            } catch {
                if error.name != entry.error {
                    problems.append("neighbor \(entry.direction) of \(entry.id): expected \(entry.key as Any), actual \(error.name)")
                }
            }
        }
        for entry in expected.prefetch {
            let actual = layout.prefetch(window: view.window, velocity: entry.velocity, horizon: entry.horizon, maximum: .max)
            if actual != entry.ids { problems.append("prefetch at \(entry.velocity): expected \(entry.ids), actual \(actual)") }
        }
        if let moveTarget = expected.moveTarget, invalidation?.move?.target != moveTarget {
            problems.append("move target: expected \(moveTarget), actual \(invalidation?.move?.target as Any)")
        }
        if let autoScroll = expected.autoScroll, invalidation?.move?.autoScroll != autoScroll {
            problems.append("auto-scroll: expected \(autoScroll), actual \(invalidation?.move?.autoScroll as Any)")
        }
        if let moveEnded = expected.moveEnded, (invalidation?.moveEnded?.reason.rawValue ?? "") != moveEnded {
            problems.append("move ended: expected \(moveEnded), actual \(invalidation?.moveEnded as Any)")
        }
        if let moving = expected.moving, (invalidation?.move != nil) != moving {
            problems.append("moving: expected \(moving), actual \(invalidation?.move as Any)")
        }
        if let items = expected.movingItems, invalidation?.move?.items != items {
            problems.append("moving items: expected \(items), actual \(invalidation?.move?.items as Any)")
        }
        if let items = expected.movedItems, invalidation?.changes?.movedItems != items {
            problems.append("moved items: expected \(items), actual \(invalidation?.changes?.movedItems as Any)")
        }
        return problems
    }

    /// The interactive transition in progress against `interpolated` and `pairs`.
    static func check(_ transition: InteractiveTransition?, against expected: Expectation) -> [String] {
        guard !expected.interpolated.isEmpty || expected.pairs != nil else { return [] }
        guard let transition else { return ["interactive transition: expected one, actual none"] }
        var problems = [String]()
        if let pairs = expected.pairs, pairs != transition.pairs.count {
            problems.append("interactive transition: expected \(pairs) pairs, actual \(transition.pairs.count): \(transition.pairs.map(\.key))")
        }
        let now = Dictionary(uniqueKeysWithValues: transition.pairs.map { ($0.key, $0.attributes(at: transition.progress)) })
        for (key, element) in expected.interpolated.sorted(by: { $0.key < $1.key }) {
            guard let actual = now[key] else {
                problems.append("\(key) at \(transition.progress): expected \(element.frame), actual no pair")
                continue
            }
            if !actual.frame.isClose(to: element.frame, tolerance: tolerance) {
                problems.append("\(key) at \(transition.progress): expected \(element.frame), actual \(actual.frame)")
            }
            if let alpha = element.alpha, abs(alpha - actual.alpha) > tolerance {
                problems.append("\(key) at \(transition.progress): expected alpha \(alpha), actual \(actual.alpha)")
            }
        }
        return problems
    }

    static func check(_ actual: Transition?, against expected: Expectation.ExpectedTransition) -> [String] {
        guard let actual else { return ["transition: expected one, actual none"] }
        var problems = [String]()
        if abs(actual.duration - expected.duration) > tolerance {
            problems.append("transition duration: expected \(expected.duration), actual \(actual.duration)")
        }
        var remaining = actual.segments
        for segment in expected.segments {
            let match = remaining.firstIndex { candidate in
                candidate.key == segment.key && candidate.from.frame.isClose(to: segment.from, tolerance: tolerance)
                    && candidate.to.frame.isClose(to: segment.to, tolerance: tolerance)
                    && abs(candidate.delay - segment.delay) <= tolerance
                    && abs(candidate.duration - segment.duration) <= tolerance
            }
            if let match {
                remaining.remove(at: match)
            } else {
                problems.append(
                    "transition: missing \(segment.key) \(segment.from) → \(segment.to) delay \(segment.delay) duration \(segment.duration)")
            }
        }
        if expected.complete {
            for segment in remaining {
                problems.append(
                    "transition: unexpected \(segment.key) \(segment.from.frame) → \(segment.to.frame) delay \(segment.delay) duration \(segment.duration)")
            }
        }
        return problems
    }

    static func report(
        _ problems: [String], layout: Layout, expected: Expectation, fixture: Fixture, stage: String,
        sourceLocation: SourceLocation
    ) {
        guard !problems.isEmpty else { return }
        Issue.record(
            Comment(rawValue: """
                \(fixture) at \(stage)
                INPUT: strategy \(fixture.strategy) params \(fixture.parameters.sorted { $0.key < $1.key })
                       viewport \(fixture.viewport.size) offset \(fixture.viewport.offset) insets \(fixture.viewport.contentInsets)
                       sections \(fixture.sections.map { "\($0.id): \($0.items.count) items" }) selected \(fixture.selected)
                EXPECTED: content \(expected.contentSize.map { "\($0)" } ?? "-")
                \(expected.frames.keys.sorted().map { "  \($0) \(expected.frames[$0]!.frame)" }.joined(separator: "\n"))
                ACTUAL: content \(layout.contentSize) offset \(layout.viewport.offset)
                \(listing(allElements(of: layout)))
                PROBLEMS:
                \(problems.map { "  " + $0 }.joined(separator: "\n"))
                """), sourceLocation: sourceLocation)
    }
}
