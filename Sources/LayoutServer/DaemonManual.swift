import LayoutIPC

/// The man pages `layoutd --man` prints: layoutd(8) from `DaemonOption.all` and `ExitStatus`,
/// layoutd.conf(5) from `ServerSettings.keys` and `pathKeys`. Generated, so what they list is
/// what the code does; the prose around the tables says what no table holds.
public enum ManualPage: String, CaseIterable, Sendable {
    case daemon = "8"
    case configuration = "5"

    /// The page's roff. `.TH` carries no date: the page must be the same whenever it is built.
    ///
    /// - Parameter version: layoutd's version, for the `.TH` footer.
    public func roff(version: String) -> String {
        switch self {
        case .daemon: Self.daemonPage(version: version)
        case .configuration: Self.configurationPage(version: version)
        }
    }

    /// The man page shows the place under any prefix; `--help` the one this executable uses.
    static let context = DaemonOption.Context(defaultPluginDirectory: "<prefix>/lib/layoutd/plugins")

    // MARK: layoutd(8)

    static func daemonPage(version: String) -> String {
        var roff = ".TH LAYOUTD 8 \"\" \"layoutd \(version)\" \"System Administration\"\n" + noHyphenation
        roff += ".SH NAME\nlayoutd \\- the collection\\-layout daemon\n"
        roff += ".SH SYNOPSIS\n.B layoutd\n[\\fIOPTIONS\\fR]\n"
        roff += section("DESCRIPTION", [
            "layoutd lays out collections (sections of items with sizes) for clients that talk to it over a Unix socket: one JSON request per line, one JSON reply per line, and events for the views a client subscribed to. Views live in memory; a restart loses them. `layoutctl`(1) drives it from a shell.",
            "It reads its options, then its settings (the defaults, then the `--config` file, then `--set` and `--plugin-dir` in order), takes its socket, loads the strategy plugins and serves until SIGTERM or SIGINT. Under systemd it sends READY=1 once the plugins are loaded and the socket accepts, and pings the watchdog while every view answers.",
        ])
        roff += ".SH OPTIONS\n"
        for option in DaemonOption.all {
            roff += ".TP\n.B \(escape(option.signature))\n\(text(option.summary(context).joined(separator: " ")))\n"
        }
        roff += section("SETTINGS", [
            "Limits, timeouts and plugin directories are settings: `name = value` lines in the `--config` file, each of which `--set` `NAME=VALUE` overrides. `layoutd.conf`(5) lists them with their defaults and ranges and says which a reload applies. A setting the daemon does not know, or a value out of its range, stops a start with status 78 and leaves a reload without effect.",
        ])
        roff += section("SOCKET", [
            "layoutd listens on the first of: the `--socket` option; `$LAYOUTD_SOCKET`; `$XDG_RUNTIME_DIR/layoutd/ipc.sock`; `\(SocketPath.systemPath)` (the system service's socket). An empty value counts as unset. `--print-socket-path` prints the path and exits; `layoutctl`(1) looks in the same places.",
            "A socket passed by systemd (socket activation: LISTEN_FDS, the one named `ipc` by FileDescriptorName=, or a single unnamed one) wins over all of them: the daemon serves it and leaves the file to systemd.",
            "Otherwise it creates the directory (0700) and the socket (0600, bound under umask 0177). It refuses to start where another daemon answers, and replaces a stale socket file that nothing answers on, never a file that is not a socket. Only the daemon's uid and root may connect (SO_PEERCRED); others get `PermissionDenied`.",
        ])
        roff += ".SH SIGNALS\n"
        roff += tagged([
            ("SIGTERM, SIGINT", "stop: no new connections; every connection gets `daemon.shutdown`, requests already read are answered, and the daemon exits 0 when the replies drained or `shutdown-deadline` seconds passed (5 by default)."),
            ("SIGHUP", "reload: the `--config` file is read again and the flags applied over it, and the plugin directories are scanned again, as the `daemon.reload` request does (`layoutctl reload`). A file that does not load changes nothing (the error is logged; `daemon.reload` answers `ReloadFailed`)."),
            ("SIGPIPE", "ignored: a client that went away is a failed write, not a stopped daemon."),
        ])
        roff += ".SH ENVIRONMENT\n"
        roff += tagged([
            ("LAYOUTD_SOCKET", "the socket path when `--socket` is not given."),
            ("XDG_RUNTIME_DIR", "`$XDG_RUNTIME_DIR/layoutd/ipc.sock` is next in line."),
            ("LISTEN_FDS, LISTEN_PID, LISTEN_FDNAMES", "set by systemd for socket activation: the socket to serve. Cleared once read, so no child sees them."),
            ("NOTIFY_SOCKET", "set by systemd for Type=notify: READY=1, RELOADING=1, STOPPING=1 and STATUS= messages go there."),
            ("WATCHDOG_USEC, WATCHDOG_PID", "set by systemd for WatchdogSec=: the daemon pings every half interval while its views answer within `watchdog-view-timeout`."),
            ("JOURNAL_STREAM", "set by systemd when stderr is the journal: log entries then go to the journal natively, with fields; otherwise stderr gets `<priority>message key=value` lines."),
            ("MALLOC_ARENA_MAX", "when set, glibc's malloc arenas as given; otherwise layoutd uses one arena per core (at least 2), which keeps memory freed by one request's thread in use by the next."),
        ])
        roff += ".SH FILES\n"
        roff += tagged([
            ("/etc/layoutd/layoutd.conf", "the configuration file the units pass with `--config`, installed with every setting commented out at its default (for PREFIX=/usr; `<prefix>/etc/layoutd/layoutd.conf` for another prefix). See `layoutd.conf`(5)."),
            ("<prefix>/lib/layoutd/plugins", "the default plugin directory, for a layoutd installed as `<prefix>/bin/layoutd`: found from the executable's path, scanned after the `plugin-dir` directories, and skipped when any directory above it may be written by others. Its absence is normal (a binary run from the build tree has none) and logged at debug level only, where a `plugin-dir` directory that does not exist is a warning."),
            ("<prefix>/lib/systemd/system/layoutd.socket, layoutd.service", "the system service: the socket `\(SocketPath.systemPath)` and the hardened service it starts."),
            ("<prefix>/lib/systemd/user/layoutd.socket, layoutd.service", "the same for one login session, on `$XDG_RUNTIME_DIR/layoutd/ipc.sock` (`systemctl --user enable --now layoutd.socket`)."),
        ])
        roff += ".SH EXIT STATUS\n"
        roff += tagged(ExitStatus.allCases.map { (String($0.rawValue), $0.meaning) })
        roff += ".SH SEE ALSO\n.BR layoutctl (1),\n.BR layoutd.conf (5),\n.BR systemd.socket (5),\n.BR sd_notify (3)\n"
        return roff
    }

