import Foundation
import LayoutEngine
import LayoutGeometry
import Waterfall

/// A layout fixture: input (model, parameters, viewport, selection, measurements), what the
/// layout must look like, and optional steps (select, configure, scroll, snap), each with what
/// must hold after it. Files live in `Tests/Fixtures/<strategy>/*.json`; the format is in
/// `Tests/Fixtures/README.md`.
struct Fixture: CustomStringConvertible, Sendable {
    var file: String
    var name: String
    var strategy: String
    var parameters: [String: ParameterValue]
    var viewport: Viewport
    var sections: [SectionSpec]
    var selected: [String]
    var measurements: [(id: String, size: Size)]
    var expected: Expectation
    var steps: [Step]
    var transposable: Bool
    /// Whether the runner also lays the fixture out right to left and checks the mirror of
    /// every expectation (on unless the file says `"mirror": false`, or is itself right to left).
    var mirrorable: Bool
    var layoutDirection: LayoutDirection
    var windowMargin: Double
    var anchor: AnchorPolicy

    var description: String { "\(file) (\(name))" }
}

/// What must hold after the input is laid out, or after a step.
struct Expectation: Sendable {
    var contentSize: Size?
    var frames: [ElementKey: ExpectedElement] = [:]
    /// Whether `frames` lists every element of the layout.
    var complete = true
    var queries: [(rect: Rect, keys: Set<ElementKey>)] = []
    var measured: [String]?
    var contentOffset: Point?
    var anchor: String??
    var transition: ExpectedTransition?
    var target: Point?
    var delta: ExpectedDelta?
    /// `Layout.hitTest` at each point: the element key, or nil for nothing.
    var hits: [(point: Point, kinds: Set<ElementKind>?, key: ElementKey?)] = []
    /// `Layout.neighbor` of each id: the element key, nil for none, or the error's name.
    var neighbors: [(id: String, direction: NeighborDirection, key: ElementKey?, error: String?)] = []
    /// `Layout.prefetch` over the view's window at each velocity.
    var prefetch: [(velocity: Point, horizon: Double, ids: [String])] = []
    var needsMeasure: [String]?
    var anchorPolicy: String??
    /// The step must fail with this error name and change nothing.
    var error: String?
    /// Elements of the interactive transition in progress at its progress (`View.transition`'s
    /// pairs blended), by key; only those listed are checked.
    var interpolated: [ElementKey: ExpectedElement] = [:]
    /// How many pairs the transition in progress has.
    var pairs: Int?
    /// The move's target after the step (`{"target": {"section", "item"}}`).
    var moveTarget: ItemIndexPath?
    var autoScroll: Point?
    /// After a section scroll: the section's offset (for its end, where it came to rest).
    var sectionOffset: Double?
    var maximumSectionOffset: Double?
    /// The reason the step ended the move (`"moveEnded": "committed"`), or `""` for none.
    var moveEnded: String?
    /// Whether a move is in progress after the step.
    var moving: Bool?
    /// Every item the move in force drags, in order (`"movingItems": [...]`: a stack).
    var movingItems: [String]?
    /// The items the step's data change moved (`"movedItems": [...]`: a committed move).
    var movedItems: [String]?

    /// The window delta of the step's invalidation, by element key.
    struct ExpectedDelta: Sendable {
        var entered: Set<ElementKey>?
        var changed: Set<ElementKey>?
        var left: Set<ElementKey>?
        var contentOffsetAdjustment: Point?
        var contentSizeAdjustment: Size?
    }

    struct ExpectedElement: Sendable, Equatable {
        var frame: Rect
        var zIndex: Int?
        var alpha: Double?
        var effects: [String: Double]?
    }

    struct ExpectedTransition: Sendable {
        var duration: Double
        var segments: [(key: ElementKey, from: Rect, to: Rect, delay: Double, duration: Double)]
        /// Whether `segments` lists every segment.
        var complete: Bool
    }
}

