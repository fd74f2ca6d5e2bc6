import LayoutEngine
import LayoutGeometry
import LayoutProtocol
@testable import LayoutService
import StrategyCodec
import Testing

/// The direct writers must produce exactly the bytes of the `JSONValue` trees the daemon once
/// built (kept here, and only here, as the oracle: `mutations.md`'s invalidation and
/// `views.md`'s snapshot written field by field through the general writer); the published
/// transcripts compare replies byte for byte too.
@Suite("direct encoding of replies")
struct EncodingTests {
    @Test("invalidations written directly equal the reference tree written, and parse back to it", arguments: ["flow", "collapsible", "ultravisual", "display"])
    func invalidations(strategy: String) throws {
        let items: [ItemSpec] = (0..<300).map { (index: Int) -> ItemSpec in
            let size = Size(width: Double(40 + index % 97) + 0.5, height: Double(30 + index % 61))
            return ItemSpec(id: "item-\(index)", size: size)
        }
        let view = try View(
            strategy: strategy, sections: [SectionSpec(id: "main", items: items), SectionSpec(id: "more", items: [ItemSpec(id: "x \"quoted\" é")])],
            viewport: Viewport(size: Size(width: 390, height: 844)), windowMargin: 120)
        var invalidations = [Invalidation]()
        for step in 0..<12 { invalidations.append(try view.scroll(to: Point(x: 0, y: Double(step) * 133.25))) }
        invalidations.append(try view.select(["item-3", "item-4", "item-5"], mode: .set, animated: true))
        let batch: [BatchUpdate] = [.insertItems([ItemSpec(id: "new")], section: "main", at: 2), .deleteItems(["item-9"])]
        invalidations.append(try view.performBatch(batch, animated: true))
        invalidations.append(try view.measure([("item-20", Size(width: 77.25, height: 91))], animated: true))
        invalidations.append(try view.resize(to: Size(width: 500, height: 700), animated: true))
        invalidations.append(try view.scrollEnd(proposed: Point(x: 0, y: 900), velocity: Point(x: 0, y: 300)))
        let listMode: [String: ParameterValue] = ["mode": .string("list")]
        invalidations.append(try view.scrollTo(ElementKey(kind: .cell, id: "item-150"), align: .center))
        invalidations.append(try view.measure([("item-148", Size(width: 70, height: 70))], anchor: .lastVisible))
        invalidations.append(try view.beginMove("item-150"))
        invalidations.append(try view.updateMove(to: Point(x: 10, y: 830)))
        invalidations.append(try view.endMove(commit: true))
        invalidations.append(try view.switchStrategy(to: "display", parameters: listMode, animated: true))
        var checked = 0
        for invalidation in invalidations {
            let reference = Self.reference(invalidation, view: "v \"1\"")
            let expected = JSONWriter.encode(reference)
            let actual = WireMapping.encodedInvalidation(invalidation, view: "v \"1\"", listedIDBytes: { 1 << 20 })
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(try JSONParser.parse(actual) == reference)
            var appended = JSONWriter(appendingTo: Array("[1,".utf8))
            WireMapping.write(invalidation, view: "v \"1\"", dryRun: true, listedIDBytes: { 1 << 20 }, into: &appended)
            #expect(appended.finish() == Array("[1,".utf8) + actual.dropLast() + Array(#","dryRun":true}"#.utf8))
            checked += invalidation.entered.count + invalidation.changed.count + (invalidation.transition?.segments.count ?? 0)
        }
        #expect(checked > 40, "the comparison covered elements and transition segments")
    }

