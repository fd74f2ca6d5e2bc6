/// A JSON value as the protocol reads and writes it.
///
/// Objects keep their keys in order, so what the daemon writes is byte-for-byte stable (the
/// published transcripts compare exact lines). Numbers are finite doubles: JSON has no NaN or
/// infinity, and integers up to 2^53 are exact.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The number as an integer, when it is one exactly.
    public var integerValue: Int? {
        guard case .number(let value) = self, value == value.rounded(), abs(value) <= 9_007_199_254_740_992 else {
            return nil
        }
        return Int(value)
    }

    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }
}

/// A JSON object with its keys in order and unique.
public struct JSONObject: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    public private(set) var pairs: [(key: String, value: JSONValue)]

    public init() { pairs = [] }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        pairs = []
        for (key, value) in elements { self[key] = value }
    }

    /// Pairs whose keys are known to be unique (the parser checked them).
    init(uniquePairs: [(key: String, value: JSONValue)]) { pairs = uniquePairs }

    public var keys: [String] { pairs.map(\.key) }

    public var count: Int { pairs.count }

    /// - Complexity: O(keys); protocol objects are small.
    public subscript(key: String) -> JSONValue? {
        get { pairs.first { $0.key == key }?.value }
        set {
            if let index = pairs.firstIndex(where: { $0.key == key }) {
                if let newValue { pairs[index].value = newValue } else { pairs.remove(at: index) }
            } else if let newValue {
                pairs.append((key, newValue))
            }
        }
    }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.pairs.count == rhs.pairs.count && zip(lhs.pairs, rhs.pairs).allSatisfy { $0.key == $1.key && $0.value == $1.value }
    }

    public func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.key)
            hasher.combine(pair.value)
        }
    }
}
