import LayoutGeometry

/// An item as the wire carries it: `{"id", "size"?, "estimatedSize"?, "selectedSize"?}`, the
/// engine's own `ItemSpec` (decoded once, handed to the engine as it is).
public typealias WireItem = ItemSpec

extension WireItem {
    /// The item as a request carries it: `id`, then the sizes it has.
    public var json: JSONValue {
        var object: JSONObject = ["id": .string(id)]
        if let size { object["size"] = .size(size) }
        if let estimatedSize { object["estimatedSize"] = .size(estimatedSize) }
        if let selectedSize { object["selectedSize"] = .size(selectedSize) }
        return .object(object)
    }

    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireItem {
        let item = try readFields(&reader)
        try reader.finish()
        return item
    }

    /// The item's fields, leaving others for the caller to read (an export's item has more).
    public static func readFields(_ reader: inout ParamsReader) throws(WireError) -> WireItem {
        WireItem(
            id: try reader.string("id"), size: try reader.optionalSize("size"),
            estimatedSize: try reader.optionalSize("estimatedSize"), selectedSize: try reader.optionalSize("selectedSize"))
    }
}

/// A section as the wire carries it: `{"id", "items": [...], "headerSize"?, "footerSize"?}`.
public struct WireSection: Hashable, Sendable {
    public var id: String
    public var items: [WireItem]
    public var headerSize: Size?
    public var footerSize: Size?

    public init(id: String, items: [WireItem], headerSize: Size? = nil, footerSize: Size? = nil) {
        self.id = id
        self.items = items
        self.headerSize = headerSize
        self.footerSize = footerSize
    }

    /// The section as a request carries it: `id`, `items`, then the sizes it has.
    public var json: JSONValue {
        var object: JSONObject = ["id": .string(id), "items": .array(items.map(\.json))]
        if let headerSize { object["headerSize"] = .size(headerSize) }
        if let footerSize { object["footerSize"] = .size(footerSize) }
        return .object(object)
    }

    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireSection {
        let id = try reader.string("id")
        let items = try WireModel.items(&reader, "items")
        let section = WireSection(
            id: id, items: items, headerSize: try reader.optionalSize("headerSize"),
            footerSize: try reader.optionalSize("footerSize"))
        try reader.finish()
        return section
    }
}

/// One change of a batch: `{"op": "insertItems", "section": "s", "at": 0, "items": [...]}`,
/// `{"op": "deleteItems", "ids": [...]}`, `{"op": "moveItem", "id", "section", "at"}`,
/// `{"op": "reloadItems", "items": [...]}`, `{"op": "insertSections", "at", "sections": [...]}`,
/// `{"op": "deleteSections", "ids": [...]}`, `{"op": "moveSection", "id", "at"}`,
/// `{"op": "reloadSections", "sections": [...]}`. Positions are final positions.
public enum WireUpdate: Hashable, Sendable {
    case insertItems([WireItem], section: String, at: Int)
    case deleteItems([String])
    case moveItem(String, toSection: String, at: Int)
    case reloadItems([WireItem])
    case insertSections([WireSection], at: Int)
    case deleteSections([String])
    case moveSection(String, to: Int)
    case reloadSections([WireSection])

    public static let operations = [
        "insertItems", "deleteItems", "moveItem", "reloadItems", "insertSections", "deleteSections", "moveSection",
        "reloadSections",
    ]