/// Something done to the layout after the input is prepared.
struct Step: Sendable {
    enum Action: Sendable {
        case select([String], SelectionMode)
        case configure([String: ParameterValue], windowMargin: Double)
        case scroll(Point)
        case targetContentOffset(proposed: Point, velocity: Point)
        case resize(Size)
        case batch([BatchUpdate])
        /// Items' sizes, and (entries with a `kind`) supplementary elements' sizes.
        case measure([(id: String, size: Size)], supplementary: [(key: ElementKey, size: Size)])
        case replace([SectionSpec])
        case scrollTo(ElementKey, ScrollAlignment, offset: Double)
        case setAnchor(AnchorPolicy)
        /// An interactive transition: to `strategy` with `parameters`, or (nil) the parameter changes.
        case beginTransition(strategy: String?, parameters: [String: ParameterValue])
        case updateTransition(Double)
        case endTransition(commit: Bool)
        /// Interactive moves (`View+Move.swift`); points in viewport coordinates.
        case beginMove(String)
        case updateMove(Point)
        case endMove(commit: Bool)
        /// A drag held at `point` while the client scrolls as asked: `updateMove(point)`, then a
        /// scroll by `autoScroll × seconds` (clamped to where scrolling may rest), repeated
        /// until the auto-scroll stops or `ticks` ran out.
        case autoScroll(point: Point, seconds: Double, ticks: Int)
        /// An orthogonal section's own scroll (compositional), and its end (snapping).
        case scrollSection(String, Double)
        case scrollSectionEnd(String, proposed: Double?, velocity: Double)
    }

    /// The step must be refused with this error name, changing nothing.
    var error: String?

    var animated = true
    /// The per-mutation anchor override, for steps that anchor.
    var anchor: AnchorPolicy?

    var action: Action
    var expected: Expectation
}

extension Fixture {
    /// The same fixture with the other scroll direction: every size, inset, offset and frame
    /// swaps its axes. A correct flow layout gives exactly the transposed frames.
    var transposed: Fixture {
        var copy = self
        copy.name = name + " [transposed]"
        copy.parameters = Self.transposed(parameters)
        let direction = parameters["scrollDirection"] ?? .string("vertical")
        copy.parameters["scrollDirection"] = direction == .string("vertical") ? .string("horizontal") : .string("vertical")
        copy.viewport = Viewport(
            size: viewport.size.transposed, offset: viewport.offset.transposed,
            contentInsets: viewport.contentInsets.transposed)
        copy.sections = sections.map(Self.transposed)
        copy.measurements = measurements.map { ($0.id, $0.size.transposed) }
        copy.expected = expected.transposed
        copy.steps = steps.map { step in
            var transposed = step
            transposed.expected = step.expected.transposed
            transposed.action = switch step.action {
            case .select, .scrollTo, .setAnchor, .updateTransition, .endTransition, .beginMove, .endMove, .scrollSection, .scrollSectionEnd: step.action
            case .updateMove(let point): .updateMove(point.transposed)
            case .autoScroll(let point, let seconds, let ticks): .autoScroll(point: point.transposed, seconds: seconds, ticks: ticks)
            case .beginTransition(let strategy, let parameters): .beginTransition(strategy: strategy, parameters: Self.transposed(parameters))
            case .configure(let changes, let margin): .configure(Self.transposed(changes), windowMargin: margin)
            case .scroll(let offset): .scroll(offset.transposed)
            case .targetContentOffset(let proposed, let velocity): .targetContentOffset(proposed: proposed.transposed, velocity: velocity.transposed)
            case .resize(let size): .resize(size.transposed)
            case .batch(let updates): .batch(updates.map(Self.transposed))
            case .measure(let sizes, let supplementary):
                .measure(sizes.map { ($0.id, $0.size.transposed) }, supplementary: supplementary.map { ($0.key, $0.size.transposed) })
            case .replace(let sections): .replace(sections.map(Self.transposed))
            }
            return transposed
        }
        return copy
    }

    static func transposed(_ parameters: [String: ParameterValue]) -> [String: ParameterValue] {
        parameters.mapValues { value in
            switch value {
            case .size(let size): .size(size.transposed)
            case .insets(let insets): .insets(insets.transposed)
            default: value
            }
        }
    }

    static func transposed(_ item: ItemSpec) -> ItemSpec {
        ItemSpec(
            id: item.id, size: item.size?.transposed, estimatedSize: item.estimatedSize?.transposed,
            selectedSize: item.selectedSize?.transposed)
    }

