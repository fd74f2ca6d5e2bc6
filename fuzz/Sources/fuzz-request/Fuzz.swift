import LayoutFuzzing

// libFuzzer's entry point; libFuzzer supplies main(). A broken invariant traps, and the
// fuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let failures = FuzzTargets.request(bytes)
    if !failures.isEmpty { fatalError("request: " + failures.joined(separator: "\n")) }
    return 0
}
