// swift-tools-version:6.0
import PackageDescription

// The libFuzzer drivers, a package of their own so that the main build never links them:
// each needs libFuzzer's main(), which only `swift build --sanitize fuzzer` provides.
// `make fuzz` builds and runs them; the targets themselves live in LayoutFuzzing.
let targets = ["framer", "request", "service", "mutations"]

let package = Package(
    name: "layoutd-fuzz",
    dependencies: [.package(name: "layoutd", path: "..")],
    targets: targets.map { name in
        .executableTarget(
            name: "fuzz-\(name)", dependencies: [.product(name: "LayoutFuzzing", package: "layoutd")],
            // One file that is not main.swift: libFuzzer's main() runs it.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])])
    },
    swiftLanguageModes: [.v6]
)
