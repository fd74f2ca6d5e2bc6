import LayoutEngine
import LayoutGeometry

/// The properties incremental invalidation must keep, as functions that return what broke (one
/// sentence per failure) instead of recording it: the property tests record the sentences, the
/// fuzz target traps on them.
public enum ViewChecks {
    /// Runs `steps` drawn mutations against a fresh view of `strategy`, one in eight of them
    /// invalid and about one in ten a gesture's step (a drag, or a scrubbed transition that
    /// other mutations then interleave with), and checks after every one that
    /// - a refused mutation changed nothing at all,
    /// - an accepted one did what it says (`effect`),
    /// - a client mirror fed only the deltas equals a layout recomputed from scratch (`mirror`).
    ///
    /// Stops at the first failing step (later steps would only repeat it) or when `exhausted`
    /// says the source of numbers ran dry.
    ///
    /// - Parameter limits: the view's; a small `maximumWindowElements` checks that windows cut
    ///   to it stay exact.
    public static func run<Source>(
        _ fuzzer: inout ViewFuzzer<Source>, strategy: String, steps: Int, registry: StrategyRegistry = .builtIn,
        limits: ViewLimits = ViewLimits(), exhausted: (ViewFuzzer<Source>) -> Bool = { _ in false }
    ) -> [String] {
        let view: View
        do {
            let sections = fuzzer.sections()
            // A compositional view starts from a drawn description (its default is a plain list).
            let parameters = strategy == "compositional" ? fuzzer.compositionalParameters(sectionIDs: sections.map(\.id)) : [:]
            view = try View(
                strategy: strategy, parameters: parameters, sections: sections, viewport: fuzzer.viewport(),
                windowMargin: fuzzer.pick([0, 100]), limits: limits, registry: registry)
        } catch {
            return ["a valid initial view was refused: \(error.name) \(error.message)"]
        }
        var mirror = Dictionary(uniqueKeysWithValues: view.snapshot().map { ($0.key, $0) })
        var history = [String]()
        for step in 0..<steps where !exhausted(fuzzer) {
            if fuzzer.chance(8) {
                let mutation = fuzzer.invalidMutation(for: view)
                let before = ViewDump(view)
                do {
                    try mutation.apply(to: view, registry: registry)
                    return ["step \(step): \(mutation) was accepted"]
                } catch {
                    if ViewDump(view) != before { return ["step \(step): refused \(mutation) changed the view (\(error.name))"] }
                }
                continue
            }
            var drawn: ViewMutation?
            if fuzzer.chance(10) {
                drawn = fuzzer.gesture(for: view)
                if drawn == nil {
                    history.append("scrub")
                    let failures = scrub(&fuzzer, view: view, mirror: mirror, registry: registry)
                    if !failures.isEmpty {
                        return failures.map { "step \(step): \($0)" } + ["last mutations:\n  " + history.suffix(5).joined(separator: "\n  ")]
                    }
                    continue
                }
            }
            let mutation = drawn ?? fuzzer.mutation(for: view, registry: registry)
            history.append(mutation.description)
            let epoch = view.epoch
            let windowBefore = view.snapshot()
            // A dry run of the same mutation on a copy must report exactly what the real one does.
            let dryRun = fuzzer.chance(25) ? (try? view.copy()).flatMap { try? mutation.apply(to: $0, registry: registry) } : nil
            let invalidation: Invalidation
            do {
                invalidation = try mutation.apply(to: view, registry: registry)
            } catch {
                return ["step \(step): valid \(mutation) refused: \(error.name) \(error.message)"]
            }
            var failures = effect(of: mutation, on: view, invalidation: invalidation)
            failures += fullDiff(invalidation, before: windowBefore, after: view.snapshot())
            if let dryRun, dryRun != invalidation { failures.append("the dry run reported \(dryRun), the mutation \(invalidation)") }
            failures += self.mirror(invalidation, mirror: &mirror, view: view, epoch: epoch, registry: registry)
            if !failures.isEmpty {
                return failures.map { "step \(step): \($0)" } + ["last mutations:\n  " + history.suffix(5).joined(separator: "\n  ")]
            }
        }
        return []
    }

