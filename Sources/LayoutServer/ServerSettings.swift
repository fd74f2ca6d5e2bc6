import LayoutService

/// The daemon's tunable limits: defaults, then the configuration file, then command-line
/// flags. `daemon.reload` (and SIGHUP) re-reads the file; connection settings apply to new
/// lines and connections at once, service settings (views, items, batch, window) at the next
/// start.
///
/// Every setting has a range (`SettingKey.range`): a value outside it is refused by name, so a
/// typo such as `partial-line-timeout = 1e-300` cannot turn a limit off or make it absurd.
/// The service's limits take their defaults from `ServiceLimits.standard` (the one place they are
/// written); the settings only name them and bound them.
public struct ServerSettings: Hashable, Sendable {
    /// Longest request line in bytes; a longer one is refused with `LineTooLong` and closes the
    /// connection.
    public var maximumLineLength = ServiceLimits.standard.maximumLineLength
    public var maximumConnections = 1024
    public var maximumConnectionsPerUID = 256
    /// Unsent bytes at which a connection stops running its queued requests, its
    /// subscriptions coalesce into `view.resync` and its input is paused.
    public var outputCap = 8 << 20
    /// Unsent bytes past which a connection is dropped with `OutputOverflow`: the absolute
    /// bound on what one connection's output holds.
    public var outputLimit = 64 << 20
    /// A partial line that makes no progress for this long closes the connection.
    public var partialLineTimeout: Double = 5
    /// However it progresses, one line must be complete this long after its first byte.
    public var partialLineDeadline: Double = 30
    /// A connection with unsent output that makes no write progress for this long is dropped.
    public var writeStallTimeout: Double = 10
    /// How long a stopping daemon waits for replies to drain.
    public var shutdownDeadline: Double = 5
    /// Decoded requests a connection may have queued before its input is paused.
    public var maximumQueuedRequests = 1024
    /// Bytes of queued request lines at which a connection's input is paused.
    public var maximumQueuedBytes = 4 << 20
    /// Subscriptions one connection may hold at once.
    public var maximumSubscriptions = ServiceLimits.standard.maximumSubscriptions
    /// A view whose queue has not answered a health probe for this long withholds the
    /// watchdog ping (a request that runs this long is taken as stuck).
    public var watchdogViewTimeout: Double = 60
    public var maximumViews = ServiceLimits.standard.maximumViews
    /// I/O threads, each with its own epoll set; 0: one per online CPU.
    public var ioThreads = 0
    public var maximumItemsPerView = ServiceLimits.standard.view.maximumItems
    /// All views together: the bound on memory (about 200 bytes an item).
    public var maximumTotalItems = ServiceLimits.standard.maximumTotalItems
    /// Items and sections one request may name. A batch must fit in a line, so the limit in
    /// effect is at most `maximumLineLength / bytesPerBatchEntry` (`effectiveBatchSize`).
    public var maximumBatchSize = ServiceLimits.standard.view.maximumBatchSize
    /// Elements a view's window (viewport plus margin) may hold: what one snapshot, delta or
    /// query page carries at most.
    public var maximumWindowElements = ServiceLimits.standard.view.maximumWindowElements
    /// Where strategy plugins are loaded from, in order: `plugin-dir` lines of the file, then
    /// `--plugin-dir` flags, then the default directory.
    public var pluginDirectories: [String] = []
    /// The directory under the install prefix (`<prefix>/lib/layoutd/plugins`); `nil` when
    /// turned off (`default-plugin-dir = none`).
    public var defaultPluginDirectory: String?
    /// Where views are saved (`StateDirectory.swift`): at stop, at reload and every
    /// `stateCheckpoint` seconds; restored at start. `nil`: not saved. Defaults to
    /// `$STATE_DIRECTORY` (systemd's `StateDirectory=`) when the daemon reads the environment.
    public var stateDirectory: String?
    /// Seconds between checkpoints of changed views: the most a SIGKILL can lose.
    public var stateCheckpoint: Double = 30
    /// 1: SIGTERM/SIGINT under a service manager hand the listener, the connections and the
    /// views to its file descriptor store (`FDSTORE=1`) instead of draining.
    public var fileDescriptorStore = 0

