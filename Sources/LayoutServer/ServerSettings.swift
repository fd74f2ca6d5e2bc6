/// The daemon's tunable limits: defaults, then the configuration file, then command-line
/// flags. `daemon.reload` (and SIGHUP) re-reads the file; connection settings apply to new
/// lines and connections at once, service settings (views, items, batch) at the next start.
public struct ServerSettings: Hashable, Sendable {
    /// Longest request line in bytes; a longer one is refused with `LineTooLong` and closes the
    /// connection.
    public var maximumLineLength = 1 << 20
    public var maximumConnections = 1024
    public var maximumConnectionsPerUID = 256
    /// Unsent bytes a connection may hold before its subscriptions coalesce into `view.resync`
    /// and its input is paused.
    public var outputCap = 8 << 20
    /// A partial line that makes no progress for this long closes the connection.
    public var partialLineTimeout: Double = 5
    /// A connection with unsent output that makes no write progress for this long is dropped.
    public var writeStallTimeout: Double = 10
    /// How long a stopping daemon waits for replies to drain.
    public var shutdownDeadline: Double = 5
    /// Decoded requests a connection may have queued before its input is paused.
    public var maximumQueuedRequests = 1024
    /// Bytes of queued request lines at which a connection's input is paused.
    public var maximumQueuedBytes = 4 << 20
    public var maximumViews = 256
    public var maximumItemsPerView = 2_000_000
    /// All views together: the bound on memory (about 200 bytes an item).
    public var maximumTotalItems = 5_000_000
    public var maximumBatchSize = 100_000
    /// Where strategy plugins are loaded from, in order: `plugin-dir` lines of the file, then
    /// `--plugin-dir` flags, then the default directory.
    public var pluginDirectories: [String] = []
    /// The directory under the install prefix (`<prefix>/lib/layoutd/plugins`); `nil` when
    /// turned off (`default-plugin-dir = none`).
    public var defaultPluginDirectory: String?

    public init() {}

    /// Every plugin directory, the default last.
    public var allPluginDirectories: [String] { pluginDirectories + (defaultPluginDirectory.map { [$0] } ?? []) }

    /// Settings that are lists or paths rather than numbers.
    static let pathKeys = ["plugin-dir", "default-plugin-dir"]

    /// The settings a configuration file and flags may name, with how to read and write them.
    /// (Key paths are immutable but not declared Sendable.)
    nonisolated(unsafe) public static let keys: [(name: String, path: WritableKeyPath<ServerSettings, Int>?, seconds: WritableKeyPath<ServerSettings, Double>?, restart: Bool)] = [
        ("max-line-length", \.maximumLineLength, nil, false),
        ("max-connections", \.maximumConnections, nil, false),
        ("max-connections-per-uid", \.maximumConnectionsPerUID, nil, false),
        ("output-cap", \.outputCap, nil, false),
        ("partial-line-timeout", nil, \.partialLineTimeout, false),
        ("write-stall-timeout", nil, \.writeStallTimeout, false),
        ("shutdown-deadline", nil, \.shutdownDeadline, false),
        ("max-queued-requests", \.maximumQueuedRequests, nil, false),
        ("max-queued-bytes", \.maximumQueuedBytes, nil, false),
        ("max-views", \.maximumViews, nil, true),
        ("max-items", \.maximumItemsPerView, nil, true),
        ("max-total-items", \.maximumTotalItems, nil, true),
        ("max-batch", \.maximumBatchSize, nil, true),
    ]

    /// Sets one named setting from text.
    ///
    /// - Throws: a sentence naming the setting when the name is unknown or the value is not a
    ///   positive number.
    public mutating func set(_ name: String, to text: String) throws(SettingsError) {
        switch name {
        case "plugin-dir":
            guard !text.isEmpty else { throw SettingsError("plugin-dir needs a directory") }
            pluginDirectories.append(text)
            return
        case "default-plugin-dir":
            defaultPluginDirectory = text == "none" || text.isEmpty ? nil : text
            return
        default: break
        }
        guard let key = Self.keys.first(where: { $0.name == name }) else { throw SettingsError("unknown setting '\(name)'") }
        if let path = key.path {
            guard let value = Int(text), value > 0 else { throw SettingsError("\(name) must be a positive integer, not '\(text)'") }
            self[keyPath: path] = value
        } else if let path = key.seconds {
            guard let value = Double(text), value.isFinite, value > 0 else { throw SettingsError("\(name) must be a positive number of seconds, not '\(text)'") }
            self[keyPath: path] = value
        }
    }

    /// The value of a named setting as text.
    public func value(of name: String) -> String? {
        switch name {
        case "plugin-dir": return pluginDirectories.joined(separator: ":")
        case "default-plugin-dir": return defaultPluginDirectory ?? "none"
        default: break
        }
        guard let key = Self.keys.first(where: { $0.name == name }) else { return nil }
        if let path = key.path { return String(self[keyPath: path]) }
        if let path = key.seconds { return String(self[keyPath: path]) }
        return nil
    }

    /// Applies a configuration file's text: `name = value` lines, `#` comments, blank lines.
    public mutating func apply(configuration text: String, file: String) throws(SettingsError) {
        for (number, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty { continue }
            let parts = trimmed.split(separator: "=", maxSplits: 1).map { String($0).trimmingSpaces }
            guard parts.count == 2, !parts[0].isEmpty else { throw SettingsError("\(file):\(number + 1): expected 'name = value'") }
            do {
                try set(parts[0], to: parts[1])
            } catch {
                throw SettingsError("\(file):\(number + 1): \(error.message)")
            }
        }
    }

    /// Names of the settings whose values differ.
    public func changes(from other: ServerSettings) -> [String] {
        (Self.keys.map(\.name) + Self.pathKeys).filter { value(of: $0) != other.value(of: $0) }
    }
}

public struct SettingsError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension String {
    var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
