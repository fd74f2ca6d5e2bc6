// swift-tools-version:6.0
import PackageDescription

// The libFuzzer driver, a package of its own so that the main build never links it: it needs
// libFuzzer's main(), which only `swift build --sanitize fuzzer` provides. `make fuzz` builds
// and runs it once per target (LAYOUT_FUZZ_TARGET); the targets live in LayoutFuzzing.
let package = Package(
    name: "layoutd-fuzz",
    dependencies: [.package(name: "layoutd", path: "..")],
    targets: [
        .executableTarget(
            name: "layout-fuzz", dependencies: [.product(name: "LayoutFuzzing", package: "layoutd")],
            // One file that is not main.swift: libFuzzer's main() runs it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    ],
    swiftLanguageModes: [.v6]
)