    // MARK: layoutd.conf(5)

    static func configurationPage(version: String) -> String {
        var roff = ".TH LAYOUTD.CONF 5 \"\" \"layoutd \(version)\" \"File Formats\"\n" + noHyphenation
        roff += ".SH NAME\nlayoutd.conf \\- layoutd settings\n"
        roff += ".SH SYNOPSIS\n/etc/layoutd/layoutd.conf\n"
        roff += section("DESCRIPTION", [
            "The file `layoutd`(8) reads with `--config`: its limits, timeouts and plugin directories. Settings come from the defaults, then this file, then the `--set` `NAME=VALUE` and `--plugin-dir` flags in order, so a flag wins over the file.",
        ])
        roff += section("FORMAT", [
            "One `name = value` per line; spaces and tabs around the name and the value are ignored. A `#` starts a comment that runs to the end of the line; blank lines are ignored. A line without `=`, a name the daemon does not know, or a value that is not a number within the setting's range is refused with the file and line number.",
            "Counts and sizes (in bytes) are positive integers (`io-threads` may be 0); timeouts are positive numbers of seconds and may have a fraction (`2.5`).",
            "The file must be a regular file of at most 1 MiB: a directory, a FIFO or a device is refused (it is opened without blocking, so none can hold up a start or a reload), and so is a larger file.",
        ])
        roff += ".SH SETTINGS\n"
        for row in ServerSettings.documentation {
            var details = "Default: \(row.defaultText)."
            if !row.rangeText.isEmpty { details += " Range: \(row.rangeText)." }
            details += row.readAtStartOnly ? " Read at start only." : " Applied by a reload."
            roff += ".TP\n.B \(escape(row.name))\n\(text(row.summary.prefix(1).uppercased() + row.summary.dropFirst())).\n.br\n\(text(details))\n"
        }
        roff += section("RELOADING", [
            "SIGHUP and the `daemon.reload` request (`layoutctl reload`, what `systemctl reload layoutd` runs) read the file again, apply the flags over it and scan the plugin directories again. Connection settings apply at once, to open connections too (a new `max-line-length` to the line being read); the settings read at start only keep their values until the daemon restarts, and the reply lists them in `restartRequired`.",
            "A file that does not load (refused as above, unreadable, or with `output-limit` below `output-cap`) changes nothing: the daemon keeps what it had, logs the error, and `daemon.reload` answers with the error `ReloadFailed`. At start the same file stops the daemon with exit status 78.",
        ])
        roff += section("EXAMPLE", [])
        roff += ".nf\n\(text("# Smaller lines and a longer drain on stop; plugins from /etc as well."))\nmax\\-line\\-length = 65536\nshutdown\\-deadline = 20\nplugin\\-dir = /etc/layoutd/plugins\n.fi\n"
        roff += ".SH SEE ALSO\n.BR layoutd (8),\n.BR layoutctl (1)\n"
        return roff
    }

    // MARK: roff

    /// Names of options and settings are full of hyphens: broken across lines they no longer
    /// read as what to type.
    static let noHyphenation = ".nh\n"

    /// A section of paragraphs.
    static func section(_ title: String, _ paragraphs: [String]) -> String {
        ".SH \(title)\n" + paragraphs.map { text($0) + "\n" }.joined(separator: ".PP\n")
    }

    /// `.TP` entries: a bold tag, then its paragraph.
    static func tagged(_ entries: [(String, String)]) -> String {
        entries.map { ".TP\n.B \(escape($0.0))\n\(text($0.1))\n" }.joined()
    }

    /// Prose with `code spans` in bold (so `page`(N) reads as a page reference).
    static func text(_ prose: String) -> String {
        var roff = ""
        for (index, part) in prose.split(separator: "`", omittingEmptySubsequences: false).enumerated() {
            roff += index % 2 == 1 ? "\\fB\(escape(String(part)))\\fR" : escape(String(part))
        }
        return roff
    }

    /// Text that roff must not read as requests or escapes: backslashes, hyphens (which roff
    /// would set as breakable hyphens, not the minus of an option), quotes, a leading dot, and
    /// the one non-ASCII character the tables use.
    static func escape(_ text: String) -> String {
        var roff = ""
        for character in text {
            switch character {
            case "\\": roff += "\\e"
            case "-": roff += "\\-"
            case "'": roff += "\\(aq"
            case "…": roff += "\\(en"
            case "." where roff.isEmpty: roff += "\\&."
            default: roff.append(character)
            }
        }
        return roff
    }
}