    public init() {}

    /// The fewest bytes one batch entry takes on the wire (`{"id":"i12345"},` is 16): a line of
    /// `maximumLineLength` bytes cannot name more entries than its length over this.
    public static let bytesPerBatchEntry = 16

    /// The batch limit in effect: `max-batch`, lowered to what one line can carry.
    public var effectiveBatchSize: Int { min(maximumBatchSize, max(1, maximumLineLength / Self.bytesPerBatchEntry)) }

    /// The settings that name directories rather than numbers, read by `set` and listed with
    /// the numeric ones in layoutd.conf(5) and docs/running.md.
    public static let pathKeys: [PathSettingKey] = [
        PathSettingKey(
            "plugin-dir", default: "none", example: "/etc/layoutd/plugins",
            "a directory of strategy plugins (repeatable; `--plugin-dir` adds more), scanned at start and on every reload"),
        PathSettingKey(
            "default-plugin-dir", default: "`<prefix>/lib/layoutd/plugins`", example: "none",
            "scanned after the others; found from the executable's path, skipped when any directory above it is group- or world-writable; `none` turns it off"),
        PathSettingKey(
            "state-dir", default: "`$STATE_DIRECTORY`", example: "/var/lib/layoutd", restart: true,
            "where every view is saved (one `VIEW.view` file of `view.export` lines each, written atomically) at SIGTERM/SIGINT, at reload and every `state-checkpoint` seconds, and restored from at start; a file that does not restore is renamed `.refused`; `none`, or no `$STATE_DIRECTORY` (systemd's `StateDirectory=`), turns it off"),
    ]

    /// Every setting a configuration file and `--set` may name, in the documented order.
    public static var names: [String] { keys.map(\.name) + pathKeys.map(\.name) }

