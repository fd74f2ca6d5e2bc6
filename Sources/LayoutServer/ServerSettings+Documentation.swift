/// The settings as documentation shows them: default, range and meaning, from `ServerSettings.keys`
/// and `ServerSettings.pathKeys`, for layoutd.conf(5) and the README's settings table.
extension SettingKey {
    /// The default as a configuration file would write it: `5`, not `5.0`.
    public var defaultText: String {
        switch storage {
        case .integer(let path): String(ServerSettings()[keyPath: path])
        case .seconds(let path): Self.number(ServerSettings()[keyPath: path])
        }
    }

    /// `256 … 2^30`, `0.01 … 86400 s`: large powers of two as powers, so the bounds read at a
    /// glance.
    public var rangeText: String {
        switch storage {
        case .integer: "\(Self.number(range.lowerBound)) … \(Self.power(range.upperBound))"
        case .seconds: "\(Self.number(range.lowerBound)) … \(Self.number(range.upperBound)) s"
        }
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func power(_ value: Double) -> String {
        let integer = Int(value)
        guard integer > 65536, integer & (integer - 1) == 0 else { return number(value) }
        return "2^\(integer.trailingZeroBitCount)"
    }
}

extension ServerSettings {
    /// One row of the settings documentation, numeric or path.
    public struct SettingRow: Sendable, Equatable {
        public var name: String
        public var defaultText: String
        /// Empty for the path settings.
        public var rangeText: String
        public var summary: String
        public var readAtStartOnly: Bool

        /// The summary, with "read at start only" for the settings a reload leaves alone.
        public var meaning: String { readAtStartOnly ? summary + "; read at start only" : summary }
    }

    /// Every setting in the documented order: the numeric ones, then the directories.
    public static var documentation: [SettingRow] {
        keys.map { SettingRow(name: $0.name, defaultText: $0.defaultText, rangeText: $0.rangeText, summary: $0.summary, readAtStartOnly: $0.restart) }
            + pathKeys.map { SettingRow(name: $0.name, defaultText: $0.defaultText, rangeText: "", summary: $0.summary, readAtStartOnly: false) }
    }

    /// The README's settings table (Markdown), checked against the README by
    /// `ServerSettingsDocumentationTests` so the README says what the code does.
    public static var markdownTable: String {
        func line(_ cells: [String]) -> String { "|" + cells.map { $0.isEmpty ? " |" : " \($0) |" }.joined() + "\n" }
        return line(["setting", "default", "range", "meaning"]) + "|---|---|---|---|\n"
            + documentation.map { line(["`\($0.name)`", $0.defaultText, $0.rangeText, $0.meaning]) }.joined()
    }
}
