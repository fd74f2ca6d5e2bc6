/// What layoutd's command line asks for, filled in by `DaemonOption.all` in order.
public struct DaemonOptions: Sendable {
    /// An answer the daemon prints instead of running: it stops parsing at once, so
    /// `layoutd --version --anything` still prints the version.
    public enum Request: Sendable, Equatable {
        case help, version
        case manual(ManualPage)
    }

    public var socket: String?
    public var config: String?
    /// `--set` and `--plugin-dir` in command-line order: applied over the file.
    public var overrides: [(String, String)] = []
    public var logLevel = LogPriority.info
    public var printSocketPath = false
    public var request: Request?

    public init() {}
}

/// A command line layoutd refuses (exit 64).
public struct DaemonUsageError: Error, Sendable {
    public var message: String
    /// Whether the usage text should follow the message (for an option the daemon does not
    /// know or one missing its value: the list shows what it takes).
    public var showsUsage: Bool

    public init(_ message: String, showsUsage: Bool = false) {
        self.message = message
        self.showsUsage = showsUsage
    }
}

/// One option of layoutd: the one table behind its parser, `--help` and layoutd(8).
public struct DaemonOption: Sendable {
    /// What the help text and the man page fill in: the help shows this executable's default
    /// plugin directory, the man page the place under any prefix.
    public struct Context: Sendable {
        public var defaultPluginDirectory: String

        public init(defaultPluginDirectory: String) { self.defaultPluginDirectory = defaultPluginDirectory }
    }

    public enum Effect: Sendable {
        case flag(@Sendable (inout DaemonOptions) -> Void)
        /// Takes the next argument, or what follows `=` in `--name=VALUE`; `valueName` is its
        /// placeholder in the help.
        case value(_ valueName: String, @Sendable (inout DaemonOptions, String) throws(DaemonUsageError) -> Void)
    }

    public let name: String
    public let short: String?
    /// The help text's lines as `--help` breaks them; layoutd(8) joins them into one paragraph.
    public let summary: @Sendable (Context) -> [String]
    public let effect: Effect

    init(_ name: String, short: String? = nil, _ effect: Effect, _ summary: @escaping @Sendable (Context) -> [String]) {
        self.name = name
        self.short = short
        self.effect = effect
        self.summary = summary
    }

    public var valueName: String? {
        switch effect {
        case .flag: nil
        case .value(let valueName, _): valueName
        }
    }

    /// The option as the help's left column and the man page's tag show it: `-s, --socket PATH`.
    public var signature: String {
        (short.map { "\($0), " } ?? "") + name + (valueName.map { " \($0)" } ?? "")
    }

    /// The names `--log-level` takes.
    public static let logLevels: [(name: String, priority: LogPriority)] = [
        ("error", .error), ("warning", .warning), ("notice", .notice), ("info", .info), ("debug", .debug),
    ]

    public static let all: [DaemonOption] = [
        DaemonOption("--socket", short: "-s", .value("PATH") { options, path in options.socket = path }) { _ in
            ["listen here (else $LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock,", "/run/layoutd/ipc.sock)"]
        },
        DaemonOption("--config", short: "-c", .value("FILE") { options, path in options.config = path }) { _ in
            ["settings file: 'name = value' lines; re-read on SIGHUP and daemon.reload"]
        },
        DaemonOption("--plugin-dir", .value("DIR") { options, directory in options.overrides.append(("plugin-dir", directory)) }) {
            [
                "load strategy plugins (*.so) from DIR (repeatable; also", "'plugin-dir = DIR' lines in the file), before the default",
                $0.defaultPluginDirectory, "('default-plugin-dir = none' turns the default off)",
            ]
        },
        DaemonOption(
            "--set",
            .value("NAME=VALUE") { options, text throws(DaemonUsageError) in
                let pair = text.split(separator: "=", maxSplits: 1).map(String.init)
                guard pair.count == 2 else { throw DaemonUsageError("--set takes NAME=VALUE") }
                options.overrides.append((pair[0], pair[1]))
            }
        ) { _ in ["one setting (repeatable), over the file; names:", ServerSettings.names.joined(separator: ", ")] },
        DaemonOption(
            "--log-level",
            .value("LEVEL") { options, name throws(DaemonUsageError) in
                guard let level = logLevels.first(where: { $0.name == name }) else { throw DaemonUsageError("unknown log level '\(name)'") }
                options.logLevel = level.priority
            }
        ) { _ in ["error, warning, notice, info (default) or debug"] },
        DaemonOption("--print-socket-path", .flag { $0.printSocketPath = true }) { _ in ["print the socket path this would use and exit"] },
        DaemonOption(
            "--man",
            .value("SECTION") { options, section throws(DaemonUsageError) in
                guard let page = ManualPage(rawValue: section) else {
                    throw DaemonUsageError("--man takes 8 (layoutd) or 5 (layoutd.conf), not '\(section)'", showsUsage: true)
                }
                options.request = .manual(page)
            }
        ) { _ in ["print the man page layoutd(8) (SECTION 8) or layoutd.conf(5) (SECTION 5)", "as roff and exit"] },
        DaemonOption("--version", .flag { $0.request = .version }) { _ in ["print the version and exit"] },
        DaemonOption("--help", short: "-h", .flag { $0.request = .help }) { _ in ["print this help and exit"] },
    ]

    // MARK: Parsing and help

    /// Reads the arguments (without the program name) in order; the first `--help`,
    /// `--version` or `--man` ends the reading.
    public static func parse(_ arguments: [String]) throws(DaemonUsageError) -> DaemonOptions {
        var options = DaemonOptions()
        var index = 0
        while index < arguments.count, options.request == nil {
            let argument = arguments[index]
            index += 1
            if let option = all.first(where: { $0.name == argument || $0.short == argument }) {
                switch option.effect {
                case .flag(let apply): apply(&options)
                case .value(_, let apply):
                    guard index < arguments.count else { throw DaemonUsageError("\(argument) needs a value", showsUsage: true) }
                    try apply(&options, arguments[index])
                    index += 1
                }
                continue
            }
            // `--name=VALUE`, for the options that take a value.
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "="),
                let option = all.first(where: { $0.name == argument[..<equals] }), case .value(_, let apply) = option.effect
            {
                try apply(&options, String(argument[argument.index(after: equals)...]))
                continue
            }
            throw DaemonUsageError("unknown option '\(argument)'", showsUsage: true)
        }
        return options
    }

    /// `layoutd --help`: each option's signature, then its summary lines in a second column.
    public static func usage(_ context: Context) -> String {
        let column = 27
        var text = "usage: layoutd [options]\n\n"
        for option in all {
            let lines = option.summary(context)
            let signature = option.signature
            let padding = String(repeating: " ", count: max(1, column - signature.count))
            text += "  " + signature + padding + (lines.first ?? "") + "\n"
            for line in lines.dropFirst() { text += String(repeating: " ", count: column + 2) + line + "\n" }
        }
        return text
    }
}