    static func transposed(_ section: SectionSpec) -> SectionSpec {
        SectionSpec(
            id: section.id, items: section.items.map(transposed), headerSize: section.headerSize?.transposed,
            footerSize: section.footerSize?.transposed)
    }

    static func transposed(_ update: BatchUpdate) -> BatchUpdate {
        switch update {
        case .insertItems(let items, let section, let at): .insertItems(items.map(transposed), section: section, at: at)
        case .reloadItems(let items): .reloadItems(items.map(transposed))
        case .insertSections(let sections, let at): .insertSections(sections.map(transposed), at: at)
        case .reloadSections(let sections): .reloadSections(sections.map(transposed))
        default: update
        }
    }
}

extension NeighborDirection {
    /// The same move in the transposed layout (rows become columns).
    var transposed: NeighborDirection {
        switch self {
        case .up: .left
        case .left: .up
        case .down: .right
        case .right: .down
        case .next, .previous: self
        }
    }

    /// The same move in the mirrored layout (left and right swap).
    var mirrored: NeighborDirection {
        switch self {
        case .left: .right
        case .right: .left
        default: self
        }
    }
}

extension Expectation {
    /// Every size, point and rect with its axes swapped.
    var transposed: Expectation {
        var copy = self
        copy.contentSize = contentSize?.transposed
        copy.frames = frames.mapValues { element in
            var transposed = element
            transposed.frame = element.frame.transposed
            return transposed
        }
        copy.queries = queries.map { ($0.rect.transposed, $0.keys) }
        copy.interpolated = interpolated.mapValues { element in
            var transposed = element
            transposed.frame = element.frame.transposed
            return transposed
        }
        copy.contentOffset = contentOffset?.transposed
        copy.target = target?.transposed
        if let delta {
            copy.delta?.contentOffsetAdjustment = delta.contentOffsetAdjustment?.transposed
            copy.delta?.contentSizeAdjustment = delta.contentSizeAdjustment?.transposed
        }
        if let transition {
            copy.transition?.segments = transition.segments.map { ($0.key, $0.from.transposed, $0.to.transposed, $0.delay, $0.duration) }
        }
        copy.hits = hits.map { ($0.point.transposed, $0.kinds, $0.key) }
        copy.neighbors = neighbors.map { ($0.id, $0.direction.transposed, $0.key, $0.error) }
        copy.prefetch = prefetch.map { ($0.velocity.transposed, $0.horizon, $0.ids) }
        return copy
    }

    /// What the mirrored (right-to-left) layout must show: every x mirrored across the content
    /// width, as `MirroredStrategy` mirrors. `width` and `viewportWidth` are the content's and the
    /// viewport's after the stage, `previousWidth` the content's before it (where a
    /// transition's `from` frames were).
    func mirrored(width: Double, viewportWidth: Double, previousWidth: Double, previousViewportWidth: Double) -> Expectation {
        func rect(_ rect: Rect, in width: Double) -> Rect {
            Rect(x: width - rect.maxX, y: rect.minY, width: rect.width, height: rect.height)
        }
        func offset(_ offset: Point) -> Point { Point(x: width - viewportWidth - offset.x, y: offset.y) }
        var copy = self
        copy.frames = frames.mapValues { element in
            var mirrored = element
            mirrored.frame = rect(element.frame, in: width)
            return mirrored
        }
        copy.queries = queries.map { (rect($0.rect, in: width), $0.keys) }
        // A blend of two layouts of the same width (the fixtures' are) mirrors across it.
        copy.interpolated = interpolated.mapValues { element in
            var mirrored = element
            mirrored.frame = rect(element.frame, in: width)
            return mirrored
        }
        copy.contentOffset = contentOffset.map(offset)
        copy.target = target.map(offset)
        if let adjustment = delta?.contentOffsetAdjustment {
            // Mirrored offsets move the other way, by the change of the mirror's reach too.
            let reach = (width - viewportWidth) - (previousWidth - previousViewportWidth)
            copy.delta?.contentOffsetAdjustment = Point(x: reach - adjustment.x, y: adjustment.y)
        }
        if let transition {
            copy.transition?.segments = transition.segments.map {
                ($0.key, rect($0.from, in: previousWidth), rect($0.to, in: width), $0.delay, $0.duration)
            }
        }
        copy.hits = hits.map { (Point(x: width - $0.point.x, y: $0.point.y), $0.kinds, $0.key) }
        copy.neighbors = neighbors.map { ($0.id, $0.direction.mirrored, $0.key, $0.error) }
        copy.prefetch = prefetch.map { (Point(x: -$0.velocity.x, y: $0.velocity.y), $0.horizon, $0.ids) }
        // A drag toward the mirrored edge asks for the mirrored scroll.
        copy.autoScroll = autoScroll.map { Point(x: -$0.x, y: $0.y) }
        return copy
    }
}