    /// The numeric settings a configuration file and flags may name, with how to read and
    /// write them, the values they may take and what they mean (the wording layoutd.conf(5)
    /// and docs/running.md's table show).
    public static let keys: [SettingKey] = [
        SettingKey(
            "max-line-length", \.maximumLineLength, 256...(1 << 30),
            "bytes per request line; a longer one gets `LineTooLong` and the connection closes"),
        SettingKey(
            "max-connections", \.maximumConnections, 1...1 << 20,
            "connections at once; more are refused with `LimitExceeded`; the total stays 64 below the fd limit"),
        SettingKey(
            "max-connections-per-uid", \.maximumConnectionsPerUID, 1...1 << 20,
            "connections one uid may hold at once; more are refused with `LimitExceeded`"),
        SettingKey(
            "output-cap", \.outputCap, 4096...(1 << 32),
            "unsent bytes per connection at which its queued requests wait, its input pauses and its subscriptions coalesce into `view.resync`"),
        SettingKey(
            "output-limit", \.outputLimit, 65536...(1 << 40),
            "unsent bytes past which the connection gets `OutputOverflow` and is closed; at least `output-cap`"),
        SettingKey(
            "partial-line-timeout", seconds: \.partialLineTimeout, 0.01...86400,
            "seconds a partial line may make no progress (`IdleTimeout`)"),
        SettingKey(
            "partial-line-deadline", seconds: \.partialLineDeadline, 0.01...86400,
            "seconds one line may take from its first byte, however it trickles in (`IdleTimeout`)"),
        SettingKey(
            "write-stall-timeout", seconds: \.writeStallTimeout, 0.01...86400,
            "seconds a connection with unsent output may make no write progress before it is dropped"),
        SettingKey(
            "shutdown-deadline", seconds: \.shutdownDeadline, 0.01...3600,
            "seconds SIGTERM/SIGINT wait for replies to drain"),
        SettingKey(
            "state-checkpoint", seconds: \.stateCheckpoint, 0.1...86400, restart: true,
            "seconds between saves of the views that changed, with `state-dir`: the most of a view's changes a SIGKILL or crash can lose"),
        SettingKey(
            "fd-store", \.fileDescriptorStore, 0...1,
            "1: SIGTERM/SIGINT under systemd hand the listener, every connection and every view to its file descriptor store, and the next daemon carries on with them (no disconnect, one `view.resync` per subscription); 0: drain and close with `daemon.shutdown`"),
        SettingKey(
            "max-queued-requests", \.maximumQueuedRequests, 1...1 << 24,
            "pipelined requests queued per connection before its input pauses"),
        SettingKey(
            "max-queued-bytes", \.maximumQueuedBytes, 1024...(1 << 34),
            "bytes of queued request lines per connection before its input pauses"),
        SettingKey(
            "max-subscriptions", \.maximumSubscriptions, 1...1 << 24, restart: true,
            "subscriptions one connection may hold"),
        SettingKey(
            "watchdog-view-timeout", seconds: \.watchdogViewTimeout, 1...86400,
            "a view that has not answered the watchdog's probe for this long withholds the systemd watchdog ping"),
        SettingKey(
            "io-threads", \.ioThreads, 0...1024, restart: true,
            "I/O threads that read, run cheap requests and write replies, each with its own epoll set; 0 is one per online CPU"),
        SettingKey(
            "max-views", \.maximumViews, 1...1 << 24, restart: true,
            "views at once; `view.create` beyond it is refused with `LimitExceeded`"),
        SettingKey(
            "max-items", \.maximumItemsPerView, 1...1 << 30, restart: true,
            "items in one view; a request that would hold more is refused with `LimitExceeded`"),
        SettingKey(
            "max-total-items", \.maximumTotalItems, 1...1 << 34, restart: true,
            "items in all views together, the bound on memory (about 200 bytes an item); a request that would hold more is refused with `LimitExceeded`"),
        SettingKey(
            "max-batch", \.maximumBatchSize, 1...1 << 26, restart: true,
            "items and sections one request may name; in effect at most `max-line-length / 16`, so a batch always fits in a line"),
        SettingKey(
            "max-window-elements", \.maximumWindowElements, 1...1 << 24, restart: true,
            "elements one window holds: the bound on a snapshot, a delta and a `view.query` page (a larger window is cut to the elements nearest the viewport, `windowTruncated`)"),
    ]

    /// Sets one named setting from text.
    ///
    /// - Throws: a sentence naming the setting when the name is unknown or the value is not a
    ///   number in the setting's range.
    public mutating func set(_ name: String, to text: String) throws(SettingsError) {
        switch name {
        case "plugin-dir":
            guard !text.isEmpty else { throw SettingsError("plugin-dir needs a directory") }
            pluginDirectories.append(text)
            return
        case "default-plugin-dir":
            defaultPluginDirectory = text == "none" || text.isEmpty ? nil : text
            return
        case "state-dir":
            stateDirectory = text == "none" || text.isEmpty ? nil : text
            return
        default: break
        }
        guard let key = Self.keys.first(where: { $0.name == name }) else { throw SettingsError("unknown setting '\(name)'") }
        try key.set(text, in: &self)
    }

