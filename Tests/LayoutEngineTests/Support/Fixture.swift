import Foundation
import LayoutEngine
import LayoutGeometry

/// A layout fixture: input (model, parameters, viewport, selection, measurements) and the
/// expected frames and content size. Files live in `Tests/Fixtures/<strategy>/*.json`; see
/// `Tests/Fixtures/README.md` for the format.
struct Fixture: CustomStringConvertible, Sendable {
    var file: String
    var name: String
    var strategy: String
    var parameters: [String: ParameterValue]
    var viewport: Viewport
    var sections: [SectionSpec]
    var selected: [String]
    var measurements: [(id: String, size: Size)]
    var expectedMeasured: [String]?
    var expectedContentSize: Size
    /// Expected frames by element key; `complete` says whether these are all the elements.
    var expectedFrames: [ElementKey: ExpectedElement]
    var complete: Bool
    var queries: [(rect: Rect, keys: Set<ElementKey>)]
    var transposable: Bool

    struct ExpectedElement: Sendable, Equatable {
        var frame: Rect
        var zIndex: Int?
    }

    var description: String { "\(file) (\(name))" }

    // MARK: Transposition

    /// The same fixture with the other scroll direction: every size, inset, offset and frame
    /// swaps its axes. A correct flow layout gives exactly the transposed frames.
    var transposed: Fixture {
        var copy = self
        copy.name = name + " [transposed]"
        copy.parameters = parameters.mapValues { value in
            switch value {
            case .size(let size): .size(size.transposed)
            case .insets(let insets): .insets(insets.transposed)
            case .string("vertical"): .string("horizontal")
            case .string("horizontal"): .string("vertical")
            default: value
            }
        }
        let direction = parameters["scrollDirection"] ?? .string("vertical")
        copy.parameters["scrollDirection"] = direction == .string("vertical") ? .string("horizontal") : .string("vertical")
        copy.viewport = Viewport(
            size: viewport.size.transposed, offset: viewport.offset.transposed,
            contentInsets: viewport.contentInsets.transposed)
        copy.sections = sections.map { section in
            SectionSpec(
                id: section.id,
                items: section.items.map { item in
                    ItemSpec(
                        id: item.id, size: item.size?.transposed, estimatedSize: item.estimatedSize?.transposed,
                        selectedSize: item.selectedSize?.transposed)
                },
                headerSize: section.headerSize?.transposed, footerSize: section.footerSize?.transposed)
        }
        copy.measurements = measurements.map { ($0.id, $0.size.transposed) }
        copy.expectedContentSize = expectedContentSize.transposed
        copy.expectedFrames = expectedFrames.mapValues { ExpectedElement(frame: $0.frame.transposed, zIndex: $0.zIndex) }
        copy.queries = queries.map { ($0.rect.transposed, $0.keys) }
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
        func fail(_ message: String) -> FixtureError { FixtureError(description: "\(file): \(message)") }
        self.file = file
        name = json["name"] as? String ?? file
        strategy = json["strategy"] as? String ?? String(file.split(separator: "/").first ?? "flow")
        transposable = json["transpose"] as? Bool ?? true

        var parameters = [String: ParameterValue]()
        for (key, value) in json["params"] as? [String: Any] ?? [:] {
            let kind = StrategyRegistry.builtIn.descriptor(named: strategy)?.parameter(named: key)?.kind
            parameters[key] = try Self.parameterValue(value, name: key, kind: kind, fail: fail)
        }
        self.parameters = parameters

        let viewportJSON = json["viewport"] as? [String: Any] ?? [:]
        viewport = Viewport(
            size: Size(
                width: Self.number(viewportJSON["width"]) ?? 375, height: Self.number(viewportJSON["height"]) ?? 667),
            offset: try viewportJSON["offset"].map { try Self.point($0, fail: fail) } ?? .zero,
            contentInsets: try viewportJSON["contentInsets"].map { try Self.insets($0, fail: fail) } ?? .zero)

        var sections = [SectionSpec]()
        for (index, raw) in (json["sections"] as? [[String: Any]] ?? []).enumerated() {
            let id = raw["id"] as? String ?? "s\(index)"
            var items = [ItemSpec]()
            if let count = raw["items"] as? Int {
                items = (0..<count).map { ItemSpec(id: "\(id)-\($0)") }
            } else if let list = raw["items"] as? [Any] {
                for (itemIndex, entry) in list.enumerated() {
                    if let size = entry as? [Any] {
                        items.append(ItemSpec(id: "\(id)-\(itemIndex)", size: try Self.size(size, fail: fail)))
                        continue
                    }
                    guard let item = entry as? [String: Any] else { throw fail("item \(itemIndex) of \(id)") }
                    items.append(
                        ItemSpec(
                            id: item["id"] as? String ?? "\(id)-\(itemIndex)",
                            size: try item["size"].map { try Self.size($0, fail: fail) },
                            estimatedSize: try item["estimatedSize"].map { try Self.size($0, fail: fail) },
                            selectedSize: try item["selectedSize"].map { try Self.size($0, fail: fail) }))
                }
            }
            sections.append(
                SectionSpec(
                    id: id, items: items,
                    headerSize: try raw["headerSize"].map { try Self.size($0, fail: fail) },
                    footerSize: try raw["footerSize"].map { try Self.size($0, fail: fail) }))
        }
        self.sections = sections
        selected = json["selected"] as? [String] ?? []
        measurements = try (json["measure"] as? [[String: Any]] ?? []).map { entry in
            guard let id = entry["id"] as? String, let size = entry["size"] else { throw fail("measure entry") }
            return (id, try Self.size(size, fail: fail))
        }

        guard let expected = json["expected"] as? [String: Any] else { throw fail("missing expected") }
        expectedContentSize = try Self.size(expected["contentSize"] as Any, fail: fail)
        expectedMeasured = expected["measured"] as? [String]
        complete = expected["complete"] as? Bool ?? true
        var frames = [ElementKey: ExpectedElement]()
        for (key, value) in expected["frames"] as? [String: Any] ?? [:] {
            let elementKey = try Self.elementKey(key, fail: fail)
            if let object = value as? [String: Any] {
                frames[elementKey] = ExpectedElement(
                    frame: try Self.rect(object["frame"] as Any, fail: fail), zIndex: object["zIndex"] as? Int)
            } else {
                frames[elementKey] = ExpectedElement(frame: try Self.rect(value, fail: fail), zIndex: nil)
            }
        }
        expectedFrames = frames
        queries = try (expected["queries"] as? [[String: Any]] ?? []).map { query in
            let keys = try (query["keys"] as? [String] ?? []).map { try Self.elementKey($0, fail: fail) }
            return (try Self.rect(query["rect"] as Any, fail: fail), Set(keys))
        }
    }

