import LayoutEngine
import LayoutGeometry

/// One mutation of a view, drawn at random; `apply` runs it.
public enum ViewMutation: CustomStringConvertible {
    case replace([SectionSpec], animated: Bool)
    case batch([BatchUpdate], animated: Bool)
    case measure([(id: String, size: Size)], animated: Bool)
    /// Measured sizes of supplementary elements (compositional's estimated boundary items and
    /// badges self-size; every other element keeps its size).
    case measureSupplementary([(key: ElementKey, size: Size)], animated: Bool)
    case select([String], SelectionMode, animated: Bool)
    case scroll(Point, ifEpoch: Int?)
    case scrollEnd(Point, velocity: Point)
    case resize(Size, animated: Bool)
    case margin(Double)
    case configure([String: ParameterValue], animated: Bool)
    case switchStrategy(String, animated: Bool)
    case scrollTo(ElementKey, ScrollAlignment, offset: Double)
    case setAnchor(AnchorPolicy)
    /// A batch with the request's own anchor policy.
    case anchoredBatch([BatchUpdate], anchor: AnchorPolicy)
    case setLayoutDirection(LayoutDirection, animated: Bool)
    /// The gestures' steps that are mutations (`ViewFuzzer.gesture(for:)` draws them only when
    /// valid): a drag's three, and the end of a scrubbed transition.
    case beginMove(String, at: Point?)
    case updateMove(Point)
    case endMove(commit: Bool)
    case endTransition(commit: Bool)
    /// An orthogonal section's own scroll (compositional), and the end of one.
    case scrollSection(String, Double)
    case scrollSectionEnd(String, proposed: Double?, velocity: Double)

    /// - Parameter registry: where `switchStrategy` finds its strategy (the one the view was
    ///   created from).
    @discardableResult
    public func apply(to view: View, registry: StrategyRegistry = .builtIn) throws(LayoutError) -> Invalidation {
        switch self {
        case .replace(let sections, let animated): try view.replaceData(sections, animated: animated)
        case .batch(let updates, let animated): try view.performBatch(updates, animated: animated)
        case .measure(let sizes, let animated): try view.measure(sizes, animated: animated)
        case .measureSupplementary(let sizes, let animated): try view.measure([], supplementary: sizes, animated: animated)
        case .select(let ids, let mode, let animated): try view.select(ids, mode: mode, animated: animated)
        case .scroll(let offset, let ifEpoch): try view.scroll(to: offset, ifEpoch: ifEpoch)
        case .scrollEnd(let proposed, let velocity): try view.scrollEnd(proposed: proposed, velocity: velocity)
        case .resize(let size, let animated): try view.resize(to: size, animated: animated)
        case .margin(let margin): try view.setWindowMargin(margin)
        case .configure(let changes, let animated): try view.configure(changes, animated: animated)
        case .switchStrategy(let name, let animated): try view.switchStrategy(to: name, animated: animated, registry: registry)
        case .scrollTo(let key, let align, let offset): try view.scrollTo(key, align: align, offset: offset)
        case .setAnchor(let policy): try view.setAnchor(policy)
        case .anchoredBatch(let updates, let anchor): try view.performBatch(updates, anchor: anchor)
        case .setLayoutDirection(let direction, let animated): try view.setLayoutDirection(direction, animated: animated)
        case .beginMove(let id, let point): try view.beginMove(id, at: point)
        case .updateMove(let point): try view.updateMove(to: point)
        case .endMove(let commit): try view.endMove(commit: commit)
        case .endTransition(let commit): try view.endTransition(commit: commit)
        case .scrollSection(let id, let offset): try view.scrollSection(id, to: offset)
        case .scrollSectionEnd(let id, let proposed, let velocity): try view.scrollSectionEnd(id, proposed: proposed, velocity: velocity)
        }
    }

