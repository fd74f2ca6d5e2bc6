import LayoutFuzzing

// libFuzzer's entry point; libFuzzer supplies main(). A broken invariant traps, and the
// fuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let failures = FuzzTargets.framer(bytes)
    if !failures.isEmpty { fatalError("framer: " + failures.joined(separator: "\n")) }
    return 0
}