    // MARK: JSON helpers

    private static func number(_ value: Any?) -> Double? {
        (value as? NSNumber).map { $0.doubleValue }
    }

    private static func numbers(_ value: Any, count: Int, fail: (String) -> FixtureError) throws -> [Double] {
        guard let array = value as? [Any], array.count == count else { throw fail("expected \(count) numbers, got \(value)") }
        return try array.map { element in
            guard let number = number(element) else { throw fail("not a number: \(element)") }
            return number
        }
    }

    private static func size(_ value: Any, fail: (String) -> FixtureError) throws -> Size {
        let v = try numbers(value, count: 2, fail: fail)
        return Size(width: v[0], height: v[1])
    }

    private static func point(_ value: Any, fail: (String) -> FixtureError) throws -> Point {
        let v = try numbers(value, count: 2, fail: fail)
        return Point(x: v[0], y: v[1])
    }

    private static func rect(_ value: Any, fail: (String) -> FixtureError) throws -> Rect {
        let v = try numbers(value, count: 4, fail: fail)
        return Rect(x: v[0], y: v[1], width: v[2], height: v[3])
    }

    /// Insets as `[top, left, bottom, right]`.
    private static func insets(_ value: Any, fail: (String) -> FixtureError) throws -> EdgeInsets {
        let v = try numbers(value, count: 4, fail: fail)
        return EdgeInsets(top: v[0], left: v[1], bottom: v[2], right: v[3])
    }

    private static func elementKey(_ text: String, fail: (String) -> FixtureError) throws -> ElementKey {
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        guard parts.count == 2, let kind = ElementKind(rawValue: parts[0]) else {
            throw fail("element key must be kind:id, got \(text)")
        }
        return ElementKey(kind: kind, id: parts[1])
    }

    /// Sizes are `[w, h]`, insets `{"insets": [t, l, b, r]}`, null stays null, numbers, bools
    /// and strings map directly. Foundation on Linux reads JSON booleans as numbers, so the
    /// declared kind decides which a number is.
    private static func parameterValue(
        _ value: Any, name: String, kind: ParameterKind?, fail: (String) -> FixtureError
    ) throws -> ParameterValue {
        if value is NSNull { return .null }
        if let object = value as? [String: Any], let insets = object["insets"] {
            return .insets(try Self.insets(insets, fail: fail))
        }
        if value is [Any] { return .size(try size(value, fail: fail)) }
        if let string = value as? String { return .string(string) }
        if let number = value as? NSNumber {
            if kind == .bool { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        }
        throw fail("parameter \(name): unsupported value \(value)")
    }
}
