import LayoutEngine
import LayoutGeometry
import LayoutProtocol

/// Strategy descriptors and parameter values as JSON: what `strategy.list` publishes, what a
/// plugin declares in `descriptor_json`, and the parameters a plugin instance is created from.
/// One codec for all three, so a plugin's declaration reads back exactly as clients see it.
public enum StrategyJSON {
    /// A strategy parameter from JSON: numbers, bools, strings and null map directly,
    /// `{width, height}` is a size and `{top, left, bottom, right}` insets, any other object or
    /// array a structure (a layout description). The strategy's description then checks the kind.
    public static func parameter(_ value: JSONValue, path: String) throws(WireError) -> ParameterValue {
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .object(let object):
            let keys = Set(object.keys)
            if keys == ["width", "height"], let width = object["width"]?.numberValue, let height = object["height"]?.numberValue {
                return .size(Size(width: width, height: height))
            }
            if !keys.isEmpty, keys.isSubset(of: ["top", "left", "bottom", "right"]), keys.allSatisfy({ object[$0]?.numberValue != nil }) {
                return .insets(
                    EdgeInsets(
                        top: object["top"]?.numberValue ?? 0, left: object["left"]?.numberValue ?? 0,
                        bottom: object["bottom"]?.numberValue ?? 0, right: object["right"]?.numberValue ?? 0))
            }
            return .tree(tree(value))
        case .array: return .tree(tree(value))
        }
    }

    /// Any JSON value as a structured parameter (`ParameterKind.structure`); the strategy's
    /// description checks its shape.
    public static func tree(_ value: JSONValue) -> ParameterTree {
        switch value {
        case .null: .null
        case .bool(let flag): .bool(flag)
        case .number(let number): .number(number)
        case .string(let text): .string(text)
        case .array(let values): .array(values.map(tree))
        case .object(let object):
            .object(Dictionary(object.pairs.map { ($0.0, tree($0.1)) }, uniquingKeysWith: { _, last in last }))
        }
    }

    /// A structured parameter as JSON, keys sorted.
    public static func json(_ tree: ParameterTree) -> JSONValue {
        switch tree {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return .number(number)
        case .string(let text): return .string(text)
        case .array(let values): return .array(values.map(json))
        case .object(let fields):
            var object = JSONObject()
            for key in fields.keys.sorted() { object[key] = json(fields[key]!) }
            return .object(object)
        }
    }

    public static func parameterValue(_ value: ParameterValue) -> JSONValue {
        switch value {
        case .number(let number): .number(number)
        case .integer(let integer): .number(Double(integer))
        case .bool(let flag): .bool(flag)
        case .string(let text): .string(text)
        case .size(let size): JSONValue.size(size)
        case .insets(let insets): JSONValue.insets(insets)
        case .tree(let tree): json(tree)
        case .null: .null
        }
    }

    /// Every parameter's value, keys sorted: what a plugin's `create` receives.
    public static func parameters(_ parameters: ResolvedParameters) -> JSONValue {
        var object = JSONObject()
        for name in parameters.values.keys.sorted() { object[name] = parameterValue(parameters.values[name]!) }
        return .object(object)
    }

    /// Reads `parameters(_:)` back and resolves it against `descriptor`.
    ///
    /// - Throws: a sentence when the text is not such an object or a value does not fit.
    public static func resolvedParameters(_ text: String, for descriptor: StrategyDescriptor) throws(StrategyJSONError) -> ResolvedParameters {
        guard let object = (try? JSONParser.parse(text))?.objectValue else {
            throw StrategyJSONError("parameters are not a JSON object")
        }
        var values = [String: ParameterValue]()
        do {
            for (key, value) in object.pairs { values[key] = try parameter(value, path: key) }
            return try descriptor.resolve(values)
        } catch let error as WireError {
            throw StrategyJSONError(error.message)
        } catch let error as LayoutError {
            throw StrategyJSONError(error.message)
        } catch {
            throw StrategyJSONError("\(error)")
        }
    }

    /// Keys in this order: name, summary, parameters (each: name, type, default, summary, then
    /// choices or minimum/maximum).
    public static func descriptor(_ descriptor: StrategyDescriptor) -> JSONValue { .object(descriptorObject(descriptor)) }

    /// `descriptor(_:)` as an object, for callers that add fields (`strategy.list`'s origin).
    public static func descriptorObject(_ descriptor: StrategyDescriptor) -> JSONObject {
        [
            "name": .string(descriptor.name), "summary": .string(descriptor.summary),
            "parameters": .array(descriptor.parameters.map { parameter in
                var object: JSONObject = [
                    "name": .string(parameter.name), "type": .string(parameter.kind.typeName),
                    "default": parameterValue(parameter.defaultValue), "summary": .string(parameter.summary),
                ]
                switch parameter.kind {
                case .choice(let options): object["choices"] = .array(options.map { .string($0) })
                case .number(let minimum, let maximum):
                    if let minimum { object["minimum"] = .number(minimum) }
                    if let maximum { object["maximum"] = .number(maximum) }
                case .integer(let minimum, let maximum):
                    if let minimum { object["minimum"] = .number(Double(minimum)) }
                    if let maximum { object["maximum"] = .number(Double(maximum)) }
                default: break
                }
                return .object(object)
            }),
        ]
    }

    /// A descriptor from its JSON (a plugin's declaration), checked as strictly as the engine
    /// checks its own: a valid name, distinct parameter names, known types, and defaults that
    /// are valid values of their kind.
    ///
    /// - Throws: a sentence saying what is wrong.
    public static func descriptor(from text: String) throws(StrategyJSONError) -> StrategyDescriptor {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw StrategyJSONError("descriptor is not valid JSON: \(error)")
        }
        guard let object = json.objectValue else { throw StrategyJSONError("descriptor is not a JSON object") }
        guard let name = object["name"]?.stringValue, isValidName(name) else {
            throw StrategyJSONError("descriptor needs a name of 1 to 64 letters, digits, '-', '_' or '.'")
        }
        guard let summary = object["summary"]?.stringValue else { throw StrategyJSONError("descriptor needs a summary string") }
        guard let list = object["parameters"]?.arrayValue else { throw StrategyJSONError("descriptor needs a parameters array") }
        var parameters = [ParameterDescription]()
        for (index, entry) in list.enumerated() {
            let parameter = try parameterDescription(entry, at: index)
            guard !parameters.contains(where: { $0.name == parameter.name }) else {
                throw StrategyJSONError("parameter '\(parameter.name)' is declared twice")
            }
            parameters.append(parameter)
        }
        return StrategyDescriptor(name: name, summary: summary, parameters: parameters)
    }

    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic && $0.isASCII || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0) }
    }

    private static func parameterDescription(_ json: JSONValue, at index: Int) throws(StrategyJSONError) -> ParameterDescription {
        guard let object = json.objectValue, let name = object["name"]?.stringValue, isValidName(name) else {
            throw StrategyJSONError("parameter \(index) needs a name of 1 to 64 letters, digits, '-', '_' or '.'")
        }
        func fail(_ reason: String) -> StrategyJSONError { StrategyJSONError("parameter '\(name)': \(reason)") }
        guard let type = object["type"]?.stringValue else { throw fail("needs a type") }
        let minimum = object["minimum"]?.numberValue
        let maximum = object["maximum"]?.numberValue
        let kind: ParameterKind
        switch type {
        case "number": kind = .number(minimum: minimum, maximum: maximum)
        case "integer":
            func whole(_ value: Double?) throws(StrategyJSONError) -> Int? {
                guard let value else { return nil }
                guard value == value.rounded(), abs(value) < 1e15 else { throw fail("integer bounds must be whole numbers") }
                return Int(value)
            }
            kind = .integer(minimum: try whole(minimum), maximum: try whole(maximum))
        case "bool": kind = .bool
        case "choice":
            guard let choices = object["choices"]?.arrayValue?.compactMap(\.stringValue), !choices.isEmpty,
                choices.count == object["choices"]?.arrayValue?.count
            else { throw fail("a choice needs a non-empty choices array of strings") }
            kind = .choice(choices)
        case "size": kind = .size
        case "size?": kind = .optionalSize
        case "insets": kind = .insets
        case "object": kind = .structure
        default: throw fail("unknown type '\(type)'")
        }
        guard let defaultJSON = object["default"] else { throw fail("needs a default") }
        let defaultValue: ParameterValue
        do {
            defaultValue = try ParameterDescription(name, kind, default: .null, "").validate(parameter(defaultJSON, path: name))
        } catch let error as WireError {
            throw fail("default: \(error.message)")
        } catch let error as LayoutError {
            throw fail("default: \(error.message)")
        } catch {
            throw fail("default: \(error)")
        }
        return ParameterDescription(name, kind, default: defaultValue, object["summary"]?.stringValue ?? "")
    }
}

/// Why a descriptor or a parameter object could not be read: one sentence.
public struct StrategyJSONError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
