// swift-tools-version:6.0
import PackageDescription

// Module boundaries follow ARCHITECTURE.md: LayoutGeometry and LayoutEngine are pure
// (no Foundation, no I/O); everything that talks to the outside world sits above them.

/// What the installed binaries link with: every symbol bound at start, so the relocation
/// tables can be read-only for the whole run (full RELRO; lintian's hardening-no-bindnow).
let bindNow = ["-Xlinker", "-z", "-Xlinker", "now"]

/// The request path's modules skip Swift's dynamic exclusivity checks in release builds: with
/// the thread-local access set they cost about 2,000 instructions of every view.scroll
/// outside the view operation (callgrind, issue 41), and each of these modules confines its
/// mutable state to one thread or a lock. Debug builds, which the test suite runs, keep them.
let releaseUnchecked: [SwiftSetting] = [.unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release))]

let package = Package(
    name: "layoutd",
    products: [
        .library(name: "LayoutGeometry", targets: ["LayoutGeometry"]),
        .library(name: "LayoutEngine", targets: ["LayoutEngine"]),
        .library(name: "LayoutProtocol", targets: ["LayoutProtocol"]),
        .library(name: "LayoutService", targets: ["LayoutService"]),
        .library(name: "LayoutIPC", targets: ["LayoutIPC"]),
        .library(name: "LayoutServer", targets: ["LayoutServer"]),
        .library(name: "Systemd", targets: ["Systemd"]),
        .library(name: "LayoutctlKit", targets: ["LayoutctlKit"]),
        // The typed async client an app adds with SwiftPM (clients/swift/README.md).
        .library(name: "LayoutdClient", targets: ["LayoutdClient"]),
        .library(name: "LayoutFuzzing", targets: ["LayoutFuzzing"]),
        .library(name: "LayoutPluginSDK", targets: ["LayoutPluginSDK"]),
        // Plugins: built by `make`, never linked into layoutd, loaded from a plugin directory.
        .library(name: "LayoutdWaterfall", type: .dynamic, targets: ["WaterfallPlugin"]),
        .library(name: "LayoutdCircleSwift", type: .dynamic, targets: ["CircleExample"]),
        .executable(name: "layoutd", targets: ["layoutd"]),
        .executable(name: "layoutctl", targets: ["layoutctl"]),
        .executable(name: "layoutd-roundtrip", targets: ["layoutd-roundtrip"]),
        .executable(name: "layout-demo", targets: ["layout-demo"]),
        .executable(name: "layout-bench", targets: ["layout-bench"]),
        .executable(name: "layoutd-fdstore-check", targets: ["layoutd-fdstore-check"]),
    ],
    targets: [
        // libm: `rounded()` and friends lower to C math functions that a target without
        // Foundation or Glibc does not otherwise link.
        .target(name: "LayoutGeometry", linkerSettings: [.linkedLibrary("m")]),
        .target(name: "LayoutEngine", dependencies: ["LayoutGeometry"], swiftSettings: releaseUnchecked, linkerSettings: [.linkedLibrary("m")]),
        // Wire format: JSON values, a strict parser and writer of our own (Foundation's coders
        // cost microseconds per frame), and line framing.
        .target(name: "LayoutProtocol", dependencies: ["LayoutGeometry"], swiftSettings: releaseUnchecked, linkerSettings: [.linkedLibrary("m")]),
        // Strategy descriptors and parameter values as JSON: shared by the service, the plugin
        // loader and the plugin SDK, so a plugin's declaration reads back as clients see it.
        .target(name: "StrategyCodec", dependencies: ["LayoutEngine", "LayoutProtocol", "LayoutGeometry"]),
        // The plugin ABI: one C header (installed by `make install`), nothing else.
        .target(name: "CLayoutPlugin"),
        // What a Swift plugin author imports: a protocol for the strategy and one export call.
        .target(name: "LayoutPluginSDK", dependencies: ["CLayoutPlugin", "LayoutEngine", "LayoutProtocol", "StrategyCodec", "LayoutGeometry"]),
        // The waterfall algorithm, both as a native strategy (for tests and the benchmark's
        // built-in side) and, through the SDK, as the plugin layoutd ships.
        .target(name: "Waterfall", dependencies: ["LayoutEngine", "LayoutGeometry"], path: "Plugins/Waterfall/Sources/Waterfall"),
        .target(
            name: "WaterfallPlugin", dependencies: ["Waterfall", "LayoutPluginSDK"], path: "Plugins/Waterfall/Sources/WaterfallPlugin",
            // The plugin's own copies of our modules bind to themselves, never to a host's.
            linkerSettings: [.unsafeFlags(["-Xlinker", "-Bsymbolic"] + bindNow)]),
        // The README's example strategy, in Swift (the same one is in Plugins/CircleExample/c).
        .target(
            name: "CircleExample", dependencies: ["LayoutPluginSDK"], path: "Plugins/CircleExample/swift",
            linkerSettings: [.unsafeFlags(["-Xlinker", "-Bsymbolic"])]),
        // The daemon's side of plugins: loading shared objects from directories, checking
        // them, and a strategy that lays out through a plugin's C table.
        .target(name: "LayoutPlugins", dependencies: ["CLayoutPlugin", "LayoutEngine", "LayoutProtocol", "StrategyCodec", "LayoutGeometry"]),
        // Requests in, replies and events out, with no transport: testable without a socket.
        .target(name: "LayoutService", dependencies: ["LayoutEngine", "LayoutProtocol", "StrategyCodec", "LayoutGeometry"], swiftSettings: releaseUnchecked),
        // Unix sockets: discovery, listening with the stale-socket check, peer credentials.
        .target(name: "CSocketShims"),
        .target(name: "LayoutIPC", dependencies: ["CSocketShims"]),
        // The transport: I/O threads on epoll, limits, deadlines, drain on shutdown, reload.
        .target(name: "LayoutServer", dependencies: ["LayoutService", "LayoutIPC", "CSocketShims", "LayoutEngine", "LayoutProtocol"], swiftSettings: releaseUnchecked),
        // libsystemd (Debian: libsystemd-dev): socket activation, notify, watchdog, journal.
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        // libsystemd's notify, socket activation, fd store and journal; memfds for the fd store.
        .target(name: "Systemd", dependencies: ["CSystemd", "CSocketShims"]),
        .executableTarget(
            name: "layoutd", dependencies: ["CSocketShims", "LayoutServer", "LayoutIPC", "LayoutPlugins", "LayoutProtocol", "LayoutService", "Systemd"],
            linkerSettings: [.unsafeFlags(bindNow)]),
        // What clients share: a connection with replies and events apart, the command table
        // behind layoutctl's parsing, help, man page and completions, tables, and SVG pictures.
        .target(name: "LayoutctlKit", dependencies: ["LayoutProtocol", "LayoutGeometry"]),
        // The typed client for apps: async/await over one connection, events as an AsyncStream,
        // the window mirror and transition helper, the reconnect helper.
        .target(name: "LayoutdClient", dependencies: ["LayoutIPC", "LayoutProtocol", "LayoutGeometry"]),
        // Drives LayoutdClient against a real daemon for the e2e tests (transcripts, the shared
        // mirror scenario, a restart).
        .executableTarget(name: "layoutd-client-check", dependencies: ["LayoutdClient", "LayoutProtocol"]),
        // clients/swift/README.md's code, extracted by scripts/generate-protocol.py: `swift build`
        // compiles every Swift block of the README, system-tests/e2e/test_clients.py runs its example.
        .executableTarget(
            name: "layoutd-readme-example", dependencies: ["LayoutdClient", "LayoutProtocol", "LayoutGeometry"], path: "clients/swift/examples/readme"),
        // The client's long-run check (1M calls with events, RSS sampled): run by hand or by the
        // soak against a real daemon, in release.
        .executableTarget(
            name: "layoutd-client-longrun", dependencies: ["LayoutdClient", "LayoutProtocol", "LayoutGeometry"], path: "clients/swift/bench/longrun"),
        .executableTarget(
            name: "layoutctl", dependencies: ["LayoutctlKit", "LayoutdClient", "LayoutIPC", "LayoutProtocol", "LayoutGeometry"], linkerSettings: [.unsafeFlags(bindNow)]),
        // Loopback round trip against a running daemon, beside a bare socket ping-pong.
        .executableTarget(name: "layoutd-roundtrip", dependencies: ["LayoutIPC", "LayoutProtocol"]),
        .executableTarget(name: "layout-demo", dependencies: ["LayoutEngine", "LayoutGeometry"]),
        // The Systemd module's fd store blocks in a real process, under system-tests/e2e/fdstore.py.
        .executableTarget(name: "layoutd-fdstore-check", dependencies: ["Systemd"]),
        .executableTarget(name: "layout-bench", dependencies: ["LayoutEngine", "LayoutProtocol", "LayoutService", "LayoutPlugins", "Waterfall", "LayoutGeometry"]),
        // Fuzz targets and the generators and checks they share with the property tests:
        // built with libFuzzer by `make fuzz` (fuzz/Package.swift), run on the committed
        // corpus and crashes by `swift test`. Not shipped.
        .target(name: "LayoutFuzzing", dependencies: ["LayoutEngine", "LayoutProtocol", "LayoutService", "LayoutctlKit", "LayoutGeometry"]),
        // Helpers shared by the test targets (seeded random numbers); not shipped.
        .target(name: "TestSupport", dependencies: ["LayoutFuzzing"], path: "Tests/TestSupport"),
        .testTarget(name: "LayoutGeometryTests", dependencies: ["LayoutGeometry"]),
        .testTarget(name: "LayoutEngineTests", dependencies: ["LayoutEngine", "LayoutGeometry", "LayoutFuzzing", "TestSupport", "Waterfall"]),
        .testTarget(name: "LayoutProtocolTests", dependencies: ["LayoutProtocol", "LayoutGeometry", "LayoutFuzzing", "TestSupport"]),
        .testTarget(
            name: "LayoutServiceTests",
            dependencies: ["LayoutService", "LayoutProtocol", "LayoutEngine", "LayoutGeometry", "StrategyCodec", "LayoutFuzzing", "TestSupport"]),
        .testTarget(name: "LayoutServerTests", dependencies: ["LayoutServer", "LayoutIPC", "LayoutService"]),
        .testTarget(name: "LayoutFuzzingTests", dependencies: ["LayoutFuzzing", "LayoutService"]),
        .testTarget(
            name: "LayoutPluginsTests",
            dependencies: [
                "LayoutPlugins", "LayoutPluginSDK", "CLayoutPlugin", "StrategyCodec", "LayoutEngine", "LayoutGeometry", "LayoutFuzzing", "TestSupport",
                "Waterfall",
            ]),
        // LayoutEngine only to check ParameterCompletion.builtIn against the strategies' own
        // descriptors (layoutctl itself does not link the engine).
        .testTarget(name: "LayoutctlKitTests", dependencies: ["LayoutctlKit", "LayoutProtocol", "LayoutGeometry", "LayoutEngine"]),
        // layoutctl's command table and parser, through @testable import of the executable.
        .testTarget(name: "layoutctlTests", dependencies: ["layoutctl", "LayoutctlKit", "LayoutProtocol"]),
        .testTarget(name: "SystemdTests", dependencies: ["Systemd"]),
        .testTarget(name: "LayoutdClientTests", dependencies: ["LayoutdClient", "LayoutIPC", "LayoutProtocol", "LayoutGeometry"]),
    ],
    swiftLanguageModes: [.v6]
)