    /// A scrubbed transition's steps that are not mutations: `beginTransition` (at rest, to a
    /// drawn target) or `updateTransition` (during one, to a drawn progress). Neither may change
    /// the view; the plan's `from` side of every element the client holds is what it holds (the
    /// mirror), progress 0 is every pair's `from`, and a frame at p is every pair blended at p.
    static func scrub<Source>(
        _ fuzzer: inout ViewFuzzer<Source>, view: View, mirror: [ElementKey: LayoutAttributes], registry: StrategyRegistry
    ) -> [String] {
        let before = ViewDump(view)
        var failures = [String]()
        if let transition = view.transition {
            let progress = fuzzer.pick([0, 0.25, 0.5, 1, Double(fuzzer.int(0...1000)) / 1000])
            do {
                let frame = try view.updateTransition(progress: progress)
                if frame.elements != transition.pairs.map({ $0.attributes(at: progress) }) {
                    failures.append("updateTransition(\(progress)): the frame is not the pairs blended")
                }
            } catch {
                failures.append("updateTransition(\(progress)) refused: \(error.name) \(error.message)")
            }
        } else {
            guard view.moveState.activeMove == nil else { return [] }
            let target = fuzzer.transitionTarget(for: view, registry: registry)
            do {
                let plan = try view.beginTransition(to: target.strategy, parameters: target.parameters, registry: registry)
                if plan.elements != plan.pairs.map(\.from) { failures.append("beginTransition: progress 0 is not every pair's from") }
                for pair in plan.pairs {
                    if let held = mirror[pair.key], held != pair.from {
                        failures.append("beginTransition: \(pair.key) starts at \(pair.from.frame), the client holds \(held.frame)")
                    }
                }
            } catch {
                failures.append("beginTransition(\(target.strategy ?? "params"), \(target.parameters)) refused: \(error.name) \(error.message)")
            }
        }
        if ViewDump(view) != before { failures.append("scrubbing changed the view") }
        return failures
    }

