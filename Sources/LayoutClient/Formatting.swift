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

/// Compact numbers for tables: integers without a fraction, others as Swift prints them.
public func formatNumber(_ value: JSONValue?) -> String {
    guard let value else { return "-" }
    if case .number(let number) = value {
        return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : String(number)
    }
    if case .string(let text) = value { return text }
    return JSONWriter.string(value)
}

/// `x,y,width,height` as a frame column.
public func formatFrame(_ value: JSONValue?) -> String {
    guard let value else { return "-" }
    return ["x", "y", "width", "height"].map { formatNumber(value[$0]) }.joined(separator: ",")
}

/// Reads command-line values into JSON.
public enum ValueText {
    /// `name=value`: numbers, true/false, null, `WxH` sizes, `top,left,bottom,right` insets,
    /// JSON objects or arrays written out, else a string.
    public static func parameter(_ text: String) -> (name: String, value: JSONValue)? {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
        return (String(text[..<equals]), value(String(text[text.index(after: equals)...])))
    }

    public static func value(_ text: String) -> JSONValue {
        if let number = Double(text), number.isFinite, !text.hasPrefix("+"), text.lowercased() != "inf" { return .number(number) }
        switch text {
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "null": return .null
        default: break
        }
        if let size = size(text) { return .size(size) }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).compactMap { Double($0) }
        if parts.count == 4, text.split(separator: ",", omittingEmptySubsequences: false).count == 4 {
            return .object(["top": .number(parts[0]), "left": .number(parts[1]), "bottom": .number(parts[2]), "right": .number(parts[3])])
        }
        if text.hasPrefix("{") || text.hasPrefix("["), let json = try? JSONParser.parse(Array(text.utf8)) { return json }
        return .string(text)
    }

    /// `WxH` (`100x100`, `320x44.5`).
    public static func size(_ text: String) -> Size? {
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Double(parts[0]), let height = Double(parts[1]) else { return nil }
        return Size(width: width, height: height)
    }

    /// `x,y,width,height`.
    public static func rect(_ text: String) -> JSONValue? {
        let parts = text.split(separator: ",").compactMap { Double($0) }
        guard parts.count == 4, text.split(separator: ",").count == 4 else { return nil }
        return .object(["x": .number(parts[0]), "y": .number(parts[1]), "width": .number(parts[2]), "height": .number(parts[3])])
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