    public var description: String {
        switch self {
        case .replace(let sections, let animated): "replace(\(sections.map { "\($0.id)[\($0.items.count)]" }), animated: \(animated))"
        case .batch(let updates, let animated): "batch(\(updates), animated: \(animated))"
        case .measure(let sizes, let animated): "measure(\(sizes.map { "\($0.id)=\($0.size)" }), animated: \(animated))"
        case .measureSupplementary(let sizes, let animated):
            "measureSupplementary(\(sizes.map { "\($0.key)=\($0.size)" }), animated: \(animated))"
        case .select(let ids, let mode, let animated): "select(\(ids), \(mode), animated: \(animated))"
        case .scroll(let offset, let ifEpoch): "scroll(\(offset), ifEpoch: \(ifEpoch.map(String.init) ?? "-"))"
        case .scrollEnd(let proposed, let velocity): "scrollEnd(\(proposed), velocity: \(velocity))"
        case .resize(let size, let animated): "resize(\(size), animated: \(animated))"
        case .margin(let margin): "margin(\(margin))"
        case .configure(let changes, let animated): "configure(\(changes.sorted { $0.key < $1.key }), animated: \(animated))"
        case .switchStrategy(let name, let animated): "switchStrategy(\(name), animated: \(animated))"
        case .scrollTo(let key, let align, let offset): "scrollTo(\(key), \(align), offset: \(offset))"
        case .setAnchor(let policy): "setAnchor(\(policy))"
        case .anchoredBatch(let updates, let anchor): "batch(\(updates), anchor: \(anchor))"
        case .setLayoutDirection(let direction, let animated): "setLayoutDirection(\(direction), animated: \(animated))"
        case .beginMove(let id, let point): "beginMove(\(id), at: \(point.map { "\($0)" } ?? "-"))"
        case .updateMove(let point): "updateMove(\(point))"
        case .endMove(let commit): "endMove(commit: \(commit))"
        case .endTransition(let commit): "endTransition(commit: \(commit))"
        case .scrollSection(let id, let offset): "scrollSection(\(id), \(offset))"
        case .scrollSectionEnd(let id, let proposed, let velocity):
            "scrollSectionEnd(\(id), proposed: \(proposed.map { "\($0)" } ?? "-"), velocity: \(velocity))"
        }
    }
}

/// Draws random models and random (mostly valid) mutations from a source of numbers: a seeded
/// generator in the property tests, the fuzzer's bytes (`FuzzBytes`) in the fuzz target.
public struct ViewFuzzer<Source: RandomNumberGenerator> {
    public var random: Source
    private var nextID = 0

    public init(source: Source) { random = source }