    /// The mutation did what it says, beyond keeping the mirror consistent.
    public static func effect(of mutation: ViewMutation, on view: View, invalidation: Invalidation) -> [String] {
        var failures = [String]()
        func expect(_ condition: Bool, _ detail: @autoclosure () -> String = "") {
            if !condition { failures.append("\(mutation) did not take effect \(detail())") }
        }
        switch mutation {
        case .scroll(let offset, _):
            var wanted = offset
            if view.moveState.activeMove != nil, view.layoutDirection == .rtl, view.layout.strategy.scrollAxis == .horizontal {
                // The drag's target followed the scroll and the content's width changed; a
                // right-to-left horizontal offset counts from the content's far end, so it moves
                // by that change while nothing on screen does.
                wanted.x += invalidation.context.contentSizeAdjustment.width
                expect(abs(view.viewport.offset.x - wanted.x) <= 1e-9 * max(1, abs(wanted.x)) && view.viewport.offset.y == wanted.y,
                    "offset \(view.viewport.offset), wanted \(wanted) after the drag's width change")
            } else {
                expect(view.viewport.offset == offset, "offset \(view.viewport.offset)")
            }
        case .resize(let size, _):
            expect(view.viewport.size == size, "size \(view.viewport.size)")
        case .margin(let margin):
            expect(view.windowMargin == margin)
        case .configure(let changes, _):
            for (name, value) in changes { expect(view.parameters.values[name] == value, name) }
        case .switchStrategy(let name, _):
            expect(view.strategyName == name)
            expect(view.layout.strategy.descriptor.name == name)
        case .scrollEnd:
            expect(invalidation.targetContentOffset == view.viewport.offset, "target \(String(describing: invalidation.targetContentOffset))")
        case .scrollTo(let key, _, _):
            expect(invalidation.targetContentOffset == view.viewport.offset && invalidation.anchor == key.id, "target \(String(describing: invalidation.targetContentOffset))")
            expect(invalidation.needsMeasure != nil, "no needsMeasure")
        case .setLayoutDirection(let direction, _):
            expect(view.layoutDirection == direction && (view.layout.strategy is MirroredStrategy) == (direction == .rtl), "direction \(view.layoutDirection)")
        case .setAnchor(let policy):
            expect(view.anchorPolicy == policy && view.scrollTarget == nil, "policy \(view.anchorPolicy)")
        case .beginMove(let id, _):
            expect(view.moveState.activeMove.map { $0.id == id && $0.items.contains(id) } ?? false, "move \(view.moveState)")
        case .updateMove(let point):
            expect(view.moveState.activeMove?.point == point, "move \(view.moveState)")
        case .endMove(let commit):
            expect(view.moveState == .idle && invalidation.moveEnded?.reason == (commit ? .committed : .cancelled), "move \(view.moveState)")
        case .endTransition:
            expect(view.transition == nil, "a transition is still in progress")
        case .scrollSection(let id, let offset):
            let now = try? view.layout.sectionScroll(ofSection: id).scroll
            expect(now?.offset == offset && invalidation.section?.scroll == now, "section \(id) at \(String(describing: now))")
        case .measureSupplementary(let sizes, _):
            // The elements are still there (a measurement never removes one).
            for (key, _) in sizes { expect(view.layout.attributes(for: key) != nil, "\(key) is gone") }
        case .scrollSectionEnd(let id, _, _):
            let now = try? view.layout.sectionScroll(ofSection: id).scroll
            expect(
                now != nil && invalidation.section?.scroll == now && now!.offset >= 0 && now!.offset <= now!.maximumOffset,
                "section \(id) at \(String(describing: now))")
        case .select(let ids, let mode, _):
            switch mode {
            case .add: expect(ids.allSatisfy(view.model.isSelected))
            case .remove: expect(!ids.contains(where: view.model.isSelected))
            case .set: expect(view.model.selection == Set(ids))
            case .toggle: break
            }
        case .measure(let sizes, _):
            var last = [String: Size]()
            for (id, size) in sizes { last[id] = size }
            for (id, size) in last {
                guard let path = view.model.indexPath(ofItem: id) else {
                    expect(false, "\(id) is gone")
                    continue
                }
                let stored = view.model.sections[path.section].baseSize(ofItem: path.item, default: view.layout.strategy.defaultItemSize)
                expect(stored.isClose(to: size, tolerance: 0.5 + 1e-9), "\(id) is \(stored)")
            }
        case .replace(let sections, _):
            expect(view.model.specs.map(\.id) == sections.map(\.id), "sections")
            expect(view.model.sections.map { Array($0.itemIDs) } == sections.map { $0.items.map(\.id) }, "items")
        case .batch(let updates, _), .anchoredBatch(let updates, _):
            for update in updates {
                switch update {
                case .deleteItems(let ids): expect(ids.allSatisfy { view.model.indexPath(ofItem: $0) == nil }, "deleted items remain")
                case .insertItems(let items, _, _): expect(items.allSatisfy { view.model.indexPath(ofItem: $0.id) != nil }, "inserted items missing")
                case .deleteSections(let ids): expect(ids.allSatisfy { view.model.sectionIndex(of: $0) == nil }, "deleted sections remain")
                case .insertSections(let sections, _): expect(sections.allSatisfy { view.model.sectionIndex(of: $0.id) != nil }, "inserted sections missing")
                default: break
                }
            }
        }
        return failures
    }

