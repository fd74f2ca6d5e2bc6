/// Every layoutctl command with its options and examples: the one table behind argument
/// parsing, `help`, the man page and the shell completions.
public struct CommandOption: Sendable, Hashable {
    public var name: String
    public var short: String?
    /// The value's placeholder; nil for a flag.
    public var argument: String?
    public var summary: String
    public var repeatable = false

    public init(_ name: String, short: String? = nil, argument: String? = nil, _ summary: String, repeatable: Bool = false) {
        self.name = name
        self.short = short
        self.argument = argument
        self.summary = summary
        self.repeatable = repeatable
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

    public init(
        _ name: String, _ arguments: String = "", _ summary: String, method: String? = nil, options: [CommandOption] = [],
        examples: [String] = [], details: String = ""
    ) {
        self.name = name
        self.arguments = arguments
        self.summary = summary
        self.method = method
        self.options = options
        self.examples = examples
        self.details = details
    }
}

public enum CommandCatalog {
    public static let globalOptions: [CommandOption] = [
        CommandOption("--socket", short: "-s", argument: "PATH", "the daemon's socket (else $LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock, /run/layoutd/ipc.sock)"),
        CommandOption("--timeout", argument: "SECONDS", "give up waiting for a reply (default 30; exit 3)"),
        CommandOption("--json", short: "-j", "print JSON even on a terminal"),
        CommandOption("--pretty", "print indented JSON"),
        CommandOption("--table", "print tables even when piped"),
        CommandOption("--quiet", short: "-q", "print nothing on success"),
        CommandOption("--print-socket-path", "print the socket path layoutctl would use and exit"),
        CommandOption("--help", short: "-h", "help for layoutctl or a command"),
        CommandOption("--version", "print the version"),
    ]

    static let mutation = [
        CommandOption("--animated", "ask for a transition (from/to attributes)"),
        CommandOption("--if-epoch", argument: "N", "refuse with StaleEpoch unless the view is at epoch N"),
    ]

