/// The settings as documentation shows them: default, range and meaning, from `ServerSettings.keys`
/// and `ServerSettings.pathKeys`, for layoutd.conf(5) and the settings table in docs/running.md.
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
            + pathKeys.map { SettingRow(name: $0.name, defaultText: $0.defaultText, rangeText: "", summary: $0.summary, readAtStartOnly: $0.restart) }
    }

    /// The settings table of docs/running.md (Markdown), checked against that page by
    /// `ServerSettingsDocumentationTests` so the page says what the code does.
    public static var markdownTable: String {
        func line(_ cells: [String]) -> String { "|" + cells.map { $0.isEmpty ? " |" : " \($0) |" }.joined() + "\n" }
        return line(["setting", "default", "range", "meaning"]) + "|---|---|---|---|\n"
            + documentation.map { line(["`\($0.name)`", $0.defaultText, $0.rangeText, $0.meaning]) }.joined()
    }
}

extension ServerSettings {
    /// The commented default configuration `make install` ships (`systemd/layoutd.conf`), from
    /// the same tables: every setting with its meaning and range, its line commented out and
    /// holding the default. `ServerSettingsDocumentationTests` checks the file is this text.
    public static var defaultConfiguration: String {
        var text = """
            # layoutd settings: 'name = value' lines; '#' starts a comment. Re-read on
            # `systemctl reload layoutd` (SIGHUP, or `layoutctl reload`); a setting marked "read at
            # start only" takes effect at the next start. See layoutd.conf(5).
            # Every line below is commented out and holds the default.


            """
        for key in keys {
            text += comment("\(key.summary) (\(key.rangeText)\(key.restart ? "; read at start only" : ""))")
            text += "# \(key.name) = \(key.defaultText)\n\n"
        }
        for (index, key) in pathKeys.enumerated() {
            text += comment("\(key.name): \(key.summary) (default: \(key.defaultText))")
            text += "# \(key.name) = \(key.example)\n" + (index < pathKeys.count - 1 ? "\n" : "")
        }
        return text
    }

    /// `summary` as `#` lines of at most 90 columns, without the Markdown backticks.
    static func comment(_ summary: String) -> String {
        var lines = [String]()
        var line = "#"
        for word in summary.filter({ $0 != "`" }).split(separator: " ") {
            if line.count + 1 + word.count > 90, line != "#" {
                lines.append(line)
                line = "#"
            }
            line += " " + word
        }
        lines.append(line)
        return lines.joined(separator: "\n") + "\n"
    }
}