    /// The delta equals the full diff of the window before and after (both fresh queries), in
    /// the same order: entered and changed by key, left sorted. The engine takes shortcuts (a
    /// scroll's bands, the window recorded by the last mutation); clients and the daemon's
    /// transcripts see exactly what the full diff gives.
    public static func fullDiff(_ invalidation: Invalidation, before: [LayoutAttributes], after: [LayoutAttributes]) -> [String] {
        var held = Dictionary(uniqueKeysWithValues: before.map { ($0.key, $0) })
        var entered = [LayoutAttributes]()
        var changed = [LayoutAttributes]()
        for attributes in after {
            if let old = held.removeValue(forKey: attributes.key) {
                if old != attributes { changed.append(attributes) }
            } else {
                entered.append(attributes)
            }
        }
        var failures = [String]()
        if invalidation.entered != entered { failures.append("entered \(invalidation.entered.map(\.key)), full diff \(entered.map(\.key))") }
        if invalidation.changed != changed { failures.append("changed \(invalidation.changed.map(\.key)), full diff \(changed.map(\.key))") }
        let left = held.keys.sorted()
        if invalidation.left != left { failures.append("left \(invalidation.left), full diff \(left)") }
        return failures
    }

    /// During an interactive move the layout from scratch lays the moving items out in their
    /// slots (the model holds the unit at its target, consecutive): each is expected instead
    /// where the finger is, its slot's size centred on the viewport offset plus the finger, in
    /// unit order (the view's zIndex for the first, then one more per item). Returns those
    /// attributes and what differs from them.
    static func dragged(_ active: ActiveMove, view: View, fresh: Layout) -> (drawn: [LayoutAttributes], failures: [String]) {
        var failures = [String]()
        var drawnUnit = [LayoutAttributes]()
        let center = Point(x: view.viewport.offset.x + active.point.x, y: view.viewport.offset.y + active.point.y)
        var base: Int?
        for (rank, id) in active.items.enumerated() {
            guard let slot = fresh.attributes(forItem: id) else { return (drawnUnit, failures + ["the moving item \(id) is not in the model"]) }
            let place = ItemIndexPath(section: active.target.section, item: active.target.item + rank)
            if slot.indexPath != place { failures.append("the moving item \(id) is at \(slot.indexPath as Any), its target \(place)") }
            guard let drawn = view.layout.attributes(forItem: id) else { return (drawnUnit, failures + ["the moving item \(id) has no attributes"]) }
            let zIndex = base.map { $0 + rank } ?? drawn.zIndex
            base = base ?? drawn.zIndex
            var want = slot
            want.frame = Rect(x: center.x - slot.frame.width / 2, y: center.y - slot.frame.height / 2, width: slot.frame.width, height: slot.frame.height)
            want.zIndex = zIndex
            if drawn != want { failures.append("the moving item \(id) is drawn \(drawn), expected \(want)") }
            drawnUnit.append(want)
        }
        return (drawnUnit, failures)
    }

