import LayoutGeometry

/// A strategy parameter's value as clients send it (the service maps JSON to these).
public enum ParameterValue: Hashable, Sendable, CustomStringConvertible {
    case number(Double)
    case integer(Int)
    case bool(Bool)
    case string(String)
    case size(Size)
    case insets(EdgeInsets)
    /// A structured value (`ParameterKind.structure`): a layout description.
    case tree(ParameterTree)
    /// No value: only valid for optional parameters (`ParameterKind.optionalSize`).
    case null

    public var description: String {
        switch self {
        case .number(let value): "\(value)"
        case .integer(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .size(let value): "\(value)"
        case .insets(let value): "\(value)"
        case .tree(let value): "\(value)"
        case .null: "null"
        }
    }
}

/// A structured parameter value: the shape of JSON (objects, arrays, numbers, strings, bools,
/// null) without its text, so the engine reads a layout description without a JSON parser.
/// The strategy that declares a `structure` parameter checks the shape (its `validate`).
public indirect enum ParameterTree: Hashable, Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([ParameterTree])
    case object([String: ParameterTree])

    public var description: String {
        switch self {
        case .null: "null"
        case .bool(let value): "\(value)"
        case .number(let value): value == value.rounded() && abs(value) < 1e15 ? "\(Int(value))" : "\(value)"
        case .string(let value): "\"\(value)\""
        case .array(let values): "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .object(let fields):
            "{" + fields.keys.sorted().map { "\"\($0)\": \(fields[$0]!)" }.joined(separator: ", ") + "}"
        }
    }
}

/// What values a parameter accepts; machine-readable so `strategy.list` and `layoutctl
/// strategies` can print it and clients can build forms from it.
public enum ParameterKind: Hashable, Sendable {
    /// A finite number in `minimum...maximum` (either bound optional), and never beyond
    /// `LayoutBounds.maximumCoordinate` in magnitude.
    case number(minimum: Double?, maximum: Double?)
    case integer(minimum: Int?, maximum: Int?)
    case bool
    /// One of a fixed set of strings.
    case choice([String])
    /// A non-negative size within `LayoutBounds.maximumCoordinate`.
    case size
    /// A size as `size`, or `null` for none.
    case optionalSize
    /// Non-negative insets within `LayoutBounds.maximumCoordinate`.
    case insets
    /// A structured value (`ParameterTree`) whose shape the strategy checks: a layout
    /// description such as compositional's sections.
    case structure

    /// A short name of the kind, for descriptions on the wire.
    public var typeName: String {
        switch self {
        case .number: "number"
        case .integer: "integer"
        case .bool: "bool"
        case .choice: "choice"
        case .size: "size"
        case .optionalSize: "size?"
        case .insets: "insets"
        case .structure: "object"
        }
    }
}

public struct ParameterDescription: Hashable, Sendable {
    public var name: String
    public var kind: ParameterKind
    public var defaultValue: ParameterValue
    public var summary: String