// MARK: Loading

struct FixtureError: Error, CustomStringConvertible {
    var description: String
}

extension Fixture {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The built-in strategies plus those that ship as plugins and have a native form
    /// (waterfall), so their fixtures run here as well as through the daemon.
    static let registry: StrategyRegistry = {
        var registry = StrategyRegistry.builtIn
        do {
            try registry.register(WaterfallLayout.self)
        } catch {
            preconditionFailure("\(error)")
        }
        return registry
    }()

    static func files(strategy: String) -> [String] {
        let folder = root.appendingPathComponent(strategy)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted().map { "\(strategy)/\($0)" }
    }

    static func load(_ file: String) throws -> Fixture {
        let data = try Data(contentsOf: root.appendingPathComponent(file))
        guard let json = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FixtureError(description: "\(file): top level must be an object")
        }
        return try Fixture(file: file, json: json)
    }

    init(file: String, json: [String: Any]) throws {
        let reader = FixtureReader(file: file)
        self.file = file
        name = json["name"] as? String ?? file
        strategy = json["strategy"] as? String ?? String(file.split(separator: "/").first ?? "flow")
        transposable = json["transpose"] as? Bool ?? (strategy == "flow")
        parameters = try reader.parameters(json["params"], strategy: strategy)
        guard let direction = LayoutDirection(rawValue: json["layoutDirection"] as? String ?? "ltr") else {
            throw reader.fail("layoutDirection must be ltr or rtl")
        }
        layoutDirection = direction
        mirrorable = json["mirror"] as? Bool ?? (direction == .ltr)
        windowMargin = reader.number(json["windowMargin"]) ?? 0
        anchor = try json["anchor"].map(reader.anchorPolicy) ?? .firstVisible

        let viewportJSON = json["viewport"] as? [String: Any] ?? [:]
        viewport = Viewport(
            size: Size(
                width: reader.number(viewportJSON["width"]) ?? 375, height: reader.number(viewportJSON["height"]) ?? 667),
            offset: try viewportJSON["offset"].map(reader.point) ?? .zero,
            contentInsets: try viewportJSON["contentInsets"].map(reader.insets) ?? .zero,
            safeAreaInsets: try viewportJSON["safeAreaInsets"].map(reader.insets) ?? .zero,
            layoutMargins: try viewportJSON["layoutMargins"].map(reader.insets) ?? .zero,
            readableWidth: reader.number(viewportJSON["readableWidth"]))

        sections = try reader.sections(json["sections"])
        selected = json["selected"] as? [String] ?? []
        measurements = try (json["measure"] as? [[String: Any]] ?? []).map { entry in
            guard let id = entry["id"] as? String, let size = entry["size"] else { throw reader.fail("measure entry") }
            return (id, try reader.size(size))
        }
        guard let expected = json["expected"] as? [String: Any] else { throw reader.fail("missing expected") }
        self.expected = try reader.expectation(expected)
        let strategyName = strategy
        steps = try (json["steps"] as? [[String: Any]] ?? []).map { step in
            guard let expected = step["expected"] as? [String: Any] else { throw reader.fail("step without expected") }
            let action: Step.Action
            if let ids = step["select"] as? [String] {
                action = .select(ids, SelectionMode(rawValue: step["mode"] as? String ?? "set") ?? .set)
            } else if let changes = step["configure"] {
                action = .configure(
                    try reader.parameters(changes, strategy: strategyName), windowMargin: reader.number(step["windowMargin"]) ?? 0)
            } else if let offset = step["scroll"] {
                action = .scroll(try reader.point(offset))
            } else if let size = step["resize"] {
                action = .resize(try reader.size(size))
            } else if let updates = step["batch"] as? [[String: Any]] {
                action = .batch(try updates.map(reader.batchUpdate))
            } else if let sizes = step["measure"] as? [[String: Any]] {
                var items = [(id: String, size: Size)]()
                var supplementary = [(key: ElementKey, size: Size)]()
                for entry in sizes {
                    guard let id = entry["id"] as? String, let size = entry["size"] else { throw reader.fail("measure entry") }
                    let key = try reader.elementKey(kind: entry["kind"], id: id)
                    if key.kind == .cell { items.append((id, try reader.size(size))) } else { supplementary.append((key, try reader.size(size))) }
                }
                action = .measure(items, supplementary: supplementary)
            } else if let sections = step["replace"] {
                action = .replace(try reader.sections(sections))
            } else if let id = step["scrollTo"] as? String {
                guard let align = ScrollAlignment(rawValue: step["align"] as? String ?? "start") else { throw reader.fail("align") }
                action = .scrollTo(
                    try reader.elementKey(kind: step["kind"], id: id), align, offset: reader.number(step["offset"]) ?? 0)
            } else if let policy = step["setAnchor"] {
                action = .setAnchor(try reader.anchorPolicy(policy))
            } else if let begin = step["beginTransition"] as? [String: Any] {
                let target = begin["strategy"] as? String
                action = .beginTransition(
                    strategy: target, parameters: try reader.parameters(begin["params"] ?? [String: Any](), strategy: target ?? strategyName))
            } else if step["updateTransition"] != nil {
                guard let progress = reader.number(step["updateTransition"]) else { throw reader.fail("updateTransition takes a progress") }
                action = .updateTransition(progress)
            } else if step["endTransition"] != nil {
                guard let commit = step["endTransition"] as? Bool else { throw reader.fail("endTransition takes true (commit) or false") }
                action = .endTransition(commit: commit)
            } else if let id = step["beginMove"] as? String {
                action = .beginMove(id)
            } else if let point = step["updateMove"] {
                action = .updateMove(try reader.point(point))
            } else if let end = step["endMove"] as? [String: Any] {
                action = .endMove(commit: (end["commit"] as? NSNumber)?.boolValue ?? true)
            } else if let drag = step["autoScroll"] as? [String: Any] {
                action = .autoScroll(
                    point: try reader.point(drag["point"] as Any), seconds: reader.number(drag["seconds"]) ?? 1,
                    ticks: drag["ticks"] as? Int ?? 10_000)
            } else if let id = step["scrollSection"] as? String {
                guard let offset = reader.number(step["offset"]) else { throw reader.fail("scrollSection takes an offset") }
                action = .scrollSection(id, offset)
            } else if let id = step["scrollSectionEnd"] as? String {
                action = .scrollSectionEnd(id, proposed: reader.number(step["proposed"]), velocity: reader.number(step["velocity"]) ?? 0)
            } else if let snap = step["targetContentOffset"] as? [String: Any] {
                action = .targetContentOffset(
                    proposed: try reader.point(snap["proposed"] as Any),
                    velocity: try snap["velocity"].map(reader.point) ?? .zero)
            } else {
                throw reader.fail("unknown step \(step.keys.sorted())")
            }
            var parsed = Step(action: action, expected: try reader.expectation(expected))
            parsed.animated = step["animated"] as? Bool ?? true
            parsed.anchor = try step["anchor"].map(reader.anchorPolicy)
            parsed.error = step["error"] as? String
            return parsed
        }
    }
}

