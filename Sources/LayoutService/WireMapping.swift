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

    static func item(_ wire: WireItem) -> ItemSpec {
        ItemSpec(id: wire.id, size: wire.size, estimatedSize: wire.estimatedSize, selectedSize: wire.selectedSize)
    }

    static func section(_ wire: WireSection) -> SectionSpec {
        SectionSpec(id: wire.id, items: wire.items.map(item), headerSize: wire.headerSize, footerSize: wire.footerSize)
    }

    static func update(_ wire: WireUpdate) -> BatchUpdate {
        switch wire {
        case .insertItems(let items, let section, let at): .insertItems(items.map(item), section: section, at: at)
        case .deleteItems(let ids): .deleteItems(ids)
        case .moveItem(let id, let section, let at): .moveItem(id, toSection: section, at: at)
        case .reloadItems(let items): .reloadItems(items.map(item))
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

    static func transition(_ transition: Transition) -> JSONValue {
        .object([
            "duration": .number(transition.duration),
            "segments": .array(transition.segments.map { segment in
                .object([
                    "kind": .string(segment.key.kind.rawValue), "id": .string(segment.key.id),
                    "from": attributes(segment.from), "to": attributes(segment.to),
                    "delay": .number(segment.delay), "duration": .number(segment.duration),
                ])
            }),
        ])
    }

    static func changes(_ changes: DataChanges) -> JSONValue {
        func ids(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        return .object([
            "insertedItems": ids(changes.insertedItems), "deletedItems": ids(changes.deletedItems),
            "movedItems": ids(changes.movedItems), "reloadedItems": ids(changes.reloadedItems),
            "insertedSections": ids(changes.insertedSections), "deletedSections": ids(changes.deletedSections),
            "movedSections": ids(changes.movedSections), "reloadedSections": ids(changes.reloadedSections),
        ])
    }

    static func invalidation(_ invalidation: Invalidation, view: String) -> JSONValue {
        let context = invalidation.context
        var object: JSONObject = [
            "view": .string(view), "epoch": .number(Double(invalidation.epoch)),
            "contentSize": .size(invalidation.contentSize), "contentOffset": .point(invalidation.contentOffset),
            "context": .object([
                "everything": .bool(context.invalidatesEverything), "dataSourceCounts": .bool(context.invalidatesDataSourceCounts),
                "invalidated": .array(context.invalidatedItems.map { .string($0) }),
                "contentSizeAdjustment": .size(context.contentSizeAdjustment),
                "contentOffsetAdjustment": .point(context.contentOffsetAdjustment),
            ]),
            "window": .rect(invalidation.window),
            "entered": .array(invalidation.entered.map(attributes)),
            "changed": .array(invalidation.changed.map(attributes)),
            "left": .array(invalidation.left.map(key)),
        ]
        if invalidation.windowTruncated { object["windowTruncated"] = .bool(true) }
        if let anchor = invalidation.anchor { object["anchor"] = .string(anchor) }
        if let target = invalidation.targetContentOffset { object["targetContentOffset"] = .point(target) }
        if let changes = invalidation.changes { object["changes"] = Self.changes(changes) }
        if let transition = invalidation.transition { object["transition"] = Self.transition(transition) }
        return .object(object)
    }

    /// The bytes `JSONWriter.encode(invalidation(...))` produces, written without building the
    /// tree for the elements and transition segments (the bulk of a reply).
    ///
    /// - Parameter dryRun: appends `"dryRun":true` as the last key: the result of a dry run
    ///   is the real one's bytes with only that marker added.
    static func encodedInvalidation(_ invalidation: Invalidation, view: String, dryRun: Bool = false) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024 + 160 * (invalidation.entered.count + invalidation.changed.count))
        let context = invalidation.context
        writer.append(UInt8(ascii: "{"))
        writer.writeKey("view", first: true)
        writer.write(view)
        writer.writeKey("epoch", first: false)
        writer.write(Double(invalidation.epoch))
        writer.writeKey("contentSize", first: false)
        writer.write(.size(invalidation.contentSize))
        writer.writeKey("contentOffset", first: false)
        writer.write(.point(invalidation.contentOffset))
        writer.writeKey("context", first: false)
        writer.write(.object([
            "everything": .bool(context.invalidatesEverything), "dataSourceCounts": .bool(context.invalidatesDataSourceCounts),
            "invalidated": .array(context.invalidatedItems.map { .string($0) }),
            "contentSizeAdjustment": .size(context.contentSizeAdjustment),
            "contentOffsetAdjustment": .point(context.contentOffsetAdjustment),
        ]))
        writer.writeKey("window", first: false)
        writer.write(rect: invalidation.window)
        writer.writeKey("entered", first: false)
        write(invalidation.entered, into: &writer)
        writer.writeKey("changed", first: false)
        write(invalidation.changed, into: &writer)
        writer.writeKey("left", first: false)
        writer.write(.array(invalidation.left.map(key)))
        if invalidation.windowTruncated {
            writer.writeKey("windowTruncated", first: false)
            writer.write(.bool(true))
        }
        if let anchor = invalidation.anchor {
            writer.writeKey("anchor", first: false)
            writer.write(anchor)
        }
        if let target = invalidation.targetContentOffset {
            writer.writeKey("targetContentOffset", first: false)
            writer.write(.point(target))
        }
        if let changes = invalidation.changes {
            writer.writeKey("changes", first: false)
            writer.write(Self.changes(changes))
        }
        if let transition = invalidation.transition {
            writer.writeKey("transition", first: false)
            writer.append(UInt8(ascii: "{"))
            writer.writeKey("duration", first: true)
            writer.write(transition.duration)
            writer.writeKey("segments", first: false)
            writer.append(UInt8(ascii: "["))
            for (index, segment) in transition.segments.enumerated() {
                if index > 0 { writer.append(UInt8(ascii: ",")) }
                writer.append(UInt8(ascii: "{"))
                writer.writeKey("kind", first: true)
                writer.write(segment.key.kind.rawValue)
                writer.writeKey("id", first: false)
                writer.write(segment.key.id)
                writer.writeKey("from", first: false)
                writer.write(wire(segment.from))
                writer.writeKey("to", first: false)
                writer.write(wire(segment.to))
                writer.writeKey("delay", first: false)
                writer.write(segment.delay)
                writer.writeKey("duration", first: false)
                writer.write(segment.duration)
                writer.append(UInt8(ascii: "}"))
            }
            writer.append(UInt8(ascii: "]"))
            writer.append(UInt8(ascii: "}"))
        }
        if dryRun {
            writer.writeKey("dryRun", first: false)
            writer.write(.bool(true))
        }
        writer.append(UInt8(ascii: "}"))
        return writer.bytes
    }

    /// The view's state with the elements of its window; `windowTruncated: true` only when the
    /// window was cut to `maximumWindowElements` (absent otherwise, so snapshots of windows
    /// that fit read as they always did).
    static func snapshot(_ view: View, name: String) -> JSONValue {
        let contents = view.windowContents()
        var object: JSONObject = [
            "view": .string(name), "strategy": .string(view.strategyName), "params": StrategyJSON.parameters(view.parameters),
            "epoch": .number(Double(view.epoch)),
            "viewport": .object([
                "width": .number(view.viewport.size.width), "height": .number(view.viewport.size.height),
                "offset": .point(view.viewport.offset), "contentInsets": .insets(view.viewport.contentInsets),
            ]),
            "windowMargin": .number(view.windowMargin), "window": .rect(view.window),
            "contentSize": .size(view.layout.contentSize),
            "sectionCount": .number(Double(view.model.numberOfSections)), "itemCount": .number(Double(view.model.numberOfItems)),
            "elements": .array(contents.elements.map(attributes)),
        ]
        if contents.isTruncated { object["windowTruncated"] = .bool(true) }
        return .object(object)
    }

    /// An element key as `left` and the `view.query` cursor write it: `{kind, id}`.
    static func key(_ reader: inout ParamsReader) throws(WireError) -> ElementKey {
        let kindName = try reader.string("kind")
        guard let kind = ElementKind(rawValue: kindName) else {
            throw .invalidParams("\(reader.path).kind", "must be cell, header or footer")
        }
        let id = try reader.string("id")
        try reader.finish()
        return ElementKey(kind: kind, id: id)
    }
}
