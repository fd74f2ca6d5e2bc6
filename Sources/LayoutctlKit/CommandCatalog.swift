/// What a command-line table is made of (commands, their options, examples and handlers) and
/// everything read off one: argument parsing (`CommandCatalog+Parsing.swift`), `help`, the man
/// page and the shell completions. layoutctl's table is `Sources/layoutctl/Commands.swift`.

/// What a shell completes for an option's value or a positional argument.
public enum ValueCompletion: Sendable, Hashable {
    case nothing
    case file
    /// View names, asked from the running daemon (`layoutctl __complete views`).
    case view
    /// Strategy names, plugins included, asked from the running daemon.
    case strategy
    /// layoutctl's own commands (for `help`).
    case command
    /// `NAME=VALUE` strategy parameters: the names (then a choice's values) of the strategy
    /// the line names, else of the view's (`layoutctl __complete parameters`).
    case parameter
    case words([String])

    /// `VIEW`, `STRATEGY`, `FILE`, `COMMAND`, `NAME=VALUE` and `a|b` in a command's argument
    /// synopsis.
    init(placeholder: String) {
        switch placeholder {
        case "VIEW": self = .view
        case "STRATEGY": self = .strategy
        case "FILE": self = .file
        case "COMMAND": self = .command
        case "NAME=VALUE": self = .parameter
        case _ where placeholder.contains("|"): self = .words(placeholder.split(separator: "|").map(String.init))
        default: self = .nothing
        }
    }
}

public struct CommandOption: Sendable, Hashable {
    public var name: String
    public var short: String?
    /// The value's placeholder; nil for a flag (which takes no value: `--json=yes` is refused).
    public var argument: String?
    public var summary: String
    public var repeatable = false
    public var completes: ValueCompletion

    public init(
        _ name: String, short: String? = nil, argument: String? = nil, _ summary: String, repeatable: Bool = false, completes: ValueCompletion = .nothing
    ) {
        self.name = name
        self.short = short
        self.argument = argument
        self.summary = summary
        self.repeatable = repeatable
        self.completes = completes
    }
}

public struct Command: Sendable {
    public var name: String
    public var arguments: String
    public var summary: String
    /// The protocol method it calls, when there is one.
    public var method: String?
    public var options: [CommandOption]
    public var examples: [String]
    public var details: String
    /// Exit codes of this command where they say more than layoutctl's own (`exitCodes`).
    public var exitCodes: [(code: String, meaning: String)]
    /// Carries the command out: parses its arguments further, calls, prints, exits non-zero on
    /// failure (returning is success).
    public var run: @Sendable (Invocation) -> Void

    public init(
        _ name: String, _ arguments: String = "", _ summary: String, method: String? = nil, options: [CommandOption] = [],
        examples: [String] = [], details: String = "", exitCodes: [(code: String, meaning: String)] = [],
        run: @escaping @Sendable (Invocation) -> Void
    ) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.method = method
        self.options = options
        self.examples = examples
        self.details = details
        self.exitCodes = exitCodes
        self.run = run
    }

    /// What the shell completes for each positional argument, from `arguments`
    /// (`VIEW STRATEGY [NAME=VALUE...]`): the fixed ones in order, then the one a trailing
    /// `...` repeats.
    public var positionalCompletions: (fixed: [ValueCompletion], repeating: ValueCompletion?) {
        var fixed = [ValueCompletion]()
        var repeating: ValueCompletion?
        for token in arguments.split(separator: " ") {
            var word = token.filter { $0 != "[" && $0 != "]" }
            let repeats = word.hasSuffix("...")
            if repeats { word.removeLast(3) }
            let completion = ValueCompletion(placeholder: word)
            if repeats { repeating = completion } else { fixed.append(completion) }
        }
        return (fixed, repeating)
    }
}

/// A command-line tool's table: global options, commands (in the order help lists them) and
/// hidden commands (for scripts: left out of help, the man page and the completions).
public struct CommandCatalog: Sendable {
    public let tool: String
    public let globalOptions: [CommandOption]
    public let commands: [Command]
    public let hiddenCommands: [Command]

    public init(tool: String, globalOptions: [CommandOption], commands: [Command], hiddenCommands: [Command] = []) {
        self.tool = tool
        self.globalOptions = globalOptions
        self.commands = commands
        self.hiddenCommands = hiddenCommands
    }

    public func command(named name: String) -> Command? { (commands + hiddenCommands).first { $0.name == name } }

    public static let exitCodes = [
        ("0", "success"), ("1", "could not talk to the daemon, or a bad reply"), ("2", "the daemon refused the request (the error name is printed)"),
        ("3", "no reply within the timeout"), ("64", "usage error"),
    ]

    // MARK: Help

    static func optionLine(_ option: CommandOption) -> (String, String) {
        var left = option.short.map { "\($0), \(option.name)" } ?? "    \(option.name)"
        if let argument = option.argument { left += " \(argument)" }
        return (left, option.summary + (option.repeatable ? " (repeatable)" : ""))
    }

    static func columns(_ lines: [(String, String)]) -> String {
        let width = min(34, (lines.map(\.0.count).max() ?? 0) + 2)
        return lines.map { left, right in
            let padding = left.count < width ? String(repeating: " ", count: width - left.count) : "\n" + String(repeating: " ", count: width + 2)
            return "  " + left + padding + right
        }.joined(separator: "\n") + "\n"
    }