/// Reads the compact JSON forms fixtures use: sizes `[w, h]`, points `[x, y]`, rects
/// `[x, y, w, h]`, insets `[top, left, bottom, right]`, element keys `kind:id`.
struct FixtureReader {
    /// `cell`, or a kind a layout may name (header, footer, a compositional description's own).
    static func isKind(_ name: String) -> Bool { name == "cell" || ElementKind.isValidName(name) }

    var file: String

    func fail(_ message: String) -> FixtureError { FixtureError(description: "\(file): \(message)") }

    func number(_ value: Any?) -> Double? { (value as? NSNumber).map { $0.doubleValue } }

    func numbers(_ value: Any, count: Int) throws -> [Double] {
        guard let array = value as? [Any], array.count == count else { throw fail("expected \(count) numbers, got \(value)") }
        return try array.map { element in
            guard let number = number(element) else { throw fail("not a number: \(element)") }
            return number
        }
    }

    func size(_ value: Any) throws -> Size {
        let v = try numbers(value, count: 2)
        return Size(width: v[0], height: v[1])
    }

    func point(_ value: Any) throws -> Point {
        let v = try numbers(value, count: 2)
        return Point(x: v[0], y: v[1])
    }

    func rect(_ value: Any) throws -> Rect {
        let v = try numbers(value, count: 4)
        return Rect(x: v[0], y: v[1], width: v[2], height: v[3])
    }