    public mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    public mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }

    public mutating func pick<T>(_ options: [T]) -> T { options[int(0...options.count - 1)] }

    public mutating func half(_ range: ClosedRange<Int>) -> Double { Double(int(range)) / 2 }

    public mutating func freshID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)\(nextID)"
    }

    public mutating func item() -> ItemSpec {
        var item = ItemSpec(id: freshID("i"))
        switch int(0...3) {
        case 0: break
        case 1: item.size = Size(width: half(20...400), height: half(20...300))
        case 2: item.estimatedSize = Size(width: half(20...300), height: half(20...200))
        default: item.size = Size(width: 80, height: 60)
        }
        if chance(15) { item.selectedSize = Size(width: half(20...400), height: half(40...500)) }
        return item
    }

    public mutating func section() -> SectionSpec {
        var section = SectionSpec(id: freshID("s"), items: (0..<pick([0, 1, 3, 8, 20])).map { _ in item() })
        if chance(20) { section.headerSize = Size(width: 0, height: half(0...80)) }
        return section
    }

    public mutating func sections() -> [SectionSpec] { (0..<int(1...4)).map { _ in section() } }

    public mutating func viewport() -> Viewport {
        var viewport = Viewport(size: Size(width: half(300...900), height: half(300...1400)))
        if chance(20) {
            viewport.safeAreaInsets = EdgeInsets(top: half(0...60), left: half(0...60), bottom: half(0...60), right: half(0...60))
            viewport.layoutMargins = EdgeInsets(top: half(0...40), left: half(0...60), bottom: half(0...40), right: half(0...60))
            viewport.readableWidth = chance(50) ? half(300...700) : nil
        }
        return viewport
    }

    // MARK: Mutations

    /// - Parameter registry: the strategies a switch may pick from (the view's own registry).
    public mutating func mutation(for view: View, registry: StrategyRegistry = .builtIn) -> ViewMutation {
        let ids = view.model.sections.flatMap(\.itemIDs)
        let roll = int(0...99)
        if view.strategyName == "compositional", chance(25), let scroll = sectionScroll(for: view) { return scroll }
        switch roll {
        case 0..<24: return .scroll(scrollOffset(view), ifEpoch: chance(20) ? view.epoch : nil)
        case 24..<38:
            let chosen = ids.isEmpty ? [] : (0..<int(1...3)).map { _ in pick(ids) }
            return .select(chosen, pick(SelectionMode.allCases), animated: chance(30))
        case 38..<56: return .batch(batch(view), animated: chance(40))
        case 56..<66:
            let chosen = ids.isEmpty ? [] : (0..<int(1...3)).map { _ in pick(ids) }
            let sizes = chosen.map { (id: $0, size: Size(width: half(20...300), height: half(20...300))) }
            let animated = chance(20)
            // A compositional view's supplementary elements self-size too: a quarter of its
            // measurements go to them, chosen from the numbers already drawn, so every
            // strategy's random sequence stays what it was before they could.
            if view.strategyName == "compositional", let first = sizes.first, Int(first.size.width * 2) % 4 == 0 {
                let keys = view.snapshot().filter { $0.kind != .cell }.map(\.key)
                if !keys.isEmpty {
                    return .measureSupplementary(
                        sizes.map { (keys[Int($0.size.height * 2) % keys.count], $0.size) },
                        animated: animated)
                }
            }
            return .measure(sizes, animated: animated)
        case 66..<70: return .scrollEnd(scrollOffset(view), velocity: Point(x: 0, y: half(-4000...4000)))
        case 70..<75: return .resize(Size(width: half(300...900), height: half(300...1400)), animated: chance(30))
        case 75..<85: return .configure(configuration(for: view), animated: chance(50))
        case 85..<89: return .replace(chance(70) ? shuffledData(view) : sections(), animated: chance(30))
        case 89..<93: return .switchStrategy(pick(Self.builtIns + registry.descriptors.map(\.name).filter { !Self.builtIns.contains($0) }), animated: chance(50))
        default:
            guard chance(50) else { return .margin(pick([0, 0, 50, 300])) }
            return anchoring(view, ids: ids)
        }
    }

    /// A gesture's next step, as a client drives one: during a move, the finger moves (mostly
    /// near the viewport, sometimes in its auto-scroll bands or beyond) or lets go; during a
    /// scrubbed transition, its end (scrubbing itself changes nothing: `ViewChecks.scrub`); at
    /// rest, a drag begins (nil: no item to drag, or the draw chose a transition instead).
    public mutating func gesture(for view: View) -> ViewMutation? {
        let size = view.viewport.size
        func finger() -> Point {
            Point(x: half(-30...Int(size.width) + 30), y: half(-30...Int(size.height) + 30))
        }
        if view.moveState.activeMove != nil {
            return chance(80) ? .updateMove(finger()) : .endMove(commit: chance(60))
        }
        if view.transition != nil { return .endTransition(commit: chance(50)) }
        let ids = view.model.sections.flatMap(\.itemIDs)
        guard !ids.isEmpty, chance(70) else { return nil }
        return .beginMove(pick(ids), at: chance(50) ? nil : finger())
    }

    /// A scrubbed transition's target: another strategy (with its defaults) or new parameters.
    public mutating func transitionTarget(for view: View, registry: StrategyRegistry = .builtIn) -> (strategy: String?, parameters: [String: ParameterValue]) {
        guard chance(50) else { return (nil, configuration(for: view)) }
        return (pick(Self.builtIns + registry.descriptors.map(\.name).filter { !Self.builtIns.contains($0) }), [:])
    }

    /// `scrollTo`, `setAnchor`, or a batch with its own anchor.
    mutating func anchoring(_ view: View, ids: [String]) -> ViewMutation {
        let key: ElementKey? = ids.isEmpty ? nil : ElementKey(kind: .cell, id: pick(ids))
        let policies: [AnchorPolicy] = [.firstVisible, .lastVisible, .end, .none] + (key.map { [.element($0, edge: pick(AnchorEdge.allCases), offset: chance(50) ? nil : half(-200...800))] } ?? [])
        switch int(0...3) {
        case 3: return .setLayoutDirection(pick(LayoutDirection.allCases), animated: chance(50))
        case 0 where key != nil: return .scrollTo(key!, pick(ScrollAlignment.allCases), offset: pick([0, 0, 20, -15]))
        case 1: return .setAnchor(pick(policies))
        default: return .anchoredBatch(batch(view), anchor: pick(policies.filter { if case .element = $0 { false } else { true } }))
        }
    }

    /// A mutation the view must refuse without changing anything.
    public mutating func invalidMutation(for view: View) -> ViewMutation {
        let model = view.restingModel
        let ids = model.sections.flatMap(\.itemIDs)
        let sectionIDs = model.sections.map(\.id)
        switch int(0...14) {
        case 14:
            // A kind no layout has, or an existing element with a size that is not one.
            let existing = view.snapshot().first { $0.kind != .cell }?.key
            if let existing, chance(50) { return .measureSupplementary([(existing, Size(width: -1, height: 10))], animated: false) }
            return .measureSupplementary([(ElementKey(kind: ElementKind(rawValue: "nope"), id: sectionIDs.first ?? "nope"), Size(width: 1, height: 1))], animated: false)
        case 12:
            // A section that does not scroll on its own, or none at all.
            let still = sectionIDs.first { (try? view.layout.sectionScroll(ofSection: $0)) == nil } ?? "nope"
            return chance(50) ? .scrollSection(still, 10) : .scrollSectionEnd(still, proposed: nil, velocity: 100)
        case 13:
            let scrolling = sectionIDs.first { (try? view.layout.sectionScroll(ofSection: $0)) != nil } ?? "nope"
            return .scrollSection(scrolling, .nan)
        case 0: return .select(["nope"], .add, animated: false)
        case 1: return .batch([.deleteItems(["nope"])], animated: false)
        case 2: return .measure([(ids.first ?? "nope", Size(width: .nan, height: 1))], animated: false)
        case 3: return .scroll(Point(x: 0, y: .infinity), ifEpoch: nil)
        case 4: return .scroll(Point(x: 0, y: 10), ifEpoch: view.epoch + 1)
        case 5: return .configure(["noSuchParameter": .number(1)], animated: true)
        case 6: return .switchStrategy("noSuchStrategy", animated: true)
        case 7 where !ids.isEmpty: return .batch([.insertItems([ItemSpec(id: ids[0])], section: sectionIDs[0], at: 0)], animated: false)
        case 7: return .batch([.insertItems([item()], section: "nope", at: 0)], animated: false)
        case 8: return .resize(Size(width: 0, height: 100), animated: false)
        case 9: return .margin(-1)
        case 10:
            let section = sectionIDs.first ?? "x"
            return .batch([.deleteSections([section]), .insertItems([item()], section: section, at: 0)], animated: true)
        default:
            let count = model.sections.first?.count ?? 0
            return .batch([.insertItems([item()], section: sectionIDs.first ?? "x", at: count + 1)], animated: false)
        }
    }

    /// Anywhere in the content (a jump), a small step from where the view is (a scroll tick), or
    /// the offset that puts a window edge exactly on an element's edge: the band a scroll's
    /// delta comes from starts and ends there.
    private mutating func scrollOffset(_ view: View) -> Point {
        let axis = view.layout.strategy.scrollAxis
        let extent = axis.main(of: view.layout.contentSize)
        let current = axis.main(of: view.viewport.offset)
        let main: Double
        switch int(0...3) {
        case 0:
            let main = Double(int(-200...Int(extent) + 200))
            return axis == .vertical ? Point(x: 0, y: main) : Point(x: main, y: 0)
        case 1: main = current + half(-80...80)
        default:
            let window = axis.mainRange(of: view.window)
            let length = window.max - window.min
            guard let element = view.snapshot().randomElement(using: &random) else { return scrollOffset(view) }
            let edge = chance(50) ? axis.mainRange(of: element.frame).min : axis.mainRange(of: element.frame).max
            // The window's start, or its end, on the element's edge (the window starts a margin
            // before the offset).
            let margin = current - window.min
            main = chance(50) ? edge + margin : edge + margin - length
        }
        let clamped = min(max(main, -LayoutBounds.maximumCoordinate / 2), LayoutBounds.maximumCoordinate / 2)
        return axis == .vertical ? Point(x: view.viewport.offset.x, y: clamped) : Point(x: clamped, y: view.viewport.offset.y)
    }

    /// A valid batch: a few deletes, reloads, one move, one insertion, maybe section changes;
    /// final positions chosen within the counts left after removals.
    private mutating func batch(_ view: View) -> [BatchUpdate] {
        // During a drag a batch applies to the data before it (`View.restingModel`).
        let model = view.restingModel
        var updates = [BatchUpdate]()
        var named = Set<String>()
        var removedFrom = [String: Int]()
        let ids = model.sections.flatMap(\.itemIDs)
        for _ in 0..<int(0...3) where !ids.isEmpty {
            let id = pick(ids)
            guard named.insert(id).inserted else { continue }
            updates.append(.deleteItems([id]))
            removedFrom[model.sections[model.indexPath(ofItem: id)!.section].id, default: 0] += 1
        }
        for _ in 0..<int(0...2) where !ids.isEmpty {
            let id = pick(ids)
            guard named.insert(id).inserted else { continue }
            var spec = item()
            spec.id = id
            updates.append(.reloadItems([spec]))
        }
        var movedItem: String?
        if chance(50), !ids.isEmpty {
            let id = pick(ids)
            if named.insert(id).inserted {
                movedItem = id
                removedFrom[model.sections[model.indexPath(ofItem: id)!.section].id, default: 0] += 1
            }
        }
        // Sections: maybe delete one nobody names, maybe move one, maybe insert one.
        let namedSections = Set(named.compactMap { model.indexPath(ofItem: $0).map { model.sections[$0.section].id } })
        var remainingSections = model.sections.map(\.id)
        if chance(15), let victim = remainingSections.filter({ !namedSections.contains($0) }).randomElement(using: &random) {
            updates.append(.deleteSections([victim]))
            remainingSections.removeAll { $0 == victim }
        }
        var movedSection: String?
        if chance(15), let mover = remainingSections.randomElement(using: &random) {
            movedSection = mover
        }
        let sectionCountAfterRemovals = remainingSections.count - (movedSection == nil ? 0 : 1)
        var newSection: SectionSpec?
        if chance(15) {
            let spec = section()
            newSection = spec
            updates.append(.insertSections([spec], at: int(0...sectionCountAfterRemovals)))
        }
        if let movedSection {
            updates.append(.moveSection(movedSection, to: int(0...sectionCountAfterRemovals)))
        }
        // Item placements into a surviving or new section.
        var targets = remainingSections.map { id in (id, model.sections[model.sectionIndex(of: id)!].count - (removedFrom[id] ?? 0)) }
        if let newSection { targets.append((newSection.id, newSection.items.count)) }
        if let movedItem, let target = targets.randomElement(using: &random) {
            updates.append(.moveItem(movedItem, toSection: target.0, at: int(0...max(0, target.1))))
        }
        if chance(60), let target = targets.randomElement(using: &random) {
            updates.append(.insertItems((0..<int(1...3)).map { _ in item() }, section: target.0, at: int(0...max(0, target.1))))
        }
        return updates.shuffled(using: &random)
    }

    /// The current data with some items dropped, some added, some reordered: a realistic reload.
    private mutating func shuffledData(_ view: View) -> [SectionSpec] {
        view.model.specs.map { section in
            var items = section.items.filter { _ in !chance(15) }
            if chance(50) { items.append(item()) }
            if chance(30) { items.shuffle(using: &random) }
            return SectionSpec(id: section.id, items: items, headerSize: section.headerSize, footerSize: section.footerSize)
        }
    }

    static var builtIns: [String] { ["flow", "collapsible", "ultravisual", "display", "compositional"] }

    private mutating func configuration(for view: View) -> [String: ParameterValue] {
        let strategy = view.strategyName
        if !Self.builtIns.contains(strategy) {
            // Any other strategy (plugins): one declared parameter, a valid value of its kind.
            let parameters = view.layout.strategy.descriptor.parameters
            guard !parameters.isEmpty else { return [:] }
            let parameter = pick(parameters)
            return [parameter.name: value(of: parameter.kind)]
        }
        switch strategy {
        case "flow":
            switch int(0...5) {
            case 0: return ["itemSize": .size(Size(width: half(40...300), height: half(40...300)))]
            case 1: return ["spacingMode": .string(pick(["justified", "fixed"]))]
            case 2: return ["lastLineAlignment": .string(pick(FlowLayout.LastLineAlignment.allCases.map(\.rawValue)))]
            case 3: return ["sectionHeadersPinToVisibleBounds": .bool(chance(50))]
            case 4: return ["scrollDirection": .string(pick(["vertical", "horizontal"]))]
            default: return ["headerReferenceSize": .size(Size(width: 0, height: half(0...80)))]
            }
        case "collapsible":
            switch int(0...2) {
            case 0: return ["collapsed": .bool(chance(60))]
            case 1: return ["transition": .string(pick(["basic", "preStack"])), "collapsed": .bool(chance(50))]
            default: return ["itemSize": .size(Size(width: half(40...200), height: half(40...200)))]
            }
        case "compositional":
            return compositionalParameters(sectionIDs: view.model.sections.map(\.id))
        case "ultravisual":
            let standard = half(40...200)
            return ["standardHeight": .number(standard), "featuredHeight": .number(standard + half(20...300))]
        default:
            return chance(70) ? ["mode": .string(pick(["grid", "list", "inline"]))] : ["columns": .integer(int(1...4))]
        }
    }

    /// A valid value of `kind`, kept small enough to lay out quickly.
    private mutating func value(of kind: ParameterKind) -> ParameterValue {
        switch kind {
        case .number(let minimum, let maximum):
            let low = minimum ?? 0
            let high = min(maximum ?? low + 300, low + 300)
            return .number(low + (high - low) * Double(int(0...100)) / 100)
        case .integer(let minimum, let maximum):
            let low = minimum ?? 0
            return .integer(int(low...min(maximum ?? low + 6, low + 6)))
        case .bool: return .bool(chance(50))
        case .choice(let options): return .string(pick(options))
        case .size: return .size(Size(width: half(0...300), height: half(0...300)))
        case .optionalSize: return chance(30) ? .null : .size(Size(width: half(20...300), height: half(20...300)))
        case .insets: return .insets(EdgeInsets(top: half(0...40), left: half(0...40), bottom: half(0...40), right: half(0...40)))
        case .structure: return .tree(compositionalSection())
        }
    }
}

