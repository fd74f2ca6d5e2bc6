import Glibc
import LayoutFuzzing

/// The target this process fuzzes, named by LAYOUT_FUZZ_TARGET (scripts/fuzz.py sets it).
private let target: @Sendable ([UInt8]) -> [String] = {
    let name = getenv("LAYOUT_FUZZ_TARGET").map { String(cString: $0) } ?? ""
    guard let run = FuzzTargets.named(name) else {
        fatalError("LAYOUT_FUZZ_TARGET must be one of \(FuzzTargets.all.map(\.name).joined(separator: ", ")), not '\(name)'")
    }
    return run
}()

// libFuzzer's entry point; libFuzzer supplies main(). A broken invariant traps, and the
// fuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let failures = target(bytes)
    if !failures.isEmpty { fatalError(failures.joined(separator: "\n")) }
    return 0
}
