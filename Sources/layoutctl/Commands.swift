import LayoutctlKit

/// layoutctl's one command table: every command with its arguments, options, examples and the
/// handler that carries it out. Parsing, `help`, the man page and the completions read it
/// (`CommandCatalog` in LayoutctlKit); `main.swift` runs the handler of the command parsed. A
/// command for a new method is one entry here (its handler is often one line, see
/// `ViewCommands.get`).
enum Commands {
    static let catalog = CommandCatalog(tool: "layoutctl", globalOptions: globalOptions, commands: commands, hiddenCommands: hiddenCommands)

    static let globalOptions: [CommandOption] = [
        CommandOption(
            "--socket", short: "-s", argument: "PATH", "the daemon's socket (else $LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock, /run/layoutd/ipc.sock)",
            completes: .file),
        CommandOption("--timeout", argument: "SECONDS", "give up waiting for a reply (default 30; exit 3)"),
        CommandOption("--json", short: "-j", "print JSON even on a terminal"),
        CommandOption("--pretty", "print indented JSON"),
        CommandOption("--table", "print tables even when piped"),
        CommandOption("--quiet", short: "-q", "print nothing on success"),
        CommandOption("--print-socket-path", "print the socket path layoutctl would use and exit"),
        CommandOption("--help", short: "-h", "help for layoutctl or a command"),
        CommandOption("--version", short: "-v", "print the version"),
    ]

    static let mutation = [
        CommandOption("--animated", "ask for a transition (from/to attributes)"),
        CommandOption("--if-epoch", argument: "N", "refuse with StaleEpoch unless the view is at epoch N"),
        CommandOption("--anchor", argument: "POLICY", "what this change keeps still: firstVisible, lastVisible, end or none (default: the view's)"),
    ]

