import LayoutGeometry
import LayoutProtocol

/// JSON for people: two-space indentation, keys in the daemon's order.
public enum PrettyJSON {
    public static func string(_ value: JSONValue, indent: Int = 0) -> String {
        let pad = String(repeating: "  ", count: indent)
        let inner = String(repeating: "  ", count: indent + 1)
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else { return "[]" }
            return "[\n" + elements.map { inner + string($0, indent: indent + 1) }.joined(separator: ",\n") + "\n" + pad + "]"
        case .object(let object):
            guard object.count > 0 else { return "{}" }
            return "{\n" + object.pairs.map { inner + JSONWriter.string(.string($0.key)) + ": " + string($0.value, indent: indent + 1) }
                .joined(separator: ",\n") + "\n" + pad + "}"
        default:
            return JSONWriter.string(value)
        }
    }
}

/// Aligned columns for a terminal: numbers right-aligned, text left-aligned, a header line.
public struct Table {
    public var columns: [String]
    public var rows: [[String]]

    public init(columns: [String], rows: [[String]]) {
        self.columns = columns
        self.rows = rows
    }

    public func render() -> String {
        var widths = columns.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], cell.count) }
        }
        let numeric = columns.indices.map { column in
            !rows.isEmpty && rows.allSatisfy { row in column < row.count && (Double(row[column]) != nil || row[column] == "-") }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                let padding = String(repeating: " ", count: max(0, widths[index] - cell.count))
                return numeric[index] ? padding + cell : cell + padding
            }.joined(separator: "  ").trimmingTrailingSpaces
        }
        return ([line(columns)] + rows.map(line)).joined(separator: "\n") + "\n"
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// Numbers for people: at most three decimals, trailing zeros trimmed (`33.3333333` → `33.333`,
/// `2.50` → `2.5`, `-0.0001` → `0`), integers without a fraction. Tables only: JSON output keeps
/// the daemon's full precision.
public func formatNumber(_ value: JSONValue?) -> String {
    guard let value else { return "-" }
    if case .number(let number) = value { return formatNumber(number) }
    if case .string(let text) = value { return text }
    return JSONWriter.string(value)
}

public func formatNumber(_ number: Double) -> String {
    guard number.isFinite else { return String(number) }
    // Rounded in thousandths, so the shortest decimal Swift prints has at most three places.
    let rounded = (number * 1000).rounded() / 1000
    if rounded == rounded.rounded(), abs(rounded) < 1e15 { return String(Int64(rounded)) }
    return String(rounded)
}

/// `x,y,width,height` as a frame column.
public func formatFrame(_ value: JSONValue?) -> String {
    guard let value else { return "-" }
    return ["x", "y", "width", "height"].map { formatNumber(value[$0]) }.joined(separator: ",")
}

/// Layout attributes as a table, in reading order (by section; headers, then items, then
/// footers). `alpha` is always a column; `hidden`, `transform` and `effects` only when some
/// element has a value other than the default (visible, identity, none), so a plain grid stays
/// narrow and a stack or a parallax cell shows what makes it one.
public enum ElementTable {
    public static func render(_ elements: [JSONValue], selected: Set<String> = []) -> String {
        func order(_ element: JSONValue) -> (Int, Int, Int) {
            let kind = element["kind"]?.stringValue
            return (element["section"]?.integerValue ?? 0, kind == "header" ? 0 : kind == "footer" ? 2 : 1, element["item"]?.integerValue ?? 0)
        }
        let showsHidden = elements.contains { $0["hidden"] == .bool(true) }
        let showsTransform = elements.contains { $0["transform"].map { !isIdentity($0) } ?? false }
        let showsEffects = elements.contains { element in element["effects"]?.objectValue.map { $0.count > 0 } ?? false }
        var columns = ["id", "kind", "section", "item", "frame", "z", "alpha"]
        if showsHidden { columns.append("hidden") }
        if showsTransform { columns.append("transform") }
        if showsEffects { columns.append("effects") }
        if !selected.isEmpty { columns.append("selected") }
        let rows = elements.sorted { order($0) < order($1) }.map { element in
            let id = element["id"]?.stringValue ?? ""
            var row = [
                id, element["kind"]?.stringValue ?? "", formatNumber(element["section"]), formatNumber(element["item"]),
                formatFrame(element["frame"]), formatNumber(element["zIndex"]), formatNumber(element["alpha"]),
            ]
            if showsHidden { row.append(element["hidden"] == .bool(true) ? "yes" : "") }
            if showsTransform { row.append(element["transform"].map { isIdentity($0) ? "" : formatTransform($0) } ?? "") }
            if showsEffects { row.append(element["effects"].map(formatEffects) ?? "") }
            if !selected.isEmpty { row.append(selected.contains(id) ? "yes" : "") }
            return row
        }
        return Table(columns: columns, rows: rows).render()
    }

    static let transformKeys = ["a", "b", "c", "d", "tx", "ty"]

    static func isIdentity(_ transform: JSONValue) -> Bool {
        zip(transformKeys, [1.0, 0, 0, 1, 0, 0]).allSatisfy { key, identity in (transform[key]?.numberValue ?? identity) == identity }
    }

    /// `a,b,c,d,tx,ty`, the affine matrix as the protocol names it.
    public static func formatTransform(_ transform: JSONValue) -> String {
        transformKeys.map { formatNumber(transform[$0]) }.joined(separator: ",")
    }

    /// `name=value` pairs in the daemon's order, space-separated.
    public static func formatEffects(_ effects: JSONValue) -> String {
        (effects.objectValue?.pairs ?? []).map { "\($0.key)=\(formatNumber($0.value))" }.joined(separator: " ")
    }
}