    @Test("ids up to the line cap are listed; one byte more and every list is empty and counted in omittedIDs")
    func idListsAreBounded() throws {
        let items = (0..<10).map { ItemSpec(id: "item-\($0)") }  // 6 bytes each
        let sections = [SectionSpec(id: "s", items: items)]
        let viewport = Viewport(size: Size(width: 320, height: 200))
        let replaced = try View(strategy: "flow", sections: [SectionSpec(id: "old", items: [ItemSpec(id: "gone")])], viewport: viewport)
        let change = try replaced.replaceData(sections)
        // The ids of `changes`: 10 inserted × 6 + "gone" + sections "s" and "old" = 60 + 4 + 1 + 3.
        let exact = 68
        let listed = try JSONParser.parse(WireMapping.encodedInvalidation(change, view: "v", listedIDBytes: { exact }))
        #expect(listed["changes"]?["insertedItems"]?.arrayValue?.count == 10)
        #expect(listed["context"]?["invalidated"]?.arrayValue?.count == 11)
        #expect(listed["omittedIDs"] == nil)
        let cut = try JSONParser.parse(WireMapping.encodedInvalidation(change, view: "v", listedIDBytes: { exact - 1 }))
        let lists = ["insertedItems", "deletedItems", "movedItems", "reloadedItems", "insertedSections", "deletedSections", "movedSections", "reloadedSections"]
        for key in lists { #expect(cut["changes"]?[key]?.arrayValue?.isEmpty == true, "\(key)") }
        #expect(cut["context"]?["invalidated"]?.arrayValue?.isEmpty == true)
        let counts: JSONObject = [
            "invalidated": .number(11), "insertedItems": .number(10), "deletedItems": .number(1), "movedItems": .number(0),
            "reloadedItems": .number(0), "insertedSections": .number(1), "deletedSections": .number(1), "movedSections": .number(0),
            "reloadedSections": .number(0),
        ]
        #expect(cut["omittedIDs"] == .object(counts))
        // Everything but the lists is the same bytes: the window delta a mirror applies is whole.
        #expect(cut["entered"] == listed["entered"] && cut["contentSize"] == listed["contentSize"] && cut["epoch"] == listed["epoch"])

        // A mutation without `changes` (a selection cleared) is bounded by `context.invalidated`.
        let selected = try View(strategy: "flow", sections: sections, viewport: viewport)
        try selected.select(items.map(\.id), mode: .set)
        let cleared = try JSONParser.parse(WireMapping.encodedInvalidation(try selected.select([], mode: .set), view: "v", listedIDBytes: { 59 }))
        #expect(cleared["context"]?["invalidated"]?.arrayValue?.isEmpty == true)
        #expect(cleared["omittedIDs"] == .object(["invalidated": .number(10)]))
        #expect(cleared["changes"] == nil)
    }

    @Test("snapshots written directly equal the snapshot tree written", arguments: ["flow", "collapsible", "ultravisual", "display"])
    func snapshots(strategy: String) throws {
        let items = (0..<200).map { ItemSpec(id: "i\($0)", size: Size(width: 50 + Double($0 % 7) * 0.25, height: 40)) }
        let view = try View(
            strategy: strategy, sections: [SectionSpec(id: "s", items: items)],
            viewport: Viewport(size: Size(width: 390.5, height: 844), offset: Point(x: 0, y: 120.75), contentInsets: EdgeInsets(top: 1, left: 2, bottom: 3.5, right: 4)),
            windowMargin: 60.5, limits: ViewLimits(maximumWindowElements: 5))
        for step in 0..<5 {
            if step == 4 {
                try view.beginMove("i95")
                try view.updateMove(to: Point(x: 20, y: 830))
            }
            if step == 1 { try view.setAnchor(.element(ElementKey(kind: .cell, id: "i40"), edge: .center, offset: 12.5)) }
            if step == 2 { try view.scrollTo(ElementKey(kind: .cell, id: "i90"), align: .end) }
            if step == 3 { try view.setLayoutDirection(.rtl) }
            let expected = JSONWriter.encode(Self.snapshotReference(view, name: "snap\n"))
            let actual = WireMapping.encodedSnapshot(view, name: "snap\n")
            #expect(String(decoding: actual, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
            #expect(String(decoding: actual, as: UTF8.self).contains(#""windowTruncated":true"#))
        }
    }

    @Test("a reply's envelope is written around its result in one buffer")
    func envelope() {
        let result = Array(#"{"a":[1,2.5]}"#.utf8)
        for id in [RequestID.number(7), .number(-3), .number(1_000_000_000_000_001), .string("x\"y")] {
            let expected = JSONWriter.encode(.object(["id": id.json, "result": try! JSONParser.parse(result)])) + [0x0A]
            #expect(Envelope.result(id: id, encoded: result) == expected)
            #expect(Envelope.result(id: id) { $0.write(encoded: result) } == expected)
        }
    }

    @Test("attributes with transforms and effects take the general path for those fields")
    func attributes() {
        let plain = WireAttributes(id: "a", kind: "cell", section: 1, item: nil, frame: Rect(x: 0.5, y: -2, width: 1e-3, height: 123_456_789))
        var transformed = plain
        transformed.transform = Transform2D(a: 1.5, b: 0, c: 0, d: 1.5, tx: 3, ty: -4)
        transformed.effects = ["parallax": 0.25, "coverAlpha": 0.5]
        for attributes in [plain, transformed] {
            var writer = JSONWriter()
            writer.write(attributes)
            #expect(writer.bytes == JSONWriter.encode(attributes.json))
        }
    }

    // MARK: The oracle

    static func key(_ key: ElementKey) -> JSONValue { .object(["kind": .string(key.kind.rawValue), "id": .string(key.id)]) }

    static func changes(_ changes: DataChanges) -> JSONValue {
        func ids(_ list: [String]) -> JSONValue { .array(list.map { .string($0) }) }
        return .object([
            "insertedItems": ids(changes.insertedItems), "deletedItems": ids(changes.deletedItems),
            "movedItems": ids(changes.movedItems), "reloadedItems": ids(changes.reloadedItems),
            "insertedSections": ids(changes.insertedSections), "deletedSections": ids(changes.deletedSections),
            "movedSections": ids(changes.movedSections), "reloadedSections": ids(changes.reloadedSections),
        ])
    }

    static func transition(_ transition: Transition) -> JSONValue {
        .object([
            "duration": .number(transition.duration),
            "segments": .array(transition.segments.map { segment in
                .object([
                    "kind": .string(segment.key.kind.rawValue), "id": .string(segment.key.id),
                    "from": WireMapping.attributes(segment.from), "to": WireMapping.attributes(segment.to),
                    "delay": .number(segment.delay), "duration": .number(segment.duration),
                    "curve": .string(segment.curve.rawValue),
                ])
            }),
        ])
    }

    /// The invalidation as `mutations.md` lists its fields, in order.
    static func reference(_ invalidation: Invalidation, view: String) -> JSONValue {
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
            "entered": .array(invalidation.entered.map(WireMapping.attributes)),
            "changed": .array(invalidation.changed.map(WireMapping.attributes)),
            "left": .array(invalidation.left.map(key)),
        ]
        if invalidation.windowTruncated { object["windowTruncated"] = .bool(true) }
        if let anchor = invalidation.anchor { object["anchor"] = .string(anchor) }
        if let policy = invalidation.anchorPolicy { object["anchorPolicy"] = .string(policy) }
        if let target = invalidation.targetContentOffset { object["targetContentOffset"] = .point(target) }
        if let changes = invalidation.changes { object["changes"] = Self.changes(changes) }
        if let transition = invalidation.transition { object["transition"] = Self.transition(transition) }
        if let ids = invalidation.needsMeasure { object["needsMeasure"] = .array(ids.map { .string($0) }) }
        if let move = invalidation.move {
            object["moving"] = .string(move.id)
            object["target"] = .object(["section": .number(Double(move.target.section)), "item": .number(Double(move.target.item))])
            object["autoScroll"] = .point(move.autoScroll)
        }
        if let ended = invalidation.moveEnded {
            object["moveEnded"] = .object(["id": .string(ended.id), "reason": .string(ended.reason.rawValue)])
        }
        return .object(object)
    }

    /// The snapshot as `views.md` lists its fields, in order (`windowTruncated` only when the
    /// window was cut).
    static func snapshotReference(_ view: View, name: String) -> JSONValue {
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
            "elements": .array(contents.elements.map(WireMapping.attributes)),
        ]
        if contents.isTruncated { object["windowTruncated"] = .bool(true) }
        if view.anchorPolicy != .firstVisible { object["anchor"] = WireMapping.wire(view.anchorPolicy).json }
        if let target = view.scrollTarget { object["scrollTarget"] = WireMapping.wire(target).json }
        if view.layoutDirection == .rtl { object["layoutDirection"] = .string("rtl") }
        if let move = view.moveState.activeMove {
            object["moving"] = .string(move.id)
            object["target"] = .object(["section": .number(Double(move.target.section)), "item": .number(Double(move.target.item))])
            object["autoScroll"] = .point(move.autoScroll)
        }
        return .object(object)
    }
}
