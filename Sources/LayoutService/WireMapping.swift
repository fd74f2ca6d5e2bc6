import LayoutEngine
import LayoutGeometry
import LayoutProtocol
import StrategyCodec

// The one place engine values become wire values and back.

extension LayoutError {
    /// Details that are counts or positions go out as numbers; the rest (ids, names,
    /// reasons) as strings, even when an id looks like a number.
    static let numericDetails: Set<String> = ["index", "count", "maximum", "expected", "actual"]

    var wire: WireError {
        var data = JSONObject()
        for key in details.keys.sorted() {
            let text = details[key]!
            if Self.numericDetails.contains(key), let number = Int(text) {
                data[key] = .number(Double(number))
            } else {
                data[key] = .string(text)
            }
        }
        return WireError(name: name, message: message, data: data)
    }
}

enum WireMapping {
    static func attributes(_ attributes: LayoutAttributes) -> JSONValue { wire(attributes).json }

    static func wire(_ attributes: LayoutAttributes) -> WireAttributes {
        WireAttributes(
            id: attributes.id, kind: attributes.kind.rawValue, section: attributes.section, item: attributes.item,
            frame: attributes.frame, zIndex: attributes.zIndex, alpha: attributes.alpha, hidden: attributes.isHidden,
            transform: attributes.transform, effects: attributes.effects)
    }

    /// `[attributes, ...]` written straight into `writer` (the hot part of every reply).
    static func write(_ elements: some Collection<LayoutAttributes>, into writer: inout JSONWriter) {
        writer.append(UInt8(ascii: "["))
        var first = true
        for element in elements {
            if !first { writer.append(UInt8(ascii: ",")) }
            first = false
            writer.write(wire(element))
        }
        writer.append(UInt8(ascii: "]"))
    }

    static func key(_ key: ElementKey) -> JSONValue { .object(["kind": .string(key.kind.rawValue), "id": .string(key.id)]) }

    /// The items go across as they are (`WireItem` is `ItemSpec`): the array is shared, not
    /// copied.
    static func section(_ wire: WireSection) -> SectionSpec {
        SectionSpec(id: wire.id, items: wire.items, headerSize: wire.headerSize, footerSize: wire.footerSize)
    }

    static func update(_ wire: WireUpdate) -> BatchUpdate {
        switch wire {
        case .insertItems(let items, let section, let at): .insertItems(items, section: section, at: at)
        case .deleteItems(let ids): .deleteItems(ids)
        case .moveItem(let id, let section, let at): .moveItem(id, toSection: section, at: at)
        case .reloadItems(let items): .reloadItems(items)
        case .insertSections(let sections, let at): .insertSections(sections.map(section), at: at)
        case .deleteSections(let ids): .deleteSections(ids)
        case .moveSection(let id, let at): .moveSection(id, to: at)
        case .reloadSections(let sections): .reloadSections(sections.map(section))
        }
    }

    static func parameters(_ reader: ParamsReader?) throws(WireError) -> [String: ParameterValue] {
        guard let reader else { return [:] }
        var result = [String: ParameterValue]()
        for (key, value) in reader.object.pairs { result[key] = try StrategyJSON.parameter(value, path: "\(reader.path).\(key)") }
        return result
    }

    /// A registered strategy as `strategy.list` publishes it: its descriptor, where it came
    /// from, and `available`.
    static func strategy(_ entry: StrategyRegistry.Entry) -> JSONValue {
        var object = StrategyJSON.descriptorObject(entry.descriptor)
        object["origin"] = .string(entry.origin.description)
        object["status"] = .string("available")
        return .object(object)
    }

    /// A refused plugin as `strategy.list` publishes it.
    static func refusal(_ refusal: StrategyRefusal) -> JSONValue {
        .object([
            "name": .string(refusal.name), "origin": .string(refusal.path), "status": .string("refused"),
            "reason": .string(refusal.reason),
        ])
    }