    public static let commands: [Command] = [
        Command("hello", "", "protocol version, server and limits", method: "daemon.hello", examples: ["layoutctl hello"]),
        Command(
            "describe", "", "every method, error and strategy the daemon knows", method: "daemon.describe",
            examples: ["layoutctl describe --json | jq '.methods[].name'"]),
        Command("status", "", "views, items, requests, connections and memory", method: "daemon.status", examples: ["layoutctl status"]),
        Command("sync", "", "wait until every earlier event for this connection was sent", method: "daemon.sync", examples: ["layoutctl sync"]),
        Command(
            "reload", "", "re-read the configuration, load new plugins", method: "daemon.reload",
            options: [CommandOption("--wait", "wait until the reload is done (the reply always waits; kept for ExecReload=)")],
            examples: ["layoutctl reload --wait"]),
        Command("strategies", "", "strategies with their origin and parameters; refused plugins", method: "strategy.list", examples: ["layoutctl strategies", "layoutctl strategies --json | jq -r '.strategies[] | select(.status == \"available\") | .name'"]),
        Command("views", "", "every view with its strategy, epoch and item count", method: "view.list", examples: ["layoutctl views"]),
        Command(
            "create", "VIEW", "create a named view", method: "view.create",
            options: [
                CommandOption("--strategy", argument: "NAME", "a registered strategy (default flow)"),
                CommandOption("--width", argument: "W", "viewport width"),
                CommandOption("--height", argument: "H", "viewport height"),
                CommandOption("--param", argument: "NAME=VALUE", "a strategy parameter (WxH sizes, t,l,b,r insets, numbers, true/false)", repeatable: true),
                CommandOption("--offset", argument: "X,Y", "initial content offset"),
                CommandOption("--margin", argument: "POINTS", "window margin along the scroll axis"),
                CommandOption("--items", argument: "N", "start with N items i0...i(N-1) (default 0) in the one section s"),
            ],
            examples: [
                "layoutctl create photos --strategy flow --width 390 --height 844 --param itemSize=100x100",
                "layoutctl create stack --strategy collapsible --width 320 --height 480 --items 12",
            ]),
        Command("delete-view", "VIEW", "delete a view", method: "view.delete", examples: ["layoutctl delete-view photos"]),
        Command("get", "VIEW", "a view's state and the elements in its window", method: "view.get", examples: ["layoutctl get photos"]),
        Command(
            "load", "VIEW FILE", "replace a view's data with items from a file ('-' for stdin)", method: "view.setData",
            options: mutation,
            examples: ["layoutctl load photos items.jsonl", "seq 1 1000 | jq -c '{id: \"p\\(.)\"}' | layoutctl load photos -"],
            details: """
                FILE holds JSON lines, one item each: {"id": "p1"} with optional "size", "estimatedSize", \
                "selectedSize" ({"width", "height"}) and "section" (default "s"; sections appear in the order \
                they are first named). A FILE that is one JSON object with "sections" is sent as it is. Large \
                files go in batches under the daemon's line and batch limits; a progress bar shows on a terminal.
                """),
        Command(
            "insert", "VIEW ITEM...", "insert items (ITEM is ID or ID:WxH)", method: "view.update",
            options: [
                CommandOption("--section", argument: "ID", "the section (default s)"), CommandOption("--at", argument: "INDEX", "position in the section (default 0)"),
            ] + mutation,
            examples: ["layoutctl insert photos new1 new2:200x100 --at 3 --animated"]),
        Command("delete", "VIEW ID...", "delete items", method: "view.update", options: mutation, examples: ["layoutctl delete photos p3 p4 --animated"]),
        Command(
            "move", "VIEW ID", "move an item", method: "view.update",
            options: [CommandOption("--section", argument: "ID", "the target section (default s)"), CommandOption("--at", argument: "INDEX", "the final position")] + mutation,
            examples: ["layoutctl move photos p9 --at 0 --animated"]),
        Command(
            "update", "VIEW JSON", "an atomic batch of updates, as the protocol writes them", method: "view.update", options: mutation,
            examples: [#"layoutctl update photos '[{"op":"deleteItems","ids":["p1"]},{"op":"moveItem","id":"p2","section":"s","at":0}]'"#]),
        Command("measure", "VIEW ID=WxH...", "measured sizes (self-sizing items)", method: "view.measure", options: mutation, examples: ["layoutctl measure feed a=300x80 b=300x120"]),
        Command(
            "select", "VIEW [ID...]", "change the selection", method: "view.select",
            options: [CommandOption("--mode", argument: "MODE", "set (default), add, remove or toggle")] + mutation,
            examples: ["layoutctl select photos p1 p2", "layoutctl select photos p2 --mode toggle --animated"]),
        Command(
            "scroll", "VIEW", "a new content offset", method: "view.scroll",
            options: [CommandOption("--x", argument: "X", "offset x (default: unchanged)"), CommandOption("--y", argument: "Y", "offset y (default: unchanged)"), mutation[1]],
            examples: ["layoutctl scroll photos --y 540"]),
        Command(
            "scroll-end", "VIEW", "where a fling comes to rest (snapping)", method: "view.scrollEnd",
            options: [
                CommandOption("--x", argument: "X", "proposed offset x"), CommandOption("--y", argument: "Y", "proposed offset y"),
                CommandOption("--velocity", argument: "VX,VY", "points per second"), mutation[1],
            ],
            examples: ["layoutctl scroll-end feature --y 130 --velocity 0,400"]),
        Command(
            "resize", "VIEW", "a new viewport size", method: "view.resize",
            options: [CommandOption("--width", argument: "W", "viewport width"), CommandOption("--height", argument: "H", "viewport height")] + mutation,
            examples: ["layoutctl resize photos --width 844 --height 390 --animated"]),
        Command(
            "configure", "VIEW NAME=VALUE...", "change strategy parameters", method: "view.configure", options: mutation,
            examples: ["layoutctl configure shelf mode=list --animated", "layoutctl configure photos itemSize=120x120"]),
        Command(
            "switch", "VIEW STRATEGY [NAME=VALUE...]", "switch strategy, first visible item anchored", method: "view.setStrategy", options: mutation,
            examples: ["layoutctl switch photos display mode=list --animated"]),
        Command("margin", "VIEW POINTS", "change the window margin", method: "view.setWindowMargin", options: [mutation[1]], examples: ["layoutctl margin photos 200"]),
        Command(
            "query", "VIEW", "elements intersecting a rect (default: the viewport)", method: "view.query",
            options: [CommandOption("--rect", argument: "X,Y,W,H", "the rect in content coordinates")],
            examples: ["layoutctl query photos --rect 0,0,390,844", "layoutctl query photos --json | jq '.elements[] | select(.id == \"p4\") | .frame'"]),
        Command("item", "VIEW ID", "one item's attributes", method: "view.item", examples: ["layoutctl item photos p4"]),
        Command(
            "watch", "VIEW", "stream the view's invalidation events, one line each", method: "view.subscribe",
            options: [CommandOption("--monitor", short: "-m", "also print the snapshot first"), CommandOption("--count", argument: "N", "stop after N events")],
            examples: ["layoutctl watch photos", "layoutctl watch photos --count 1 --json | jq '.params.entered | length'"],
            details: "On a terminal each event is a one-line summary; piped, each is its JSON line as the daemon wrote it."),
        Command(
            "render", "VIEW", "draw the layout as SVG or PNG", method: "view.query",
            options: [
                CommandOption("--svg", argument: "FILE", "where to write the SVG ('-' for stdout)"),
                CommandOption("--png", argument: "FILE", "also or instead: write a PNG (librsvg and cairo at run time)"),
                CommandOption("--rect", argument: "X,Y,W,H", "the region to draw (default: the window around the viewport)"),
                CommandOption("--transition", "draw from/to of a transition side by side (with --configure, --switch or --select)"),
                CommandOption("--configure", argument: "NAME=VALUE", "with --transition: the configure change to show", repeatable: true),
                CommandOption("--switch", argument: "STRATEGY", "with --transition: the strategy switch to show"),
                CommandOption("--select", argument: "ID", "with --transition: the selection to show", repeatable: true),
                CommandOption("--scale", argument: "FACTOR", "pixels per point (default 1)"),
            ],
            examples: ["layoutctl render photos --svg photos.svg", "layoutctl render stack --png stack.png --transition --configure collapsed=true"],
            details: "Cells, headers and footers with their ids; selected items highlighted; stacks shown as stacked cards with a count; alpha as opacity and transforms (about each element's center) as drawn; coverAlpha as a dark shade, titleScale as the label's size, every effect in the element's tooltip; the viewport outlined; the content size and offset and a legend in the caption. --transition previews the change (animated, as a dry run: the view does not change) and draws the region before and the window after."),
        Command(
            "call", "METHOD [JSON]", "call any method with JSON params; --batch: JSON request lines on stdin, one reply line each",
            options: [CommandOption("--batch", "read request lines from stdin, print each reply line")],
            examples: [#"layoutctl call view.item '{"view":"photos","id":"p4"}'"#, "layoutctl call --batch < requests.jsonl"]),
        Command("help", "[COMMAND]", "help for layoutctl or one command", examples: ["layoutctl help create"]),
        Command("completion", "bash|zsh", "print a shell completion script", examples: ["source <(layoutctl completion bash)"]),
        Command("man", "", "print the man page (roff)", examples: ["layoutctl man > layoutctl.1"]),
    ]

    public static func command(named name: String) -> Command? { commands.first { $0.name == name } }

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

    public static func overview(version: String) -> String {
        var text = "layoutctl \(version): drive layoutd, the collection-layout daemon\n\n"
        text += "usage: layoutctl [OPTIONS] COMMAND [ARGUMENTS]\n\nCommands:\n"
        text += columns(commands.map { ($0.name, $0.summary) })
        text += "\nOptions:\n" + columns(globalOptions.map(optionLine))
        text += "\nExit codes: " + exitCodes.map { "\($0.0) \($0.1)" }.joined(separator: "; ") + ".\n"
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

    // MARK: Man page and completions

    /// roff for man(1), from the same table as `help`.
    public static func manPage(version: String, date: String) -> String {
        func escape(_ text: String) -> String {
            text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-").replacingAll("'", with: "\\(aq")
        }
        var roff = ".TH LAYOUTCTL 1 \"\(date)\" \"layoutctl \(version)\" \"User Commands\"\n"
        roff += ".SH NAME\nlayoutctl \\- drive layoutd, the collection\\-layout daemon\n"
        roff += ".SH SYNOPSIS\n.B layoutctl\n[\\fIOPTIONS\\fR] \\fICOMMAND\\fR [\\fIARGUMENTS\\fR]\n"
        roff += ".SH DESCRIPTION\nlayoutctl sends requests to layoutd over its Unix socket and prints the replies: tables on a terminal, compact JSON when piped.\n"
        roff += ".SH OPTIONS\n"
        for option in globalOptions {
            let (left, right) = optionLine(option)
            roff += ".TP\n.B \(escape(left.trimmingLeadingSpaces))\n\(escape(right))\n"
        }
        roff += ".SH COMMANDS\n"
        for command in commands {
            roff += ".SS \(escape(command.name))\(command.arguments.isEmpty ? "" : " " + escape(command.arguments))\n"
            roff += escape(command.summary) + (command.method.map { " (\(escape($0)))." } ?? ".") + "\n"
            if !command.details.isEmpty { roff += ".PP\n" + escape(command.details) + "\n" }
            for option in command.options {
                let (left, right) = optionLine(option)
                roff += ".TP\n.B \(escape(left.trimmingLeadingSpaces))\n\(escape(right))\n"
            }
            for example in command.examples { roff += ".PP\n.nf\n\(escape(example))\n.fi\n" }
        }
        roff += ".SH EXIT STATUS\n"
        for (code, meaning) in exitCodes { roff += ".TP\n.B \(code)\n\(escape(meaning))\n" }
        roff += ".SH ENVIRONMENT\n.TP\n.B LAYOUTD_SOCKET\nthe socket path when \\-\\-socket is not given\n.TP\n.B XDG_RUNTIME_DIR\n$XDG_RUNTIME_DIR/layoutd/ipc.sock is next in line\n"
        roff += ".SH SEE ALSO\n.BR layoutd (8),\n.BR jq (1)\n"
        return roff
    }

    public static func bashCompletion() -> String {
        var script = "# bash completion for layoutctl (generated by 'layoutctl completion bash')\n_layoutctl() {\n"
        script += "    local cur prev words cword\n    cur=\"${COMP_WORDS[COMP_CWORD]}\"\n    prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n"
        script += "    local commands=\"\(commands.map(\.name).joined(separator: " "))\"\n"
        script += "    local global=\"\(globalOptions.flatMap { [$0.name] + ($0.short.map { [$0] } ?? []) }.joined(separator: " "))\"\n"
        script += "    local command=\"\" word\n    for word in \"${COMP_WORDS[@]:1:COMP_CWORD-1}\"; do\n"
        script += "        case \" $commands \" in *\" $word \"*) command=$word; break;; esac\n    done\n"
        script += "    case \"$prev\" in\n        --socket|-s|--svg) COMPREPLY=($(compgen -f -- \"$cur\")); return;;\n"
        script += "        --strategy) COMPREPLY=($(compgen -W \"collapsible display flow ultravisual\" -- \"$cur\")); return;;\n"
        script += "        --mode) COMPREPLY=($(compgen -W \"set add remove toggle\" -- \"$cur\")); return;;\n    esac\n"
        script += "    if [[ -z $command ]]; then\n        COMPREPLY=($(compgen -W \"$commands $global\" -- \"$cur\"))\n        return\n    fi\n"
        script += "    local options=\"\"\n    case \"$command\" in\n"
        for command in commands where !command.options.isEmpty {
            script += "        \(command.name)) options=\"\(command.options.map(\.name).joined(separator: " "))\";;\n"
        }
        script += "        help) options=\"$commands\";;\n"
        script += "    esac\n    COMPREPLY=($(compgen -W \"$options $global\" -- \"$cur\"))\n}\ncomplete -F _layoutctl layoutctl\n"
        return script
    }

    public static func zshCompletion() -> String {
        func quote(_ text: String) -> String { text.replacingAll("'", with: "'\\''").replacingAll(":", with: "\\:").replacingAll("[", with: "\\[").replacingAll("]", with: "\\]") }
        var script = "#compdef layoutctl\n# zsh completion for layoutctl (generated by 'layoutctl completion zsh')\n_layoutctl() {\n"
        script += "    local -a commands\n    commands=(\n"
        for command in commands { script += "        '\(command.name):\(quote(command.summary))'\n" }
        script += "    )\n    local -a global\n    global=(\n"
        for option in globalOptions { script += "        '\(option.name)[\(quote(option.summary))]\(option.argument.map { ":\($0.lowercased()):" } ?? "")'\n" }
        script += "    )\n    if (( CURRENT == 2 )); then\n        _describe 'command' commands\n        return\n    fi\n"
        script += "    case ${words[2]} in\n"
        for command in commands where !command.options.isEmpty {
            let specs = command.options.map { "'\($0.name)[\(quote($0.summary))]\($0.argument.map { ":\($0.lowercased()):" } ?? "")'" }
            script += "        \(command.name)) _arguments \(specs.joined(separator: " ")) $global '*: :' ;;\n"
        }
        script += "        help) _describe 'command' commands ;;\n        *) _arguments $global '*: :' ;;\n    esac\n}\n_layoutctl \"$@\"\n"
        return script
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