    static let commands: [Command] = [
        Command("hello", "", "protocol version, server and limits", method: "daemon.hello", examples: ["layoutctl hello"], run: DaemonCommands.ask(DaemonCommands.fields)),
        Command(
            "describe", "", "every method, error and strategy the daemon knows", method: "daemon.describe",
            examples: ["layoutctl describe --json | jq '.methods[].name'"],
            run: DaemonCommands.ask(DaemonCommands.methods)),
        Command("status", "", "views, items, requests, connections and memory", method: "daemon.status", examples: ["layoutctl status"], run: DaemonCommands.ask(DaemonCommands.fields)),
        Command("sync", "", "wait until every earlier event for this connection was sent", method: "daemon.sync", examples: ["layoutctl sync"], run: DaemonCommands.ask { _ in "synced\n" }),
        Command(
            "reload", "", "re-read the configuration, load new plugins", method: "daemon.reload",
            options: [CommandOption("--wait", "wait until the reload is done (the reply always waits; kept for ExecReload=)")],
            examples: ["layoutctl reload --wait"],
            run: DaemonCommands.ask(DaemonCommands.fields)),
        Command("strategies", "", "strategies with their origin and parameters; refused plugins", method: "strategy.list", examples: ["layoutctl strategies", "layoutctl strategies --json | jq -r '.strategies[] | select(.status == \"available\") | .name'"], run: DaemonCommands.ask(DaemonCommands.strategies)),
        Command("views", "", "every view with its strategy, epoch and item count", method: "view.list", examples: ["layoutctl views"], run: DaemonCommands.ask(DaemonCommands.views)),
        Command(
            "create", "VIEW", "create a named view", method: "view.create",
            options: [
                CommandOption("--strategy", argument: "NAME", "a registered strategy (default flow)", completes: .strategy),
                CommandOption("--width", argument: "W", "viewport width"),
                CommandOption("--height", argument: "H", "viewport height"),
                CommandOption(
                    "--param", argument: "NAME=VALUE", "a strategy parameter, read by its type (WxH size, t,l,b,r insets, number, true/false)",
                    repeatable: true, completes: .parameter),
                CommandOption("--offset", argument: "X,Y", "initial content offset"),
                CommandOption("--margin", argument: "POINTS", "window margin along the scroll axis"),
                CommandOption("--items", argument: "N", "start with N items i0...i(N-1) (default 0) in the one section s"),
                CommandOption("--rtl", "lay the view out right to left (mirrored)"),
                CommandOption("--anchor", argument: "POLICY", "what changes keep still: firstVisible (default), lastVisible, end, none"),
            ],
            examples: [
                "layoutctl create photos --strategy flow --width 390 --height 844 --param itemSize=100x100",
                "layoutctl create stack --strategy collapsible --width 320 --height 480 --items 12",
            ],
            run: ViewCommands.create),
        Command("delete-view", "VIEW", "delete a view", method: "view.delete", examples: ["layoutctl delete-view photos"], run: ViewCommands.deleteView),
        Command("get", "VIEW", "a view's state and the elements in its window", method: "view.get", examples: ["layoutctl get photos"], run: ViewCommands.get),
        Command(
            "load", "VIEW FILE", "replace a view's data with items from a file ('-' for stdin)", method: "view.setData",
            options: mutation,
            examples: ["layoutctl load photos items.jsonl", "seq 1 1000 | jq -c '{id: \"p\\(.)\"}' | layoutctl load photos -"],
            details: """
                FILE holds JSON lines, one item each: {"id": "p1"} with optional "size", "estimatedSize", \
                "selectedSize" ({"width", "height"}) and "section" (default "s"; sections appear in the order \
                they are first named). A FILE that is one JSON object with "sections" is sent as it is. The load \
                is one change whatever the size: data diffed by id, one epoch step, one event for watchers. Files \
                over the daemon's line or batch limit go as a staged upload (view.stage.*) in parts, with a \
                progress bar on a terminal, committed only if the view did not change meanwhile (StaleEpoch).
                """,
            run: DataCommands.load),
        Command(
            "insert", "VIEW ITEM...", "insert items (ITEM is ID or ID:WxH)", method: "view.update",
            options: [
                CommandOption("--section", argument: "ID", "the section (default s)"), CommandOption("--at", argument: "INDEX", "position in the section (default 0)"),
            ] + mutation,
            examples: ["layoutctl insert photos new1 new2:200x100 --at 3 --animated"],
            run: DataCommands.insert),
        Command("delete", "VIEW ID...", "delete items", method: "view.update", options: mutation, examples: ["layoutctl delete photos p3 p4 --animated"], run: DataCommands.delete),
        Command(
            "move", "VIEW ID", "move an item", method: "view.update",
            options: [CommandOption("--section", argument: "ID", "the target section (default s)"), CommandOption("--at", argument: "INDEX", "the final position")] + mutation,
            examples: ["layoutctl move photos p9 --at 0 --animated"],
            run: DataCommands.move),
        Command(
            "update", "VIEW JSON", "an atomic batch of updates, as the protocol writes them", method: "view.update", options: mutation,
            examples: [#"layoutctl update photos '[{"op":"deleteItems","ids":["p1"]},{"op":"moveItem","id":"p2","section":"s","at":0}]'"#],
            run: DataCommands.update),
        Command(
            "measure", "VIEW ID=WxH...", "measured sizes (self-sizing items, or with --kind supplementary elements)", method: "view.measure",
            options: [CommandOption("--kind", argument: "KIND", "the IDs name elements of this kind: a section's header (section ids), a badge (item ids)")]
                + mutation,
            examples: ["layoutctl measure feed a=300x80 b=300x120", "layoutctl measure store --kind header featured=375x60"],
            run: DataCommands.measure),
        Command(
            "select", "VIEW [ID...]", "change the selection", method: "view.select",
            options: [
                CommandOption("--mode", argument: "MODE", "set (default), add, remove or toggle", completes: .words(["set", "add", "remove", "toggle"])),
                CommandOption("--clear", "select nothing (instead of IDs)"),
            ] + mutation,
            examples: ["layoutctl select photos p1 p2", "layoutctl select photos p2 --mode toggle --animated", "layoutctl select photos --clear"],
            details: "At least one ID, or --clear: a select without either is refused (exit 64) rather than read as clearing the selection.",
            run: DataCommands.select),
        Command(
            "scroll", "VIEW", "a new content offset", method: "view.scroll",
            options: [
                CommandOption("--x", argument: "X", "offset x (default: unchanged)"), CommandOption("--y", argument: "Y", "offset y (default: unchanged)"),
                CommandOption("--velocity", argument: "VX,VY", "points per second: the reply names prefetch, the cells about to enter"),
                CommandOption("--horizon", argument: "SECONDS", "how far prefetch looks ahead (default 0.25, with --velocity)"), mutation[1],
            ],
            examples: ["layoutctl scroll photos --y 540", "layoutctl scroll photos --y 540 --velocity 0,2000 --json | jq -c .prefetch"],
            run: ScrollCommands.scroll(point: "offset")),
        Command(
            "scroll-end", "VIEW", "where a fling comes to rest (snapping)", method: "view.scrollEnd",
            options: [
                CommandOption("--x", argument: "X", "proposed offset x"), CommandOption("--y", argument: "Y", "proposed offset y"),
                CommandOption("--velocity", argument: "VX,VY", "points per second"), mutation[1],
            ],
            examples: ["layoutctl scroll-end feature --y 130 --velocity 0,400"],
            run: ScrollCommands.scroll(point: "proposed")),
        Command(
            "resize", "VIEW", "a new viewport size", method: "view.resize",
            options: [CommandOption("--width", argument: "W", "viewport width"), CommandOption("--height", argument: "H", "viewport height")] + mutation,
            examples: ["layoutctl resize photos --width 844 --height 390 --animated"],
            run: LayoutCommands.resize),
        Command(
            "configure", "VIEW NAME=VALUE...", "change strategy parameters", method: "view.configure", options: mutation,
            examples: ["layoutctl configure shelf mode=list --animated", "layoutctl configure photos itemSize=120x120"],
            run: LayoutCommands.configure),
        Command(
            "switch", "VIEW STRATEGY [NAME=VALUE...]", "switch strategy, first visible item anchored", method: "view.setStrategy", options: mutation,
            examples: ["layoutctl switch photos display mode=list --animated"],
            run: LayoutCommands.switchStrategy),
        Command(
            "scroll-section", "VIEW SECTION", "scroll an orthogonal section (a compositional carousel) on its own", method: "view.scrollSection",
            options: [CommandOption("--offset", argument: "POINTS", "the section's offset from its leading edge"), mutation[1]],
            examples: ["layoutctl scroll-section store featured --offset 320"],
            run: ScrollCommands.scrollSection),
        Command(
            "scroll-section-end", "VIEW SECTION", "where an orthogonal section comes to rest (paging, group snapping)",
            method: "view.scrollSectionEnd",
            options: [
                CommandOption("--proposed", argument: "POINTS", "where the fling would end (default: where the section is)"),
                CommandOption("--velocity", argument: "POINTS/S", "across the main direction (default 0)"), mutation[1],
            ],
            examples: ["layoutctl scroll-section-end store featured --proposed 250 --velocity 800"],
            run: ScrollCommands.scrollSectionEnd),
        Command(
            "scroll-to", "VIEW ID", "scroll so an item sits exactly where asked, and stays there while sizes settle", method: "view.scrollTo",
            options: [
                CommandOption("--align", argument: "start|center|end|nearest", "where the item goes (default start)"),
                CommandOption("--offset", argument: "POINTS", "inward from the aligned edge (default 0)"),
                CommandOption("--kind", argument: "cell|header|footer", "ID names a section's header or footer"), mutation[1],
            ],
            examples: ["layoutctl scroll-to feed m900 --align center", "layoutctl scroll-to feed m900 --json | jq -c .needsMeasure"],
            run: ScrollCommands.scrollTo),
        Command(
            "anchor", "VIEW [firstVisible|lastVisible|end|none]", "set what later changes keep still on screen", method: "view.setAnchor",
            options: [
                CommandOption("--id", argument: "ID", "instead of a policy: keep this element still"),
                CommandOption("--edge", argument: "start|center|end", "with --id: which edge (default start)"),
                CommandOption("--offset", argument: "POINTS", "with --id: from the viewport's leading edge (default: where it is)"),
                CommandOption("--kind", argument: "cell|header|footer", "with --id: ID names a section's header or footer"), mutation[1],
            ],
            examples: ["layoutctl anchor chat end", "layoutctl anchor feed --id m40 --edge center"],
            run: LayoutCommands.anchor),
        Command(
            "direction", "VIEW ltr|rtl", "lay the view out left to right or right to left, first visible item anchored",
            method: "view.setLayoutDirection", options: mutation, examples: ["layoutctl direction photos rtl --animated"],
            run: LayoutCommands.direction),
        Command(
            "begin-transition", "VIEW [STRATEGY] [NAME=VALUE...]", "prepare an interactive transition to a strategy or to changed parameters",
            method: "view.beginTransition", options: [mutation[1], mutation[2]],
            examples: ["layoutctl begin-transition photos display mode=list", "layoutctl begin-transition grid collapsed=true"],
            details: """
                With STRATEGY, a strategy switch (its parameters from their defaults, as `switch`); without, the parameters \
                that change (as `configure`). The view does not change until `end-transition VIEW commit`; prints the \
                transition and its pairs (each element's from and to frames).
                """,
            run: GestureCommands.beginTransition),
        Command(
            "update-transition", "VIEW PROGRESS", "scrub the interactive transition: every element at PROGRESS (0 to 1)",
            method: "view.updateTransition", examples: ["layoutctl update-transition photos 0.5"],
            run: GestureCommands.updateTransition),
        Command(
            "end-transition", "VIEW commit|revert", "finish the interactive transition to its target, or back", method: "view.endTransition",
            options: [mutation[1]], examples: ["layoutctl end-transition photos commit", "layoutctl end-transition photos revert --json | jq .transition.duration"],
            run: GestureCommands.endTransition),
        Command(
            "begin-move", "VIEW ID", "start dragging an item to reorder it (a collapsed stack moves as one)", method: "view.beginMove",
            options: [CommandOption("--at", argument: "X,Y", "the finger, in viewport coordinates (default: the item's centre)"), mutation[1]],
            examples: ["layoutctl begin-move photos p4", "layoutctl begin-move photos p4 --at 60,400"],
            details: """
                The item is drawn under the finger above everything and the others re-flow as if it dropped at its target; \
                the summary line gives the target (section.item) and the auto-scroll velocity in points per second, by which \
                a client scrolls (`scroll`) before the next `update-move`. A view holds one move at a time.
                """,
            run: GestureCommands.beginMove),
        Command(
            "update-move", "VIEW X,Y", "move the finger of the drag in progress (viewport coordinates)", method: "view.updateMove",
            options: [mutation[1]], examples: ["layoutctl update-move photos 160,420"],
            run: GestureCommands.updateMove),
        Command(
            "end-move", "VIEW commit|cancel", "drop the dragged item at its target (one move), or put it back", method: "view.endMove",
            options: [mutation[1]], examples: ["layoutctl end-move photos commit", "layoutctl end-move photos cancel"],
            run: GestureCommands.endMove),
        Command("margin", "VIEW POINTS", "change the window margin", method: "view.setWindowMargin", options: [mutation[1]], examples: ["layoutctl margin photos 200"], run: LayoutCommands.margin),
        Command(
            "query", "VIEW", "elements intersecting a rect (default: the viewport)", method: "view.query",
            options: [CommandOption("--rect", argument: "X,Y,W,H", "the rect in content coordinates")],
            examples: ["layoutctl query photos --rect 0,0,390,844", "layoutctl query photos --json | jq '.elements[] | select(.id == \"p4\") | .frame'"],
            run: ViewCommands.query),
        Command("item", "VIEW ID", "one item's attributes", method: "view.item", examples: ["layoutctl item photos p4"], run: ViewCommands.item),
        Command(
            "export", "VIEW", "the view's whole state, one export part per line (stdout or --output)", method: "view.export",
            options: [
                CommandOption("--output", short: "-o", argument: "FILE", "write the file (atomically: a new file renamed over it) instead of stdout", completes: .file),
                CommandOption("--limit", argument: "N", "items per part (default 10000, or the daemon's maximumBatchSize when lower)"),
            ],
            examples: ["layoutctl export photos -o photos.export", "layoutctl export photos | layoutctl import - --view photos-copy"],
            details: "The parts come from one snapshot taken by the first: the file is the view at one epoch, whatever changes meanwhile. `layoutctl import` and the daemon's state directory read the same format.",
            run: TransferCommands.export),
        Command(
            "import", "FILE", "create a view from an export file ('-' for stdin)", method: "view.import",
            options: [CommandOption("--view", argument: "NAME", "the new view's name (default: the exported view's)")],
            examples: ["layoutctl import photos.export", "layoutctl import photos.export --view photos-restored"],
            details: "The view is the exported one: the same frames, offset, selection, measurements and epoch. A refused part ends the import and creates nothing.",
            run: TransferCommands.importView),
        Command(
            "selection", "VIEW", "the selected items, in data order (every page)", method: "view.selection",
            examples: ["layoutctl selection photos", "layoutctl selection photos --json | jq -r '.ids[]'"],
            run: { _ in
                let view = positional(1, "VIEW")[0]
                emit(allPages(connect(), "view.selection", ["view": .string(view)], collecting: ["ids"])) { result in
                    let ids = (result["ids"]?.arrayValue ?? []).compactMap(\.stringValue)
                    return "\(ids.count) selected (epoch \(formatNumber(result["epoch"])))" + (ids.isEmpty ? "" : ": " + ids.joined(separator: " ")) + "\n"
                }
            }),
        Command(
            "hit", "VIEW X,Y", "the topmost element at a point (content coordinates), or none", method: "view.hitTest",
            options: [CommandOption("--kinds", argument: "KIND,...", "only these kinds may be hit: cell, header, footer")],
            examples: ["layoutctl hit photos 120,40", "layoutctl hit photos 120,40 --kinds header --json | jq .element.id"],
            details: "Prints the element as `item` does, or `nothing at X,Y` (exit 0: a miss is an answer, not a failure).",
            run: ViewCommands.hit),
        Command(
            "neighbor", "VIEW ID up|down|left|right|next|previous", "the item a keyboard moves to from an item, or none", method: "view.neighbor",
            examples: ["layoutctl neighbor photos p4 down", "layoutctl neighbor photos p4 next --json | jq -r .element.id"],
            details: """
                Screen directions go by geometry, next and previous by the data's order; cells that share a frame \
                (a collapsible stack) are one stop. Prints the element, or `nothing DIRECTION of ID` at the edge (exit 0).
                """,
            run: ViewCommands.neighbor),
        Command(
            "watch", "VIEW", "stream the view's invalidation events, one line each", method: "view.subscribe",
            options: [CommandOption("--monitor", short: "-m", "also print the snapshot first"), CommandOption("--count", argument: "N", "stop after N events")],
            examples: ["layoutctl watch photos", "layoutctl watch photos --count 1 --json | jq '.params.entered | length'"],
            details: """
                On a terminal each event is a one-line summary; piped, each is its JSON line as the daemon wrote it. \
                The event that ends the stream (daemon.shutdown, view.deleted) is printed too, and why it ended goes \
                to stderr.
                """,
            exitCodes: [
                ("0", "--count events were printed, or SIGINT/SIGTERM stopped it"),
                ("1", "the daemon shut down (daemon.shutdown) or the connection dropped"),
                ("2", "the view was deleted (view.deleted), or the subscription was refused"),
                ("3", "no reply to the subscription within the timeout"),
                ("64", "usage error"),
            ],
            run: ToolCommands.watch),
        Command(
            "render", "VIEW", "draw the layout as SVG or PNG", method: "view.query",
            options: [
                CommandOption("--svg", argument: "FILE", "where to write the SVG ('-' for stdout)", completes: .file),
                CommandOption("--png", argument: "FILE", "also or instead: write a PNG (librsvg and cairo at run time)", completes: .file),
                CommandOption("--rect", argument: "X,Y,W,H", "the region to draw (default: the window around the viewport)"),
                CommandOption("--transition", "draw from/to of a transition side by side (with --configure, --switch or --select)"),
                CommandOption("--configure", argument: "NAME=VALUE", "with --transition or --progress: the configure change to show", repeatable: true, completes: .parameter),
                CommandOption("--switch", argument: "STRATEGY", "with --transition or --progress: the strategy switch to show", completes: .strategy),
                CommandOption("--select", argument: "ID", "with --transition: the selection to show", repeatable: true),
                CommandOption("--progress", argument: "P", "draw an interactive transition at P (0 to 1), with --configure or --switch"),
                CommandOption("--move", argument: "ID", "draw item ID being dragged (with --to), previewed: the view does not change"),
                CommandOption("--to", argument: "X,Y", "with --move: the finger, in viewport coordinates"),
                CommandOption("--scale", argument: "FACTOR", "pixels per point (default 1)"),
            ],
            examples: [
                "layoutctl render photos --svg photos.svg", "layoutctl render stack --png stack.png --transition --configure collapsed=true",
                "layoutctl render photos --svg half.svg --switch display --configure mode=list --progress 0.5",
                "layoutctl render photos --svg drag.svg --move p4 --to 60,400",
            ],
            details: "Cells, headers and footers with their ids; selected items highlighted; stacks shown as stacked cards with a count; alpha as opacity and transforms (about each element's center) as drawn; coverAlpha as a dark shade, titleScale as the label's size, every effect in the element's tooltip; the viewport outlined; the content size and offset and a legend in the caption. --transition previews the change (animated, as a dry run: the view does not change) and draws the region before and the window after. --progress draws the change as an interactive transition at that progress (every element of both windows interpolated, the content offset too), then ends it back: the view is as it was, one epoch on; refused when the view has a transition in progress. --move ID --to X,Y draws the drag state (a dry-run view.beginMove with the finger at X,Y): the others re-flowed around the target, the item under the finger with a green dashed edge, the finger as a dot, the target and auto-scroll in the caption.",
            run: ToolCommands.render),
        Command(
            "web", "", "serve the live viewer: a page that renders any view as it changes, over a WebSocket bridge",
            options: [
                CommandOption("--listen", argument: "HOST:PORT", "where to listen (default 127.0.0.1:7465; port 0 picks a free one)"),
                CommandOption("--open-view", argument: "VIEW", "the view the printed URL opens", completes: .view),
            ],
            examples: ["layoutctl web", "layoutctl web --listen 127.0.0.1:0 --open-view photos"],
            details: """
                Prints the viewer's URL (it holds a random token, required for the page and its WebSocket) and serves until \
                stopped. Each WebSocket is one connection to the daemon; the page and the JavaScript client come from the \
                binary, nothing from the network. Only GET with a loopback Host is answered; a WebSocket needs this server's \
                own Origin; a message is capped at the daemon's maximumLineLength. Listening on an address that is not \
                loopback is allowed, with a warning: the token is then the only guard.
                """,
            exitCodes: [("1", "the daemon cannot be reached, or the address cannot be listened on (a taken port)"), ("64", "usage error")],
            run: ToolCommands.web),
        Command(
            "call", "METHOD [JSON]", "call any method with JSON params; --batch: JSON request lines on stdin, one reply line each",
            options: [CommandOption("--batch", "read request lines from stdin, print each reply line")],
            examples: [#"layoutctl call view.item '{"view":"photos","id":"p4"}'"#, "layoutctl call --batch < requests.jsonl"],
            run: ToolCommands.callMethod),
        Command("help", "[COMMAND]", "help for layoutctl or one command", examples: ["layoutctl help create"], run: ToolCommands.help),
        Command(
            "completion", "bash|zsh", "print a shell completion script",
            examples: ["source <(layoutctl completion bash)", "layoutctl completion zsh > ~/.zfunc/_layoutctl"],
            details: """
                Completes commands, options, files, and view and strategy names asked from the daemon (at most \(CommandCatalog.completionTimeout) s; \
                silently nothing without one). Where a command takes NAME=VALUE (create --param, configure, switch, \
                begin-transition, render --configure) it offers the parameter names of the strategy the line names, else \
                of the view's, else of flow, from the daemon's descriptors (plugins included) or, without a daemon, the \
                built-in strategies'; after NAME= a choice's values or true and false.
                """,
            run: ToolCommands.completion),
        Command("man", "", "print the man page (roff)", examples: ["layoutctl man > layoutctl.1"], run: ToolCommands.man),
    ]


    /// Commands for scripts, not people: left out of help, the man page and the completions.
    static let hiddenCommands: [Command] = [
        Command(
            "__complete", "views|strategies|parameters [STRATEGY [VIEW]]", "names for the shell completions, one a line, from the running daemon",
            details: """
                Prints nothing and exits 1 when the daemon cannot be asked; the completion scripts discard that. `parameters` \
                prints NAME= for each parameter of STRATEGY (else of VIEW's strategy, else of flow, create's default), then \
                NAME=VALUE for each choice and true/false for each bool; without a daemon, from the built-in strategies.
                """,
            run: ToolCommands.complete),
    ]

}