    public init(_ name: String, _ kind: ParameterKind, default defaultValue: ParameterValue, _ summary: String) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.summary = summary
    }

    /// The value in canonical form (integers as `.integer`, numbers as `.number`), or a thrown
    /// `invalidParameter` saying why it does not fit.
    public func validate(_ value: ParameterValue) throws(LayoutError) -> ParameterValue {
        func reject(_ reason: String) -> LayoutError { .invalidParameter(parameter: name, reason: reason) }
        switch (kind, value) {
        case (.number(let minimum, let maximum), .number(let number)):
            guard number.isFinite else { throw reject("must be a finite number") }
            // Declared bounds within the layout bound apply as they are; the layout bound
            // applies to every number, so no parameter can make a layout overflow.
            let bound = LayoutBounds.maximumCoordinate
            let lowest = max(minimum ?? -bound, -bound)
            let highest = min(maximum ?? bound, bound)
            if number < lowest { throw reject("must be at least \(LayoutBounds.describe(lowest))") }
            if number > highest { throw reject("must be at most \(LayoutBounds.describe(highest))") }
            return .number(number)
        case (.number, .integer(let integer)):
            return try validate(.number(Double(integer)))
        case (.integer(let minimum, let maximum), .integer(let integer)):
            if let minimum, integer < minimum { throw reject("must be at least \(minimum)") }
            if let maximum, integer > maximum { throw reject("must be at most \(maximum)") }
            return .integer(integer)
        case (.integer, .number(let number)):
            guard number.isFinite, number == number.rounded(), abs(number) < 1e15 else {
                throw reject("must be a whole number")
            }
            return try validate(.integer(Int(number)))
        case (.bool, .bool):
            return value
        case (.choice(let options), .string(let string)):
            guard options.contains(string) else {
                throw reject("must be one of \(options.joined(separator: ", "))")
            }
            return value
        case (.size, .size(let size)), (.optionalSize, .size(let size)):
            guard size.isValidExtent else { throw reject("width and height must be finite and not negative") }
            guard size.isValidLayoutExtent else {
                throw reject("width and height must be at most \(LayoutBounds.maximumText)")
            }
            return value
        case (.optionalSize, .null):
            return value
        case (.structure, .tree):
            return value
        // A description whose top level happens to look like a size or insets is still one.
        case (.structure, .size(let size)):
            return .tree(.object(["width": .number(size.width), "height": .number(size.height)]))
        case (.structure, .insets(let insets)):
            return .tree(.object([
                "top": .number(insets.top), "left": .number(insets.left),
                "bottom": .number(insets.bottom), "right": .number(insets.right),
            ]))
        case (.insets, .insets(let insets)):
            guard insets.isFinite, insets.isNonNegative else {
                throw reject("insets must be finite and not negative")
            }
            guard insets.isWithinLayoutBounds else { throw reject("insets must be at most \(LayoutBounds.maximumText)") }
            return value
        default:
            throw reject("expected \(kind.typeName), got \(value)")
        }
    }
}

/// A strategy's parameters after validation: every declared parameter has a value (given or
/// default) of the declared kind, so the typed getters cannot fail for declared names.
public struct ResolvedParameters: Hashable, Sendable {
    public private(set) var values: [String: ParameterValue]

    init(values: [String: ParameterValue]) {
        self.values = values
    }

    public func number(_ name: String) -> Double {
        if case .number(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared number")
    }

    public func integer(_ name: String) -> Int {
        if case .integer(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared integer")
    }

    public func bool(_ name: String) -> Bool {
        if case .bool(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared bool")
    }

    public func string(_ name: String) -> String {
        if case .string(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared choice")
    }

    /// A choice parameter as a `RawRepresentable` enum whose raw values are the choices.
    public func choice<T: RawRepresentable>(_ name: String, as type: T.Type) -> T where T.RawValue == String {
        guard let value = T(rawValue: string(name)) else {
            preconditionFailure("parameter '\(name)' has a choice the strategy does not handle")
        }
        return value
    }

    public func size(_ name: String) -> Size {
        if case .size(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared size")
    }

    public func optionalSize(_ name: String) -> Size? {
        switch values[name] {
        case .size(let value)?: return value
        case .null?: return nil
        default: preconditionFailure("parameter '\(name)' is not a declared optional size")
        }
    }

    public func insets(_ name: String) -> EdgeInsets {
        if case .insets(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not declared insets")
    }

    public func tree(_ name: String) -> ParameterTree {
        if case .tree(let value)? = values[name] { return value }
        preconditionFailure("parameter '\(name)' is not a declared structure")
    }
}

/// A strategy's name, a one-line summary and its parameters: everything a client needs to
/// choose and configure it.
public struct StrategyDescriptor: Hashable, Sendable {
    public var name: String
    public var summary: String
    public var parameters: [ParameterDescription]

    public init(name: String, summary: String, parameters: [ParameterDescription]) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
    }

    public func parameter(named name: String) -> ParameterDescription? {
        parameters.first { $0.name == name }
    }

    /// Validates `given` against the declared parameters and fills in defaults.
    ///
    /// - Parameter base: values to start from instead of the defaults (a reconfiguration
    ///   changes only the parameters it names).
    /// - Throws: `unknownParameter` or `invalidParameter` for the first offending entry, in
    ///   name order so the error is deterministic.
    public func resolve(
        _ given: [String: ParameterValue], over base: ResolvedParameters? = nil
    ) throws(LayoutError) -> ResolvedParameters {
        var values = base?.values ?? [:]
        if base == nil {
            for parameter in parameters { values[parameter.name] = parameter.defaultValue }
        }
        for name in given.keys.sorted() {
            guard let parameter = parameter(named: name) else {
                throw .unknownParameter(strategy: self.name, parameter: name)
            }
            values[name] = try parameter.validate(given[name]!)
        }
        return ResolvedParameters(values: values)
    }
}
