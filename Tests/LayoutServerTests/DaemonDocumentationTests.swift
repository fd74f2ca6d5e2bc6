import Foundation
import LayoutServer
import Testing

/// docs/running.md and the man pages say what the tables say. Re-record the settings table in
/// docs/running.md with LAYOUTD_RECORD=1.
@Suite("settings documentation")
struct ServerSettingsDocumentationTests {
    static let document = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/running.md").standardized
    static let begin = "<!-- settings table: generated, do not edit -->\n"
    static let end = "<!-- end of settings table -->\n"

    @Test("docs/running.md's settings table is the one the code generates")
    func documentedTable() throws {
        let text = try String(contentsOf: Self.document, encoding: .utf8)
        let start = try #require(text.range(of: Self.begin), "docs/running.md has no '\(Self.begin)' marker")
        let stop = try #require(text.range(of: Self.end, range: start.upperBound..<text.endIndex), "docs/running.md has no '\(Self.end)' marker")
        let current = String(text[start.upperBound..<stop.lowerBound])
        if ProcessInfo.processInfo.environment["LAYOUTD_RECORD"] == "1", current != ServerSettings.markdownTable {
            let updated = text.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: ServerSettings.markdownTable)
            try updated.write(to: Self.document, atomically: true, encoding: .utf8)
            return
        }
        #expect(current == ServerSettings.markdownTable, "docs/running.md's settings table is stale: re-record with LAYOUTD_RECORD=1")
    }

    static let configuration = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../systemd/layoutd.conf").standardized

    @Test("the shipped default configuration is the one the code generates, and its lines are the defaults")
    func defaultConfiguration() throws {
        let text = try String(contentsOf: Self.configuration, encoding: .utf8)
        if ProcessInfo.processInfo.environment["LAYOUTD_RECORD"] == "1", text != ServerSettings.defaultConfiguration {
            try ServerSettings.defaultConfiguration.write(to: Self.configuration, atomically: true, encoding: .utf8)
            return
        }
        #expect(text == ServerSettings.defaultConfiguration, "systemd/layoutd.conf is stale: re-record with LAYOUTD_RECORD=1")
        // Every numeric setting appears once, and uncommented the file sets exactly the defaults.
        // A commented-out line is `# NAME = VALUE`; prose never has `=` as its second word.
        let assignments = text.split(separator: "\n").map { $0.dropFirst(2) }.filter { line in
            let words = line.split(separator: " ", maxSplits: 2)
            return words.count == 3 && words[1] == "="
        }
        let numeric = assignments.filter { line in ServerSettings.keys.contains { line.hasPrefix($0.name + " ") } }
        #expect(numeric.count == ServerSettings.keys.count)
        var settings = ServerSettings()
        try settings.apply(configuration: numeric.joined(separator: "\n"), file: "layoutd.conf")
        #expect(settings == ServerSettings())
        #expect(Set(assignments.map { String($0.split(separator: " ")[0]) }) == Set(ServerSettings.names))
    }

    @Test("every setting is documented once, with a meaning and a default")
    func everySetting() {
        let rows = ServerSettings.documentation
        #expect(rows.map(\.name) == ServerSettings.names)
        #expect(Set(rows.map(\.name)).count == rows.count)
        for row in rows {
            #expect(!row.summary.isEmpty, "\(row.name) has no meaning")
            #expect(!row.defaultText.isEmpty, "\(row.name) has no default")
        }
    }

    @Test("defaults read as a configuration file writes them, and every default is valid")
    func defaults() throws {
        let row = try #require(ServerSettings.documentation.first { $0.name == "shutdown-deadline" })
        #expect(row.defaultText == "5")
        #expect(row.rangeText == "0.01 … 3600 s")
        #expect(ServerSettings.documentation.first { $0.name == "max-line-length" }?.rangeText == "256 … 2^30")
        var settings = ServerSettings()
        for key in ServerSettings.keys { try settings.set(key.name, to: key.defaultText) }
        #expect(settings == ServerSettings())
    }
}

@Suite("daemon command line")
struct DaemonOptionTests {
    @Test("the help keeps its lines: each option's signature, then its summary lines in a column")
    func help() {
        let help = DaemonOption.usage(DaemonOption.Context(defaultPluginDirectory: "/usr/lib/layoutd/plugins"))
        let expected = """
            usage: layoutd [options]

              -s, --socket PATH          listen here (else $LAYOUTD_SOCKET, $XDG_RUNTIME_DIR/layoutd/ipc.sock,
                                         /run/layoutd/ipc.sock)
              -c, --config FILE          settings file: 'name = value' lines; re-read on SIGHUP and daemon.reload
              --plugin-dir DIR           load strategy plugins (*.so) from DIR (repeatable; also
                                         'plugin-dir = DIR' lines in the file), before the default
                                         /usr/lib/layoutd/plugins
                                         ('default-plugin-dir = none' turns the default off)
              --set NAME=VALUE           one setting (repeatable), over the file; names:
                                         \(ServerSettings.names.joined(separator: ", "))
              --log-level LEVEL          error, warning, notice, info (default) or debug
              --print-socket-path        print the socket path this would use and exit
              --man SECTION              print the man page layoutd(8) (SECTION 8) or layoutd.conf(5) (SECTION 5)
                                         as roff and exit
              --version                  print the version and exit
              -h, --help                 print this help and exit

            """
        #expect(help == expected)
    }