    /// The change as a batch carries it: `op` first, then its fields in the schema's order.
    public var json: JSONValue {
        func ids(_ ids: [String]) -> JSONValue { .array(ids.map(JSONValue.string)) }
        return switch self {
        case .insertItems(let items, let section, let at):
            .object(["op": .string("insertItems"), "section": .string(section), "at": .number(Double(at)), "items": .array(items.map(\.json))])
        case .deleteItems(let list): .object(["op": .string("deleteItems"), "ids": ids(list)])
        case .moveItem(let id, let section, let at):
            .object(["op": .string("moveItem"), "id": .string(id), "section": .string(section), "at": .number(Double(at))])
        case .reloadItems(let items): .object(["op": .string("reloadItems"), "items": .array(items.map(\.json))])
        case .insertSections(let sections, let at):
            .object(["op": .string("insertSections"), "at": .number(Double(at)), "sections": .array(sections.map(\.json))])
        case .deleteSections(let list): .object(["op": .string("deleteSections"), "ids": ids(list)])
        case .moveSection(let id, let at): .object(["op": .string("moveSection"), "id": .string(id), "at": .number(Double(at))])
        case .reloadSections(let sections): .object(["op": .string("reloadSections"), "sections": .array(sections.map(\.json))])
        }
    }

    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireUpdate {
        let op = try reader.string("op")
        let update: WireUpdate
        switch op {
        case "insertItems":
            update = .insertItems(try WireModel.items(&reader, "items"), section: try reader.string("section"), at: try reader.integer("at"))
        case "deleteItems": update = .deleteItems(try reader.stringArray("ids"))
        case "moveItem":
            update = .moveItem(try reader.string("id"), toSection: try reader.string("section"), at: try reader.integer("at"))
        case "reloadItems": update = .reloadItems(try WireModel.items(&reader, "items"))
        case "insertSections": update = .insertSections(try WireModel.sections(&reader, "sections"), at: try reader.integer("at"))
        case "deleteSections": update = .deleteSections(try reader.stringArray("ids"))
        case "moveSection": update = .moveSection(try reader.string("id"), to: try reader.integer("at"))
        case "reloadSections": update = .reloadSections(try WireModel.sections(&reader, "sections"))
        default:
            throw .invalidParams("\(reader.path).op", "must be one of \(operations.joined(separator: ", "))")
        }
        try reader.finish()
        return update
    }
}

/// Readers for lists of wire values.
public enum WireModel {
    /// Reads straight from the parsed values while every item has the usual shape, without a
    /// reader (and its error paths) per item: a `view.create` of a million items spends most
    /// of its time here otherwise. The first item that does not goes to the readers, which
    /// refuse it with the same error as always.
    public static func items(_ reader: inout ParamsReader, _ key: String) throws(WireError) -> [WireItem] {
        if case .array(let elements)? = reader.optionalValue(key) {
            var items = [WireItem]()
            items.reserveCapacity(elements.count)
            for element in elements {
                guard let item = plainItem(element) else { break }
                items.append(item)
            }
            if items.count == elements.count { return items }
        }
        var items = [WireItem]()
        for var element in try reader.objects(key) { items.append(try WireItem.read(&element)) }
        return items
    }

    /// The item `value` holds if it is an object of known fields with valid values (what
    /// `WireItem.read` accepts), else nil.
    static func plainItem(_ value: JSONValue) -> WireItem? {
        guard case .object(let object) = value else { return nil }
        var item = WireItem(id: "")
        var hasID = false
        for (key, value) in object.pairs {
            switch key {
            case "id":
                guard case .string(let id) = value else { return nil }
                item.id = id
                hasID = true
            case "size": guard plainSize(value, into: &item.size) else { return nil }
            case "estimatedSize": guard plainSize(value, into: &item.estimatedSize) else { return nil }
            case "selectedSize": guard plainSize(value, into: &item.selectedSize) else { return nil }
            default: return nil
            }
        }
        return hasID ? item : nil
    }

    /// Reads an optional `{"width", "height"}` (null is absent, as for `optionalSize`);
    /// false for anything `optionalSize` refuses.
    private static func plainSize(_ value: JSONValue, into size: inout Size?) -> Bool {
        if case .null = value { return true }
        guard case .object(let object) = value, object.count == 2 else { return false }
        var width: Double?
        var height: Double?
        for (key, value) in object.pairs {
            guard case .number(let number) = value else { return false }
            switch key {
            case "width": width = number
            case "height": height = number
            default: return false
            }
        }
        guard let width, let height else { return false }
        size = Size(width: width, height: height)
        return true
    }

    public static func sections(_ reader: inout ParamsReader, _ key: String) throws(WireError) -> [WireSection] {
        if let decoded = reader.takeDecodedSections(key) { return decoded }
        var sections = [WireSection]()
        for var element in try reader.objects(key) { sections.append(try WireSection.read(&element)) }
        return sections
    }

    public static func updates(_ reader: inout ParamsReader, _ key: String) throws(WireError) -> [WireUpdate] {
        var updates = [WireUpdate]()
        for var element in try reader.objects(key) { updates.append(try WireUpdate.read(&element)) }
        return updates
    }
}