    func insets(_ value: Any) throws -> EdgeInsets {
        let v = try numbers(value, count: 4)
        return EdgeInsets(top: v[0], left: v[1], bottom: v[2], right: v[3])
    }

    func elementKey(_ text: String) throws -> ElementKey {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, FixtureReader.isKind(parts[0]) else {
            throw fail("element key must be kind:id, got \(text)")
        }
        return ElementKey(kind: ElementKind(rawValue: parts[0]), id: parts[1])
    }

    /// `kind` (default `cell`) and an id: an item, or a section's header or footer.
    func elementKey(kind: Any?, id: String) throws -> ElementKey {
        let name = kind as? String ?? "cell"
        guard FixtureReader.isKind(name) else { throw fail("unknown kind \(kind ?? "")") }
        return ElementKey(kind: ElementKind(rawValue: name), id: id)
    }

    /// A policy's name (`firstVisible`, `lastVisible`, `end`, `none`) or
    /// `{"id", "kind"?, "edge"?, "offset"?}`, as the protocol writes it.
    func anchorPolicy(_ value: Any) throws -> AnchorPolicy {
        if let name = value as? String {
            switch name {
            case "firstVisible": return .firstVisible
            case "lastVisible": return .lastVisible
            case "end": return .end
            case "none": return .none
            default: throw fail("unknown anchor policy \(name)")
            }
        }
        guard let object = value as? [String: Any], let id = object["id"] as? String,
            let edge = AnchorEdge(rawValue: object["edge"] as? String ?? "start")
        else { throw fail("anchor must be a policy name or {id, kind?, edge?, offset?}") }
        return .element(try elementKey(kind: object["kind"], id: id), edge: edge, offset: number(object["offset"]))
    }

    /// Sizes are `[w, h]`, insets `{"insets": [t, l, b, r]}`, null stays null; numbers, bools
    /// and strings map directly. Foundation on Linux reads JSON booleans as numbers, so the
    /// declared kind decides which a number is.
    func parameters(_ value: Any?, strategy: String) throws -> [String: ParameterValue] {
        var result = [String: ParameterValue]()
        let descriptor = Fixture.registry.descriptor(named: strategy)
        for (name, raw) in value as? [String: Any] ?? [:] {
            let kind = descriptor?.parameter(named: name)?.kind
            if kind == .structure {
                result[name] = .tree(try tree(raw, key: name))
            } else if raw is NSNull {
                result[name] = .null
            } else if let object = raw as? [String: Any], let insets = object["insets"] {
                result[name] = .insets(try self.insets(insets))
            } else if raw is [Any] {
                result[name] = .size(try size(raw))
            } else if let string = raw as? String {
                result[name] = .string(string)
            } else if let number = raw as? NSNumber {
                switch kind {
                case .bool?: result[name] = .bool(number.boolValue)
                case .integer?: result[name] = .integer(number.intValue)
                default: result[name] = .number(number.doubleValue)
                }
            } else {
                throw fail("parameter \(name): unsupported value \(raw)")
            }
        }
        return result
    }

