/// An anchor policy as the wire carries it (protocol/mutations.md, "Anchors"): a name
/// (`"firstVisible"`, `"lastVisible"`, `"end"`, `"none"`) or an element's edge,
/// `{"id", "kind"?: an element kind such as cell, header, footer or a layout's own (default cell), "edge"?: start|center|end (default
/// start), "offset"?: points from the viewport's leading edge (default: where it is now)}`.
public enum WireAnchor: Hashable, Sendable {
    case firstVisible, lastVisible, end, none
    case element(kind: String, id: String, edge: String, offset: Double?)

    static let names: [String: WireAnchor] = ["firstVisible": .firstVisible, "lastVisible": .lastVisible, "end": .end, "none": .none]
    /// Whether `name` can name an element kind on the wire: 1 to 64 bytes. Which kinds exist is
    /// the layout's answer (cell, header, footer, and the kinds a compositional description
    /// names); an unknown one is an element that is not there (`ElementNotFound`).
    public static func isKindName(_ name: String) -> Bool { !name.isEmpty && name.utf8.count <= 64 }
    public static let edges = ["start", "center", "end"]

    /// The policy a name stands for, if it names one.
    public init?(name: String) {
        guard let policy = Self.names[name] else { return nil }
        self = policy
    }

    /// Reads an optional `anchor` field (`null` is absent).
    public static func read(_ reader: inout ParamsReader, _ key: String = "anchor") throws(WireError) -> WireAnchor? {
        let path = "\(reader.path).\(key)"
        guard let value = reader.optionalValue(key) else { return nil }
        if let name = value.stringValue {
            guard let policy = WireAnchor(name: name) else {
                throw .invalidParams(path, "must be firstVisible, lastVisible, end, none or {id, kind?, edge?, offset?}")
            }
            return policy
        }
        guard case .object(let object) = value else { throw .invalidParams(path, "must be a policy name or an object") }
        var element = ParamsReader(object, path: path)
        let id = try element.string("id")
        let kind = try element.optionalString("kind") ?? "cell"
        let edge = try element.optionalString("edge") ?? "start"
        let offset = try element.optionalNumber("offset")
        try element.finish()
        guard isKindName(kind) else { throw .invalidParams("\(path).kind", "must be an element kind name of 1 to 64 bytes") }
        guard edges.contains(edge) else { throw .invalidParams("\(path).edge", "must be start, center or end") }
        return .element(kind: kind, id: id, edge: edge, offset: offset)
    }

    public var json: JSONValue {
        switch self {
        case .firstVisible: .string("firstVisible")
        case .lastVisible: .string("lastVisible")
        case .end: .string("end")
        case .none: .string("none")
        case .element(let kind, let id, let edge, let offset):
            .object(["id": .string(id), "kind": .string(kind), "edge": .string(edge), "offset": offset.map(JSONValue.number) ?? .null])
        }
    }
}
