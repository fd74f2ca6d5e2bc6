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
    /// refused). Short options combine as getopt reads them: `-jq` is `-j -q`, and the first
    /// one in a word that takes a value ends it, taking the rest of the word (`-sPATH`,
    /// `-jsPATH`) or, when it is last, the next word (`-js PATH`). A word that is a decimal
    /// number (`-5`) is positional, never an option.
    public func parse(_ arguments: [String]) -> ParsedCommandLine {
        guard let help = command(named: "help") else { return .usage("no help command", nil) }
        var invocation = Invocation(command: help)
        var command: Command?
        var printSocketPath = false
        var onlyPositional = false
        var index = 0

        /// The option `name` (`--json`, `-j`) names for the command so far; `word` is the
        /// argument it was read from, named in the refusal when it is a cluster.
        func option(named name: String, in word: String) -> Result<CommandOption, Refusal> {
            func matches(_ option: CommandOption) -> Bool { option.name == name || option.short == name }
            if let found = command?.options.first(where: matches) ?? globalOptions.first(where: matches) { return .success(found) }
            var notes = word == name ? [] : ["in \(word)"]
            if let command { return .failure(Refusal("\(command.name) has no option \(name)" + Self.parenthesized(notes), command)) }
            if commands.contains(where: { $0.options.contains(where: matches) }) { notes.append("a command's options go after the command") }
            return .failure(Refusal("unknown option \(name)" + Self.parenthesized(notes), nil))
        }

        /// Applies one option, spelled `name`, with its value ("" for a flag); an answer that
        /// ends the parse (`--version`, `--help`, a refusal) comes back.
        func apply(_ option: CommandOption, spelled name: String, value: String) -> ParsedCommandLine? {
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
            return nil
        }

        /// The value of `option` (spelled `name`) when it is not in its word: the next word.
        func nextWord(for option: CommandOption, spelled name: String) -> Result<String, Refusal> {
            guard index < arguments.count else { return .failure(Refusal("\(name) needs \(option.argument ?? "a value")", command)) }
            index += 1
            return .success(arguments[index - 1])
        }

        /// The value `option` takes: "" for a flag, else the text `attached` to its word
        /// (`--name=V`, `-nV`) or the next word. Long and short spellings read values this one way.
        func value(of option: CommandOption, spelled name: String, attached: String?) -> Result<String, Refusal> {
            guard option.argument != nil else { return .success("") }
            if let attached { return .success(attached) }
            return nextWord(for: option, spelled: name)
        }

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
            if argument.hasPrefix("--") {
                var name = argument
                var inline: String?
                if let equals = argument.firstIndex(of: "=") {
                    name = String(argument[..<equals])
                    inline = String(argument[argument.index(after: equals)...])
                }
                let found: CommandOption
                switch option(named: name, in: argument) {
                case .success(let option): found = option
                case .failure(let refusal): return refusal.usage
                }
                if found.argument == nil, inline != nil { return .usage("\(found.name) takes no value, not '\(argument)'", command) }
                switch value(of: found, spelled: name, attached: inline) {
                case .success(let value): if let answer = apply(found, spelled: name, value: value) { return answer }
                case .failure(let refusal): return refusal.usage
                }
                continue
            }
            // A cluster of short options (one letter each, after the dash).
            var rest = argument.dropFirst()
            while let letter = rest.first {
                rest = rest.dropFirst()
                let name = "-" + String(letter)
                let found: CommandOption
                switch option(named: name, in: argument) {
                case .success(let option): found = option
                case .failure(let refusal): return refusal.usage
                }
                // An option that takes a value ends the cluster: the rest of the word is its value.
                let attached = found.argument != nil && !rest.isEmpty ? String(rest) : nil
                if attached != nil { rest = "" }
                switch value(of: found, spelled: name, attached: attached) {
                case .success(let value): if let answer = apply(found, spelled: name, value: value) { return answer }
                case .failure(let refusal): return refusal.usage
                }
            }
        }
        if printSocketPath { return .socketPath(invocation.socket) }
        guard let command else { return .noCommand }
        invocation.command = command
        return .run(invocation)
    }

    /// A usage error found while reading the command line.
    private struct Refusal: Error {
        var message: String
        var command: Command?

        init(_ message: String, _ command: Command?) {
            self.message = message
            self.command = command
        }

        var usage: ParsedCommandLine { .usage(message, command) }
    }

    private static func parenthesized(_ notes: [String]) -> String {
        notes.isEmpty ? "" : " (" + notes.joined(separator: "; ") + ")"
    }
}