    /// Fields of a compositional description that are booleans: Foundation on Linux reads JSON
    /// booleans as numbers, so the field's name decides.
    static let booleanFields: Set<String> = [
        "extendsBoundary", "pinToVisibleBounds", "supplementariesFollowContentInsets", "pinnedHeaders",
    ]

    /// A structured parameter (a compositional description) from Foundation's JSON objects.
    func tree(_ raw: Any, key: String) throws -> ParameterTree {
        if raw is NSNull { return .null }
        if let string = raw as? String { return .string(string) }
        if let number = raw as? NSNumber {
            return Self.booleanFields.contains(key) ? .bool(number.boolValue) : .number(number.doubleValue)
        }
        if let array = raw as? [Any] { return .array(try array.map { try tree($0, key: key) }) }
        if let object = raw as? [String: Any] {
            var fields = [String: ParameterTree]()
            for (name, value) in object { fields[name] = try tree(value, key: name) }
            return .object(fields)
        }
        throw fail("parameter \(key): unsupported value \(raw)")
    }

    func items(_ value: Any?, section id: String) throws -> [ItemSpec] {
        if let count = value as? Int { return (0..<count).map { ItemSpec(id: "\(id)-\($0)") } }
        var items = [ItemSpec]()
        for (itemIndex, entry) in (value as? [Any] ?? []).enumerated() {
            if entry is [Any] {
                items.append(ItemSpec(id: "\(id)-\(itemIndex)", size: try size(entry)))
                continue
            }
            guard let item = entry as? [String: Any] else { throw fail("item \(itemIndex) of \(id)") }
            items.append(
                ItemSpec(
                    id: item["id"] as? String ?? "\(id)-\(itemIndex)",
                    size: try item["size"].map(size), estimatedSize: try item["estimatedSize"].map(size),
                    selectedSize: try item["selectedSize"].map(size)))
        }
        return items
    }

    func sections(_ value: Any?) throws -> [SectionSpec] {
        try (value as? [[String: Any]] ?? []).enumerated().map { index, raw in
            let id = raw["id"] as? String ?? "s\(index)"
            return SectionSpec(
                id: id, items: try items(raw["items"], section: id),
                headerSize: try raw["headerSize"].map(size), footerSize: try raw["footerSize"].map(size))
        }
    }

    /// `{"insertItems": [...], "section": "s", "at": 0}`, `{"deleteItems": ["a"]}`,
    /// `{"moveItem": "a", "section": "s", "at": 3}`, `{"reloadItems": [...]}`,
    /// `{"insertSections": [...], "at": 1}`, `{"deleteSections": ["s"]}`,
    /// `{"moveSection": "s", "at": 0}`, `{"reloadSections": [...]}`.
    func batchUpdate(_ json: [String: Any]) throws -> BatchUpdate {
        let at = json["at"] as? Int ?? 0
        let section = json["section"] as? String ?? ""
        if let raw = json["insertItems"] { return .insertItems(try items(raw, section: section), section: section, at: at) }
        if let ids = json["deleteItems"] as? [String] { return .deleteItems(ids) }
        if let id = json["moveItem"] as? String { return .moveItem(id, toSection: section, at: at) }
        if let raw = json["reloadItems"] { return .reloadItems(try items(raw, section: section)) }
        if let raw = json["insertSections"] { return .insertSections(try sections(raw), at: at) }
        if let ids = json["deleteSections"] as? [String] { return .deleteSections(ids) }
        if let id = json["moveSection"] as? String { return .moveSection(id, to: at) }
        if let raw = json["reloadSections"] { return .reloadSections(try sections(raw)) }
        throw fail("unknown batch update \(json.keys.sorted())")
    }