    /// The value of a named setting as text.
    public func value(of name: String) -> String? {
        switch name {
        case "plugin-dir": return pluginDirectories.joined(separator: ":")
        case "default-plugin-dir": return defaultPluginDirectory ?? "none"
        case "state-dir": return stateDirectory ?? "none"
        default: break
        }
        return Self.keys.first(where: { $0.name == name })?.text(in: self)
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

    /// Checks what single settings cannot: settings that only make sense together.
    public func validate() throws(SettingsError) {
        guard outputLimit >= outputCap else {
            throw SettingsError("output-limit (\(outputLimit)) must be at least output-cap (\(outputCap))")
        }
    }

    /// Names of the settings whose values differ.
    public func changes(from other: ServerSettings) -> [String] {
        Self.names.filter { value(of: $0) != other.value(of: $0) }
    }
}

/// One numeric setting: its name in files and flags, where it lives, its range, whether a
/// reload applies it (service limits wait for a restart), and what it means.
public struct SettingKey: Sendable {
    public enum Storage: Sendable {
        /// A count or a size in bytes.
        case integer(WritableKeyPath<ServerSettings, Int> & Sendable)
        case seconds(WritableKeyPath<ServerSettings, Double> & Sendable)
    }

    public let name: String
    public let storage: Storage
    public let range: ClosedRange<Double>
    public let restart: Bool
    /// What the value bounds and what happens at the bound; `code spans` name protocol errors
    /// and other settings.
    public let summary: String

    init(
        _ name: String, _ path: WritableKeyPath<ServerSettings, Int> & Sendable, _ range: ClosedRange<Int>, restart: Bool = false,
        _ summary: String
    ) {
        self.name = name
        storage = .integer(path)
        self.range = Double(range.lowerBound)...Double(range.upperBound)
        self.restart = restart
        self.summary = summary
    }

    init(
        _ name: String, seconds path: WritableKeyPath<ServerSettings, Double> & Sendable, _ range: ClosedRange<Double>,
        restart: Bool = false, _ summary: String
    ) {
        self.name = name
        storage = .seconds(path)
        self.range = range
        self.restart = restart
        self.summary = summary
    }

    func set(_ text: String, in settings: inout ServerSettings) throws(SettingsError) {
        switch storage {
        case .integer(let path):
            // Only a setting whose range starts at 0 (`io-threads`, where 0 means automatic)
            // takes 0.
            guard let value = Int(text), value > 0 || (value == 0 && range.lowerBound == 0) else {
                throw SettingsError("\(name) must be a \(range.lowerBound == 0 ? "non-negative" : "positive") integer, not '\(text)'")
            }
            guard range.contains(Double(value)) else {
                throw SettingsError("\(name) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound)), not \(value)")
            }
            settings[keyPath: path] = value
        case .seconds(let path):
            guard let value = Double(text), value.isFinite, value > 0 else {
                throw SettingsError("\(name) must be a positive number of seconds, not '\(text)'")
            }
            guard range.contains(value) else {
                throw SettingsError("\(name) must be between \(range.lowerBound) and \(range.upperBound) seconds, not \(text)")
            }
            settings[keyPath: path] = value
        }
    }

    func text(in settings: ServerSettings) -> String {
        switch storage {
        case .integer(let path): String(settings[keyPath: path])
        case .seconds(let path): String(settings[keyPath: path])
        }
    }

    /// Copies this setting's value from `source` (a reload keeps restart-only settings).
    func copy(from source: ServerSettings, into target: inout ServerSettings) {
        switch storage {
        case .integer(let path): target[keyPath: path] = source[keyPath: path]
        case .seconds(let path): target[keyPath: path] = source[keyPath: path]
        }
    }
}

/// A setting that names a directory: no range, and always applied by a reload.
public struct PathSettingKey: Sendable {
    public let name: String
    /// The default as documentation shows it (the real default plugin directory depends on
    /// where the executable is).
    public let defaultText: String
    /// A value the shipped configuration file shows, commented out (the default of these is
    /// no line at all, so the file shows what a line looks like).
    public let example: String
    public let summary: String
    /// Read at start only (a reload leaves it as it was).
    public let restart: Bool

    init(_ name: String, default defaultText: String, example: String, restart: Bool = false, _ summary: String) {
        self.name = name
        self.defaultText = defaultText
        self.example = example
        self.restart = restart
        self.summary = summary
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