    /// How short options combine (`parse`), said in the overview and the man page.
    static let clusterNote = "Short options combine as with getopt: -jq is -j -q, and -js PATH is -j -s PATH."

    public func overview(version: String) -> String {
        var text = "layoutctl \(version): drive layoutd, the collection-layout daemon\n\n"
        text += "usage: layoutctl [OPTIONS] COMMAND [ARGUMENTS]\n\nCommands:\n"
        text += Self.columns(commands.map { ($0.name, $0.summary) })
        text += "\nOptions:\n" + Self.columns(globalOptions.map(Self.optionLine))
        text += "\n" + Self.clusterNote + "\n"
        text += "\nExit codes: " + Self.exitCodes.map { "\($0.0) \($0.1)" }.joined(separator: "; ") + ".\n"
        text += "Run 'layoutctl help COMMAND' for a command's options and examples.\n"
        return text
    }

    public static func help(for command: Command) -> String {
        var text = "usage: layoutctl \(command.name)\(command.arguments.isEmpty ? "" : " " + command.arguments)\(command.options.isEmpty ? "" : " [OPTIONS]")\n\n"
        text += command.summary.prefix(1).uppercased() + command.summary.dropFirst()
        text += command.method.map { " (\($0))." } ?? "."
        text += "\n"
        if !command.details.isEmpty { text += "\n" + wrap(command.details, width: 78) + "\n" }
        if !command.options.isEmpty { text += "\nOptions:\n" + columns(command.options.map(optionLine)) }
        if !command.examples.isEmpty { text += "\nExamples:\n" + command.examples.map { "  " + $0 }.joined(separator: "\n") + "\n" }
        if !command.exitCodes.isEmpty { text += "\nExit codes:\n" + columns(command.exitCodes.map { ($0.code, $0.meaning) }) }
        text += "\nGlobal options (-s, --timeout, -j, --pretty, --table, -q) work with every command.\n"
        return text
    }

    static func wrap(_ text: String, width: Int) -> String {
        var lines = [String]()
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines.joined(separator: "\n")
    }

    // MARK: Man page

    /// roff for man(1), from the same table as `help`.
    public func manPage(version: String, date: String) -> String {
        func escape(_ text: String) -> String {
            text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-").replacingAll("'", with: "\\(aq")
        }
        var roff = ".TH LAYOUTCTL 1 \"\(date)\" \"layoutctl \(version)\" \"User Commands\"\n"
        roff += ".SH NAME\nlayoutctl \\- drive layoutd, the collection\\-layout daemon\n"
        roff += ".SH SYNOPSIS\n.B layoutctl\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGUMENTS\\fR]\n"
        roff += ".SH DESCRIPTION\nlayoutctl sends requests to layoutd over its Unix socket and prints the replies: tables on a terminal, compact JSON when piped.\n"
        roff += ".SH OPTIONS\n\(escape(Self.clusterNote)) A command's options go after the command.\n"
        for option in globalOptions {
            let (left, right) = Self.optionLine(option)
            roff += ".TP\n.B \(escape(left.trimmingLeadingSpaces))\n\(escape(right))\n"
        }
        roff += ".SH COMMANDS\n"
        for command in commands {
            roff += ".SS \(escape(command.name))\(command.arguments.isEmpty ? "" : " " + escape(command.arguments))\n"
            roff += escape(command.summary) + (command.method.map { " (\(escape($0)))." } ?? ".") + "\n"
            if !command.details.isEmpty { roff += ".PP\n" + escape(command.details) + "\n" }
            for option in command.options {
                let (left, right) = Self.optionLine(option)
                roff += ".TP\n.B \(escape(left.trimmingLeadingSpaces))\n\(escape(right))\n"
            }
            for example in command.examples { roff += ".PP\n.nf\n\(escape(example))\n.fi\n" }
            if !command.exitCodes.isEmpty {
                roff += ".PP\nExit status:\n"
                for (code, meaning) in command.exitCodes { roff += ".TP\n.B \(code)\n\(escape(meaning))\n" }
            }
        }
        roff += ".SH EXIT STATUS\n"
        for (code, meaning) in Self.exitCodes { roff += ".TP\n.B \(code)\n\(escape(meaning))\n" }
        for command in commands where !command.exitCodes.isEmpty {
            roff += ".PP\n\\fBlayoutctl \(escape(command.name))\\fR has its own: "
            roff += command.exitCodes.map { "\($0.code) \(escape($0.meaning))" }.joined(separator: "; ") + ".\n"
        }
        roff += ".SH ENVIRONMENT\n.TP\n.B LAYOUTD_SOCKET\nthe socket path when \\-\\-socket is not given\n.TP\n.B XDG_RUNTIME_DIR\n$XDG_RUNTIME_DIR/layoutd/ipc.sock is next in line\n"
        roff += ".SH SEE ALSO\n.BR layoutd (8),\n.BR jq (1)\n"
        return roff
    }
}

extension String {
    func replacingAll(_ target: String, with replacement: String) -> String {
        guard !target.isEmpty else { return self }
        var result = ""
        var rest = self[...]
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }

    var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }
}