    /// Every strategy with its origin, then every refused plugin.
    static func strategies(_ registry: StrategyRegistry) -> JSONValue {
        .array(registry.registered.map(strategy) + registry.refusals.map(refusal))
    }

    /// An invalidation as the wire carries it (`mutations.md`), written in one pass into one
    /// buffer: constant keys as pre-made byte runs, elements through `JSONWriter.write(_:
    /// WireAttributes)`. This is the only encoding of an invalidation; the reply and every
    /// subscriber's event share its bytes.
    ///
    /// - Parameter dryRun: appends `"dryRun":true` as the last key: the result of a dry run
    ///   is the real one's bytes with only that marker added.
    /// - Complexity: O(bytes written).
    ///
    /// - Parameter prefetch: a scroll's `prefetch` ids (`view.scroll` with a velocity).
    /// - Parameter listedIDBytes: the most bytes of ids the id lists carry (`listsIDs`).
    static func encodedInvalidation(
        _ invalidation: Invalidation, view: String, prefetch: [String]? = nil, dryRun: Bool = false, listedIDBytes: () -> Int
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024 + 192 * (invalidation.entered.count + invalidation.changed.count) + 48 * invalidation.left.count)
        write(invalidation, view: view, prefetch: prefetch, dryRun: dryRun, listedIDBytes: listedIDBytes, into: &writer)
        return writer.finish()
    }

    /// `encodedInvalidation`, appended to `writer`.
    static func write(
        _ invalidation: Invalidation, view: String, prefetch: [String]? = nil, dryRun: Bool = false, listedIDBytes: () -> Int,
        into writer: inout JSONWriter
    ) {
        let context = invalidation.context
        let listed = listsIDs(invalidation, maximumBytes: listedIDBytes)
        // The fixed parts each in one reservation (one capacity check, not one per key): they
        // were a share of every scroll's encoding (issue 41).
        writer.withSpace(160 + JSONNumber.maximumLength + JSONGeometry.sizeLength + JSONGeometry.pointLength + JSONString.maximumLength(view)) { out in
            var out = JSONRaw.write(#"{"view":"#, at: out)
            out = JSONString.write(view, at: out)
            out = JSONRaw.write(#","epoch":"#, at: out)
            out = JSONNumber.write(Double(invalidation.epoch), at: out)
            out = JSONRaw.write(#","contentSize":"#, at: out)
            out = JSONGeometry.write(size: invalidation.contentSize, at: out)
            out = JSONRaw.write(#","contentOffset":"#, at: out)
            out = JSONGeometry.write(point: invalidation.contentOffset, at: out)
            out = JSONRaw.write(context.invalidatesEverything ? #","context":{"everything":true"# : #","context":{"everything":false"#, at: out)
            out = JSONRaw.write(context.invalidatesDataSourceCounts ? #","dataSourceCounts":true"# : #","dataSourceCounts":false"#, at: out)
            return JSONRaw.write(#","invalidated":"#, at: out)
        }
        write(ids: context.invalidatedItems, listed: listed, into: &writer)
        writer.withSpace(96 + JSONGeometry.sizeLength + JSONGeometry.pointLength + JSONGeometry.rectLength) { out in
            var out = JSONRaw.write(#","contentSizeAdjustment":"#, at: out)
            out = JSONGeometry.write(size: context.contentSizeAdjustment, at: out)
            out = JSONRaw.write(#","contentOffsetAdjustment":"#, at: out)
            out = JSONGeometry.write(point: context.contentOffsetAdjustment, at: out)
            out = JSONRaw.write(#"},"window":"#, at: out)
            out = JSONGeometry.write(rect: invalidation.window, at: out)
            return JSONRaw.write(#","entered":"#, at: out)
        }
        write(invalidation.entered, into: &writer)
        writer.write(raw: #","changed":"#)
        write(invalidation.changed, into: &writer)
        writer.write(raw: #","left":["#)
        for (index, key) in invalidation.left.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: ",")) }
            write(key: key, into: &writer)
        }
        writer.append(UInt8(ascii: "]"))
        if invalidation.windowTruncated { writer.write(raw: #","windowTruncated":true"#) }
        if let anchor = invalidation.anchor {
            writer.write(raw: #","anchor":"#)
            writer.write(anchor)
        }
        if let policy = invalidation.anchorPolicy {
            writer.write(raw: #","anchorPolicy":"#)
            writer.write(policy)
        }
        if let target = invalidation.targetContentOffset {
            writer.write(raw: #","targetContentOffset":"#)
            writer.write(point: target)
        }
        if let section = invalidation.section {
            writer.write(raw: #","section":{"id":"#)
            writer.write(section.id)
            writer.write(raw: #","offset":"#)
            writer.write(section.scroll.offset)
            writer.write(raw: #","maximumOffset":"#)
            writer.write(section.scroll.maximumOffset)
            writer.write(raw: #","behavior":"#)
            writer.write(section.scroll.behavior)
            writer.append(UInt8(ascii: "}"))
        }
        if let changes = invalidation.changes {
            writer.write(raw: #","changes":{"insertedItems":"#)
            write(ids: changes.insertedItems, listed: listed, into: &writer)
            writer.write(raw: #","deletedItems":"#)
            write(ids: changes.deletedItems, listed: listed, into: &writer)
            writer.write(raw: #","movedItems":"#)
            write(ids: changes.movedItems, listed: listed, into: &writer)
            writer.write(raw: #","reloadedItems":"#)
            write(ids: changes.reloadedItems, listed: listed, into: &writer)
            writer.write(raw: #","insertedSections":"#)
            write(ids: changes.insertedSections, listed: listed, into: &writer)
            writer.write(raw: #","deletedSections":"#)
            write(ids: changes.deletedSections, listed: listed, into: &writer)
            writer.write(raw: #","movedSections":"#)
            write(ids: changes.movedSections, listed: listed, into: &writer)
            writer.write(raw: #","reloadedSections":"#)
            write(ids: changes.reloadedSections, listed: listed, into: &writer)
            writer.append(UInt8(ascii: "}"))
        }
        if !listed { writeOmittedIDs(of: invalidation, into: &writer) }
        if let transition = invalidation.transition {
            writer.write(raw: #","transition":{"duration":"#)
            writer.write(transition.duration)
            writer.write(raw: #","segments":["#)
            for (index, segment) in transition.segments.enumerated() {
                if index > 0 { writer.append(UInt8(ascii: ",")) }
                write(key: segment.key, from: segment.from, to: segment.to, into: &writer)
                writer.write(raw: #","delay":"#)
                writer.write(segment.delay)
                writer.write(raw: #","duration":"#)
                writer.write(segment.duration)
                writer.write(raw: #","curve":"#)
                writer.write(segment.curve.rawValue)
                writer.append(UInt8(ascii: "}"))
            }
            writer.write(raw: "]}")
        }
        if let prefetch {
            writer.write(raw: #","prefetch":"#)
            write(ids: prefetch, into: &writer)
        }
        if let needsMeasure = invalidation.needsMeasure {
            writer.write(raw: #","needsMeasure":"#)
            write(ids: needsMeasure, into: &writer)
        }
        if let replanned = invalidation.interactiveTransition {
            writer.write(raw: #","interactiveTransition":"#)
            write(replanned: replanned, into: &writer)
        }
        if let move = invalidation.move { write(move: move, into: &writer) }
        if let ended = invalidation.moveEnded {
            writer.write(raw: #","moveEnded":{"id":"#)
            writer.write(ended.id)
            writer.write(raw: #","reason":"#)
            writer.write(ended.reason.rawValue)
            writer.append(UInt8(ascii: "}"))
        }
        if dryRun { writer.write(raw: #","dryRun":true"#) }
        writer.append(UInt8(ascii: "}"))
    }

    /// `,"moving":id,"movingItems":[...]?,"target":{...},"autoScroll":{...}`: the move in force,
    /// in an invalidation or a snapshot; `movingItems` only when more than the named item moves
    /// (a collapsible stack), so a plain drag's reply stays as small as it was.
    static func write(move: MoveReport, into writer: inout JSONWriter) {
        writer.write(raw: #","moving":"#)
        writer.write(move.id)
        if move.items.count > 1 {
            writer.write(raw: #","movingItems":"#)
            write(ids: move.items, into: &writer)
        }
        writer.write(raw: #","target":"#)
        write(position: move.target, into: &writer)
        writer.write(raw: #","autoScroll":"#)
        writer.write(point: move.autoScroll)
    }

    /// `{"kind":k,"id":i,"from":{...},"to":{...}` (left open): a transition segment's or an
    /// interactive transition pair's start.
    static func write(key: ElementKey, from: LayoutAttributes, to: LayoutAttributes, into writer: inout JSONWriter) {
        writer.write(raw: #"{"kind":"#)
        writer.write(key.kind.rawValue)
        writer.write(raw: #","id":"#)
        writer.write(key.id)
        writer.write(raw: #","from":"#)
        writer.write(wire(from))
        writer.write(raw: #","to":"#)
        writer.write(wire(to))
    }

    /// `{"section":s,"item":i}`.
    static func write(position: ItemIndexPath, into writer: inout JSONWriter) {
        writer.write(raw: #"{"section":"#)
        writer.write(Double(position.section))
        writer.write(raw: #","item":"#)
        writer.write(Double(position.item))
        writer.append(UInt8(ascii: "}"))
    }

    /// `["a","b"]`.
    static func write(ids: [String], into writer: inout JSONWriter) {
        writer.append(UInt8(ascii: "["))
        for (index, id) in ids.enumerated() {
            if index > 0 { writer.append(UInt8(ascii: ",")) }
            writer.write(id)
        }
        writer.append(UInt8(ascii: "]"))
    }

    /// `{"kind","id"}`, as `key(_:)` writes it.
    static func write(key: ElementKey, into writer: inout JSONWriter) {
        let kind = key.kind.rawValue
        writer.withSpace(16 + JSONString.maximumLength(kind) + JSONString.maximumLength(key.id)) { out in
            var out = JSONRaw.write(#"{"kind":"#, at: out)
            out = JSONString.write(kind, at: out)
            out = JSONRaw.write(#","id":"#, at: out)
            out = JSONString.write(key.id, at: out)
            return JSONRaw.write("}", at: out)
        }
    }

    /// The view's state with the elements of its window (what `view.create`, `view.get`,
    /// `view.subscribe` and `view.resync` carry), written directly; `windowTruncated: true`
    /// only when the window was cut to `maximumWindowElements` (absent otherwise, so snapshots
    /// of windows that fit read as they always did).
    static func encodedSnapshot(_ view: View, name: String) -> [UInt8] {
        let contents = view.windowContents()
        var writer = JSONWriter(capacity: 1024 + 192 * contents.elements.count)
        write(snapshotOf: view, contents: contents, name: name, into: &writer)
        return writer.finish()
    }

    static func write(snapshotOf view: View, contents: WindowContents, name: String, into writer: inout JSONWriter) {
        writer.write(raw: #"{"view":"#)
        writer.write(name)
        writer.write(raw: #","strategy":"#)
        writer.write(view.strategyName)
        writer.write(raw: #","params":"#)
        writer.write(StrategyJSON.parameters(view.parameters))
        writer.write(raw: #","epoch":"#)
        writer.write(Double(view.epoch))
        writer.write(raw: #","viewport":"#)
        write(viewport: view.viewport, into: &writer)
        writer.write(raw: #","windowMargin":"#)
        writer.write(view.windowMargin)
        writer.write(raw: #","window":"#)
        writer.write(rect: view.window)
        writer.write(raw: #","contentSize":"#)
        writer.write(size: view.layout.contentSize)
        writer.write(raw: #","sectionCount":"#)
        writer.write(Double(view.model.numberOfSections))
        writer.write(raw: #","itemCount":"#)
        writer.write(Double(view.model.numberOfItems))
        writer.write(raw: #","elements":"#)
        write(contents.elements, into: &writer)
        if contents.isTruncated { writer.write(raw: #","windowTruncated":true"#) }
        // Present only when set, so snapshots of views that never chose read as they did.
        if view.anchorPolicy != .firstVisible {
            writer.write(raw: #","anchor":"#)
            writer.write(wire(view.anchorPolicy).json)
        }
        if let target = view.scrollTarget {
            writer.write(raw: #","scrollTarget":"#)
            writer.write(wire(target).json)
        }
        if view.layoutDirection == .rtl { writer.write(raw: #","layoutDirection":"rtl""#) }
        if let plan = view.transitionPlan {
            // Present only while an interactive transition is in progress.
            writer.write(raw: #","interactiveTransition":{"#)
            writeFields(of: plan, into: &writer)
            writer.append(UInt8(ascii: "}"))
        }
        if let move = view.moveState.activeMove {
            // A client that starts mid-drag (a subscription, a resync) learns of the move here.
            write(move: MoveReport(move), into: &writer)
        }
        writer.append(UInt8(ascii: "}"))
    }

    /// The viewport as snapshots and exports write it: `{width, height, offset, contentInsets}`,
    /// then the margins only when set (most views never use them; compositional sections do).
    static func write(viewport: Viewport, into writer: inout JSONWriter) {
        writer.write(raw: #"{"width":"#)
        writer.write(viewport.size.width)
        writer.write(raw: #","height":"#)
        writer.write(viewport.size.height)
        writer.write(raw: #","offset":"#)
        writer.write(point: viewport.offset)
        writer.write(raw: #","contentInsets":"#)
        writer.write(insets: viewport.contentInsets)
        if viewport.safeAreaInsets != .zero {
            writer.write(raw: #","safeAreaInsets":"#)
            writer.write(insets: viewport.safeAreaInsets)
        }
        if viewport.layoutMargins != .zero {
            writer.write(raw: #","layoutMargins":"#)
            writer.write(insets: viewport.layoutMargins)
        }
        if let readable = viewport.readableWidth {
            writer.write(raw: #","readableWidth":"#)
            writer.write(readable)
        }
        writer.append(UInt8(ascii: "}"))
    }

    /// An element key as `left` and the `view.query` cursor write it: `{kind, id}`.
    static func key(_ reader: inout ParamsReader) throws(WireError) -> ElementKey {
        let kindName = try reader.string("kind")
        guard WireAnchor.isKindName(kindName) else {
            throw .invalidParams("\(reader.path).kind", "must be an element kind name of 1 to 64 bytes")
        }
        let kind = ElementKind(rawValue: kindName)
        let id = try reader.string("id")
        try reader.finish()
        return ElementKey(kind: kind, id: id)
    }

    // MARK: Anchors

    static func anchor(_ wire: WireAnchor) -> AnchorPolicy {
        switch wire {
        case .firstVisible: .firstVisible
        case .lastVisible: .lastVisible
        case .end: .end
        case .none: .none
        case .element(let kind, let id, let edge, let offset):
            // The edge was checked against the engine's (`WireAnchor.edges`); any kind may be named.
            .element(ElementKey(kind: ElementKind(rawValue: kind), id: id), edge: AnchorEdge(rawValue: edge)!, offset: offset)
        }
    }

    static func wire(_ policy: AnchorPolicy) -> WireAnchor {
        switch policy {
        case .firstVisible: .firstVisible
        case .lastVisible: .lastVisible
        case .end: .end
        case .none: .none
        case .element(let key, let edge, let offset): .element(kind: key.kind.rawValue, id: key.id, edge: edge.rawValue, offset: offset)
        }
    }
}

extension MutationOptions {
    /// The request's anchor as the engine takes it.
    var policy: AnchorPolicy? { anchor.map(WireMapping.anchor) }
}
