/// A parsed command line: the command to run and what was given for it.
public struct Invocation: Sendable {
    public var command: Command
    public var positional: [String] = []
    /// Each command option's values by its long name, in the order given.
    public var values: [String: [String]] = [:]
    public var socket: String?
    public var timeout = 30.0
    public var json = false
    public var pretty = false
    public var table = false
    public var quiet = false

    public init(command: Command) { self.command = command }

    /// The option's last value.
    public func value(_ name: String) -> String? { values[name]?.last }
    public func has(_ name: String) -> Bool { values[name] != nil }
}

/// What a command line asks for before any command runs.
public enum ParsedCommandLine: Sendable {
    case run(Invocation)
    /// `--version`.
    case version
    /// `--help`: layoutctl's overview (nil) or one command's help.
    case help(Command?)
    /// `--print-socket-path`, with `--socket`'s value if given.
    case socketPath(String?)
    /// No command: the overview goes to stderr and the exit status is 64.
    case noCommand
    /// A usage error (exit 64), with the command it concerns when one was named.
    case usage(String, Command?)
}

extension CommandCatalog {
    /// Reads the command line in one pass: global options anywhere, a command's options after
    /// the command, `--` ends the options (every later word is positional, `-x` too). An option
    /// with a value takes `--name VALUE` or `--name=VALUE`; a flag takes none (`--json=yes` is
    /// refused). A word that is a decimal number (`-5`) is positional, never an option.
    public func parse(_ arguments: [String]) -> ParsedCommandLine {
        guard let help = command(named: "help") else { return .usage("no help command", nil) }
        var invocation = Invocation(command: help)
        var command: Command?
        var printSocketPath = false
        var onlyPositional = false
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            let isOption = !onlyPositional && argument.hasPrefix("-") && argument != "-" && ValueText.number(argument) == nil
            if !isOption {
                if command != nil {
                    invocation.positional.append(argument)
                } else {
                    guard let named = self.command(named: argument) else { return .usage("unknown command '\(argument)'", nil) }
                    command = named
                }
                continue
            }
            if argument == "--" {
                onlyPositional = true
                continue
            }
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func matches(_ option: CommandOption) -> Bool { option.name == name || option.short == name }
            guard let option = command?.options.first(where: matches) ?? globalOptions.first(where: matches) else {
                if let command { return .usage("\(command.name) has no option \(name)", command) }
                let isCommandOption = commands.contains { $0.options.contains(where: matches) }
                return .usage("unknown option \(name)" + (isCommandOption ? " (a command's options go after the command)" : ""), nil)
            }
            var value = ""
            if let placeholder = option.argument {
                if let inline {
                    value = inline
                } else {
                    guard index < arguments.count else { return .usage("\(name) needs \(placeholder)", command) }
                    value = arguments[index]
                    index += 1
                }
            } else if inline != nil {
                return .usage("\(option.name) takes no value, not '\(argument)'", command)
            }
            switch option.name {
            case "--socket": invocation.socket = value
            case "--timeout":
                guard let seconds = ValueText.number(value), seconds > 0 else { return .usage("--timeout needs seconds, not '\(value)'", nil) }
                invocation.timeout = seconds
            case "--json": invocation.json = true
            case "--pretty": invocation.pretty = true
            case "--table": invocation.table = true
            case "--quiet": invocation.quiet = true
            case "--print-socket-path": printSocketPath = true
            case "--version": return .version
            case "--help": return .help(command)
            default:
                if !option.repeatable, invocation.values[option.name] != nil { return .usage("\(name) given twice", command) }
                invocation.values[option.name, default: []].append(value)
            }
        }
        if printSocketPath { return .socketPath(invocation.socket) }
        guard let command else { return .noCommand }
        invocation.command = command
        return .run(invocation)
    }
}