/// Everything observable about a view, for "an invalid mutation changes nothing" checks.
public struct ViewDump: Equatable {
    var epoch: Int
    var strategy: String
    var parameters: ResolvedParameters
    var viewport: Viewport
    var windowMargin: Double
    var specs: [SectionSpec]
    var sizeSources: [[SizeSource]?]
    var selection: Set<String>
    var contentSize: Size
    var elements: [ElementKey: LayoutAttributes]
    var layoutDirection: LayoutDirection
    var move: MoveState

    public init(_ view: View) {
        epoch = view.epoch
        strategy = view.strategyName
        parameters = view.parameters
        viewport = view.viewport
        windowMargin = view.windowMargin
        specs = view.model.specs
        sizeSources = view.model.sections.map(\.sizeSources)
        selection = view.model.selection
        contentSize = view.layout.contentSize
        elements = allElements(of: view.layout)
        layoutDirection = view.layoutDirection
        move = view.moveState
    }
}

/// Every element of a layout, gathered one by one through `attributes(forItem:)` and
/// `attributes(forSupplementary:id:)`: an independent path from `elements(in:)`, so the
/// two can be checked against each other.
public func allElements(of layout: Layout) -> [ElementKey: LayoutAttributes] {
    var result = [ElementKey: LayoutAttributes]()
    let kinds = layout.strategy.supplementaryKinds
    for section in layout.model.sections {
        for kind in kinds where !kind.isAnchoredToItem {
            if let attributes = layout.attributes(forSupplementary: kind.kind, id: section.id) {
                result[attributes.key] = attributes
            }
        }
        for id in section.itemIDs {
            if let attributes = layout.attributes(forItem: id) { result[attributes.key] = attributes }
            for kind in kinds where kind.isAnchoredToItem {
                if let attributes = layout.attributes(forSupplementary: kind.kind, id: id) { result[attributes.key] = attributes }
            }
        }
    }
    return result
}