    @Test("options fill in what they name, in order; --name=VALUE works for every value option")
    func parsing() throws {
        let options = try DaemonOption.parse([
            "-s", "/tmp/a.sock", "--config=/etc/x.conf", "--set", "max-views=3", "--plugin-dir", "/p", "--log-level", "debug",
            "--print-socket-path",
        ])
        #expect(options.socket == "/tmp/a.sock")
        #expect(options.config == "/etc/x.conf")
        #expect(options.overrides.map { "\($0.0)=\($0.1)" } == ["max-views=3", "plugin-dir=/p"])
        #expect(options.logLevel == .debug)
        #expect(options.printSocketPath)
        #expect(options.request == nil)
    }

    @Test("the first --help, --version or --man ends the reading")
    func requests() throws {
        #expect(try DaemonOption.parse(["--version", "--bogus"]).request == .version)
        #expect(try DaemonOption.parse(["-h"]).request == .help)
        #expect(try DaemonOption.parse(["--man", "8"]).request == .manual(.daemon))
        #expect(try DaemonOption.parse(["--man=5"]).request == .manual(.configuration))
    }

    @Test(
        "usage errors name the problem, and say whether the usage follows",
        arguments: [
            (["--man", "7"], "--man takes 8 (layoutd) or 5 (layoutd.conf), not '7'", true),
            (["--man"], "--man needs a value", true),
            (["--bogus"], "unknown option '--bogus'", true),
            (["--print-socket-path=yes"], "unknown option '--print-socket-path=yes'", true),
            (["--set", "max-views"], "--set takes NAME=VALUE", false),
            (["--log-level", "loud"], "unknown log level 'loud'", false),
        ])
    func usageErrors(arguments: [String], message: String, showsUsage: Bool) {
        do {
            _ = try DaemonOption.parse(arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(error.message == message)
            #expect(error.showsUsage == showsUsage)
        }
    }
}

@Suite("man pages")
struct ManualPageTests {
    /// How a name appears in roff: every hyphen escaped.
    static func roff(_ text: String) -> String { text.replacingOccurrences(of: "-", with: "\\-") }

    @Test("layoutd(8) names every option and every exit status, and carries no date")
    func daemonPage() {
        let page = ManualPage.daemon.roff(version: "9.9.9")
        #expect(page.hasPrefix(".TH LAYOUTD 8 \"\" \"layoutd 9.9.9\""))
        for option in DaemonOption.all {
            #expect(page.contains(".B " + Self.roff(option.signature) + "\n"), "\(option.name) missing")
        }
        for status in ExitStatus.allCases {
            #expect(page.contains(".B \(status.rawValue)\n"), "exit status \(status) missing")
        }
        for section in ["SYNOPSIS", "DESCRIPTION", "OPTIONS", "SETTINGS", "SOCKET", "SIGNALS", "ENVIRONMENT", "FILES", "EXIT STATUS", "SEE ALSO"] {
            #expect(page.contains(".SH \(section)\n"), "no \(section)")
        }
    }

    @Test("layoutd.conf(5) lists every setting with its default and meaning")
    func configurationPage() {
        let page = ManualPage.configuration.roff(version: "9.9.9")
        #expect(page.components(separatedBy: "Default: ").count - 1 == ServerSettings.documentation.count)
        #expect(page.hasPrefix(".TH LAYOUTD.CONF 5 \"\" \"layoutd 9.9.9\""))
        for row in ServerSettings.documentation {
            #expect(page.contains(".B " + Self.roff(row.name) + "\n"), "\(row.name) missing")
            if !row.rangeText.isEmpty { #expect(page.contains("Default: \(row.defaultText)."), "\(row.name)'s default missing") }
            #expect(page.contains(row.readAtStartOnly ? "Read at start only." : "Applied by a reload."))
        }
    }

    @Test("no text line of a page starts with a control character roff would take as a request")
    func noStrayRequests() {
        for page in ManualPage.allCases {
            let roff = page.roff(version: "1.0")
            let known = [".TH", ".SH", ".SS", ".TP", ".PP", ".B ", ".BR", ".br", ".nf", ".fi", ".nh"]
            for line in roff.split(separator: "\n") where line.hasPrefix(".") || line.hasPrefix("'") {
                #expect(known.contains { line.hasPrefix($0) }, "\(page): \(line)")
            }
        }
    }
}