    func expectation(_ json: [String: Any]) throws -> Expectation {
        var expectation = Expectation()
        expectation.contentSize = try json["contentSize"].map(size)
        expectation.measured = json["measured"] as? [String]
        expectation.complete = json["complete"] as? Bool ?? true
        expectation.contentOffset = try json["contentOffset"].map(point)
        if let target = json["target"] as? [String: Any] {
            guard let section = target["section"] as? Int, let item = target["item"] as? Int else { throw fail("target needs section and item") }
            expectation.moveTarget = ItemIndexPath(section: section, item: item)
        } else {
            expectation.target = try json["target"].map(point)
        }
        expectation.autoScroll = try json["autoScroll"].map(point)
        expectation.sectionOffset = number(json["sectionOffset"])
        expectation.maximumSectionOffset = number(json["maximumSectionOffset"])
        expectation.moveEnded = json["moveEnded"] as? String
        expectation.moving = (json["moving"] as? NSNumber)?.boolValue
        expectation.movingItems = json["movingItems"] as? [String]
        expectation.movedItems = json["movedItems"] as? [String]
        if let anchor = json["anchor"] {
            expectation.anchor = .some(anchor as? String)
        }
        if let policy = json["anchorPolicy"] {
            expectation.anchorPolicy = .some(policy as? String)
        }
        expectation.needsMeasure = json["needsMeasure"] as? [String]
        expectation.error = json["error"] as? String
        expectation.hits = try (json["hits"] as? [[String: Any]] ?? []).map { hit in
            let kinds = try (hit["kinds"] as? [String]).map { names in
                Set(try names.map { name in
                    guard FixtureReader.isKind(name) else { throw fail("unknown kind \(name)") }
                    return ElementKind(rawValue: name)
                })
            }
            return (try point(hit["point"] as Any), kinds, try (hit["hit"] as? String).map(elementKey))
        }
        expectation.neighbors = try (json["neighbors"] as? [[String: Any]] ?? []).map { entry in
            guard let id = entry["id"] as? String, let direction = NeighborDirection(rawValue: entry["direction"] as? String ?? "") else {
                throw fail("neighbor entry needs id and direction")
            }
            return (id, direction, try (entry["neighbor"] as? String).map(elementKey), entry["error"] as? String)
        }
        expectation.prefetch = try (json["prefetch"] as? [[String: Any]] ?? []).map { entry in
            (try point(entry["velocity"] as Any), number(entry["horizon"]) ?? 0.25, entry["ids"] as? [String] ?? [])
        }
        func elements(_ name: String) throws -> [ElementKey: Expectation.ExpectedElement] {
            var elements = [ElementKey: Expectation.ExpectedElement]()
            for (key, value) in json[name] as? [String: Any] ?? [:] {
                let elementKey = try elementKey(key)
                if let object = value as? [String: Any] {
                    elements[elementKey] = Expectation.ExpectedElement(
                        frame: try rect(object["frame"] as Any), zIndex: object["zIndex"] as? Int,
                        alpha: number(object["alpha"]),
                        effects: (object["effects"] as? [String: Any])?.compactMapValues { number($0) })
                } else {
                    elements[elementKey] = Expectation.ExpectedElement(frame: try rect(value))
                }
            }
            return elements
        }
        expectation.frames = try elements("frames")
        expectation.interpolated = try elements("interpolated")
        expectation.pairs = json["pairs"] as? Int
        expectation.queries = try (json["queries"] as? [[String: Any]] ?? []).map { query in
            let keys = try (query["keys"] as? [String] ?? []).map(elementKey)
            return (try rect(query["rect"] as Any), Set(keys))
        }
        if let delta = json["delta"] as? [String: Any] {
            func keys(_ name: String) throws -> Set<ElementKey>? {
                try (delta[name] as? [String]).map { Set(try $0.map(elementKey)) }
            }
            expectation.delta = Expectation.ExpectedDelta(
                entered: try keys("entered"), changed: try keys("changed"), left: try keys("left"),
                contentOffsetAdjustment: try delta["contentOffsetAdjustment"].map(point),
                contentSizeAdjustment: try delta["contentSizeAdjustment"].map(size))
        }
        if let transition = json["transition"] as? [String: Any] {
            let segments = try (transition["segments"] as? [[String: Any]] ?? []).map { segment in
                (
                    key: try elementKey(segment["key"] as? String ?? ""),
                    from: try rect(segment["from"] as Any), to: try rect(segment["to"] as Any),
                    delay: number(segment["delay"]) ?? 0, duration: number(segment["duration"]) ?? 0
                )
            }
            expectation.transition = Expectation.ExpectedTransition(
                duration: number(transition["duration"]) ?? 0, segments: segments,
                complete: transition["complete"] as? Bool ?? true)
        }
        return expectation
    }
}