    /// Applies `invalidation` to `mirror` and compares with a layout built from scratch.
    public static func mirror(
        _ invalidation: Invalidation, mirror: inout [ElementKey: LayoutAttributes], view: View, epoch: Int,
        registry: StrategyRegistry = .builtIn
    ) -> [String] {
        var failures = [String]()
        if invalidation.epoch != epoch + 1 { failures.append("epoch \(invalidation.epoch) after \(epoch)") }
        if invalidation.window != view.window { failures.append("window \(invalidation.window) is not the view's \(view.window)") }
        if invalidation.contentOffset != view.viewport.offset { failures.append("offset \(invalidation.contentOffset) vs \(view.viewport.offset)") }
        for key in invalidation.left where mirror.removeValue(forKey: key) == nil { failures.append("\(key) left but was not held") }
        for attributes in invalidation.entered where mirror.updateValue(attributes, forKey: attributes.key) != nil {
            failures.append("\(attributes.key) entered but was held")
        }
        for attributes in invalidation.changed where mirror.updateValue(attributes, forKey: attributes.key) == nil {
            failures.append("\(attributes.key) changed but was not held")
        }
        guard
            let fresh = try? Layout(
                strategy: MirroredStrategy.wrapping(
                    registry.makeStrategy(named: view.strategyName, parameters: view.parameters.values), in: view.layoutDirection),
                model: view.model, viewport: view.viewport)
        else {
            return failures + ["the view's own state does not rebuild"]
        }
        // Section offsets are scroll state, as the viewport's offset is: carried over.
        for (index, section) in view.model.sections.enumerated() {
            if let scroll = try? view.layout.sectionScroll(ofSection: section.id) { fresh.scrollSection(index, to: scroll.scroll.offset) }
        }
        // So are supplementary measurements (the model holds the items' own).
        _ = fresh.measureSupplementary(view.layout.strategy.measuredSupplementaries, tolerance: 0)
        let maximum = view.limits.maximumWindowElements
        // The window from scratch, the moving unit drawn under the finger (where that meets the
        // window) instead of in its slots, then cut as the view cuts it.
        var elements = fresh.elements(in: view.window)
        var unit = Set<String>()
        if let active = view.moveState.activeMove {
            let (drawn, problems) = dragged(active, view: view, fresh: fresh)
            failures += problems
            unit = Set(active.items)
            elements.removeAll { $0.kind == .cell && unit.contains($0.id) }
            elements += drawn.filter { $0.frame.intersects(view.window) }
            if let lowest = drawn.first?.zIndex, let above = elements.first(where: { !($0.kind == .cell && unit.contains($0.id)) && $0.zIndex >= lowest }) {
                failures.append("the moving item's zIndex \(lowest) is not above \(above.key)'s \(above.zIndex)")
            }
        }
        let contents = Layout.windowContents(elements, viewport: view.viewport.bounds, axis: fresh.strategy.scrollAxis, maximum: maximum)
        let expected = Dictionary(uniqueKeysWithValues: contents.elements.map { ($0.key, $0) })
        if invalidation.windowTruncated != contents.isTruncated {
            failures.append("windowTruncated \(invalidation.windowTruncated), from scratch \(contents.isTruncated)")
        }
        if contents.isTruncated != (elements.count > maximum) || contents.elements.count > maximum {
            failures.append("\(contents.elements.count) elements kept, truncated \(contents.isTruncated), maximum \(maximum)")
        }
        if mirror != expected {
            let missing = Set(expected.keys).subtracting(mirror.keys).sorted().prefix(5)
            let extra = Set(mirror.keys).subtracting(expected.keys).sorted().prefix(5)
            let wrong = mirror.keys.filter { expected[$0] != nil && expected[$0] != mirror[$0] }.sorted().prefix(5)
            failures.append(
                "mirror differs: missing \(Array(missing)) extra \(Array(extra)) wrong \(wrong.map { "\($0): \(mirror[$0]!.frame) vs \(expected[$0]!.frame)" })")
        }
        if fresh.contentSize != view.layout.contentSize || invalidation.contentSize != fresh.contentSize {
            failures.append("content size \(view.layout.contentSize), reported \(invalidation.contentSize), from scratch \(fresh.contentSize)")
        }
        if let transition = invalidation.transition {
            // The segments cover the old and the new window, each cut to the maximum.
            if transition.segments.count > 2 * maximum {
                failures.append("\(transition.segments.count) transition segments, more than twice the maximum \(maximum)")
            }
            // Each element's last segment ends where the element now is (or fades out where it was).
            var last = [ElementKey: TransitionSegment]()
            for segment in transition.segments { last[segment.key] = segment }
            for (key, segment) in last {
                // The moving item ends under the finger, which the layout from scratch does not know.
                let moving = view.moveState.activeMove.map { key.kind == .cell && $0.items.contains(key.id) } ?? false
                if let now = moving ? view.layout.attributes(for: key) : fresh.attributes(for: key), segment.to != now, segment.to.alpha != 0 {
                    failures.append("transition of \(key) ends at \(segment.to.frame), the element is at \(now.frame)")
                }
            }
        }
        return failures
    }
}