/// A value on the command line that does not read as what its parameter needs.
public struct ValueTextError: Error, Equatable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Reads command-line values into JSON.
public enum ValueText {
    /// `name=value`: numbers, true/false, null, `WxH` sizes, `top,left,bottom,right` insets,
    /// JSON objects or arrays written out, else a string. Used where the parameter's type is
    /// not known; `0x40` is a size here too, never a hex number.
    public static func parameter(_ text: String) -> (name: String, value: JSONValue)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), value(String(text[text.index(after: equals)...])))
    }

    /// `name=value` read as the parameter's type says (`types`: name → a descriptor's `type`
    /// from `strategy.list`: `size`, `size?`, `number`, `integer`, `bool`, `choice`, `insets`);
    /// a name without a type reads as `parameter(_:)` guesses.
    public static func parameter(_ text: String, types: [String: String]) throws(ValueTextError) -> (name: String, value: JSONValue) {
        guard let (name, _) = parameter(text) else { throw ValueTextError(message: "expected NAME=VALUE, not '\(text)'") }
        let raw = String(text[text.index(after: text.firstIndex(of: "=")!)...])
        guard let type = types[name] else { return (name, value(raw)) }
        guard let typed = value(raw, type: type) else {
            throw ValueTextError(message: "parameter '\(name)' is a \(type) (\(example(type))), not '\(raw)'")
        }
        return (name, typed)
    }

    public static func value(_ text: String) -> JSONValue {
        if let number = number(text) { return .number(number) }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if let size = size(text) { return .size(size) }
        if let insets = insets(text) { return insets }
        if text.hasPrefix("{") || text.hasPrefix("["), let json = try? JSONParser.parse(Array(text.utf8)) { return json }
        return .string(text)
    }

    /// `text` as a value of a descriptor's `type`; nil when it does not read as one. JSON
    /// written out (`{"width":1,"height":2}`) passes for a size or insets.
    public static func value(_ text: String, type: String) -> JSONValue? {
        switch type {
        case "size": return size(text).map(JSONValue.size) ?? jsonObject(text)
        case "size?": return text == "null" ? .null : value(text, type: "size")
        case "number", "integer": return number(text).map(JSONValue.number)
        case "bool": return text == "true" ? .bool(true) : text == "false" ? .bool(false) : nil
        case "insets": return insets(text) ?? jsonObject(text)
        case "choice": return .string(text)
        case "object": return text.hasPrefix("{") || text.hasPrefix("[") ? try? JSONParser.parse(Array(text.utf8)) : nil
        default: return value(text)
        }
    }

    /// A decimal number as people write it (`12`, `-2.5`, `.5`, `1e3`). `Double(_:)` also reads
    /// hex (`0x40` is 64), `inf` and `nan`; none of them is a number on our command line.
    public static func number(_ text: some StringProtocol) -> Double? {
        guard isDecimal(text.utf8), let number = Double(String(text)), number.isFinite else { return nil }
        return number
    }

    /// `WxH` (`100x100`, `320x44.5`, `0x40`), each side a decimal number.
    public static func size(_ text: String) -> Size? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = number(parts[0]), let height = number(parts[1]) else { return nil }
        return Size(width: width, height: height)
    }

    /// `top,left,bottom,right`.
    public static func insets(_ text: String) -> JSONValue? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { number($0) }
        guard parts.count == 4, numbers.count == 4 else { return nil }
        return .object(["top": .number(numbers[0]), "left": .number(numbers[1]), "bottom": .number(numbers[2]), "right": .number(numbers[3])])
    }

    /// `x,y,width,height`.
    public static func rect(_ text: String) -> JSONValue? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { number($0) }
        guard parts.count == 4, numbers.count == 4 else { return nil }
        return .object(["x": .number(numbers[0]), "y": .number(numbers[1]), "width": .number(numbers[2]), "height": .number(numbers[3])])
    }

    /// `x,y` (an offset, a velocity).
    public static func point(_ text: String) -> (x: Double, y: Double)? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        let numbers = parts.compactMap { number($0) }
        guard parts.count == 2, numbers.count == 2 else { return nil }
        return (numbers[0], numbers[1])
    }

    // MARK: Private helpers

    /// `-`? digits with an optional fraction (or a fraction alone), an optional exponent.
    private static func isDecimal(_ bytes: some Collection<UInt8>) -> Bool {
        var rest = bytes[...]
        func digits() -> Int {
            var count = 0
            while let byte = rest.first, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                rest = rest.dropFirst()
                count += 1
            }
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        var count = digits()
        if rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            count += digits()
        }
        guard count > 0 else { return false }
        if let byte = rest.first, byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if let sign = rest.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") { rest = rest.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return rest.isEmpty
    }

    private static func jsonObject(_ text: String) -> JSONValue? {
        guard text.hasPrefix("{"), let json = try? JSONParser.parse(Array(text.utf8)), case .object = json else { return nil }
        return json
    }

    private static func example(_ type: String) -> String {
        switch type {
        case "size": "WxH, e.g. 100x100 or 0x40"
        case "size?": "WxH or null"
        case "number", "integer": "a decimal number"
        case "bool": "true or false"
        case "insets": "top,left,bottom,right"
        case "object": "JSON, e.g. '{\"list\":{\"appearance\":\"plain\"}}'"
        default: type
        }
    }
}

extension JSONValue {
    /// `{"x","y","width","height"}` read back into a rect.
    public var rectValue: Rect? {
        guard let x = self["x"]?.numberValue, let y = self["y"]?.numberValue, let width = self["width"]?.numberValue,
            let height = self["height"]?.numberValue
        else { return nil }
        return Rect(x: x, y: y, width: width, height: height)
    }
}
