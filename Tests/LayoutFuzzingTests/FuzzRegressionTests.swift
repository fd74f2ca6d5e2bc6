import Foundation
@testable import LayoutFuzzing
import LayoutService
import Testing

/// Every committed seed and every input a fuzzer once broke the code with, run through the
/// same target functions libFuzzer drives (`make fuzz`), so a fixed crash stays fixed.
@Suite("fuzz corpus and regressions")
struct FuzzRegressionTests {
    static let fuzzDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("fuzz")

    /// (target, "corpus/<target>/<file>" or "regressions/<target>/<file>").
    static let inputs: [(String, String)] = FuzzTargets.all.flatMap { target in
        ["corpus", "regressions"].flatMap { kind in
            let directory = fuzzDirectory.appendingPathComponent(kind).appendingPathComponent(target.name)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { (target.name, "\(kind)/\(target.name)/\($0)") }
        }
    }

    @Test("each target has seeds")
    func everyTargetHasSeeds() {
        for target in FuzzTargets.all {
            #expect(Self.inputs.contains { $0.0 == target.name && $0.1.hasPrefix("corpus/") }, "no seeds for \(target.name)")
        }
    }

    @Test("a committed input breaks no invariant", arguments: inputs)
    func input(target: String, path: String) throws {
        let data = try Data(contentsOf: Self.fuzzDirectory.appendingPathComponent(path))
        let run = try #require(FuzzTargets.named(target))
        for failure in run(Array(data)) {
            Issue.record("\(path): \(failure)")
        }
    }
}

/// The targets' own machinery, so that a target that cannot fail is noticed.
@Suite("fuzz targets")
struct FuzzTargetTests {
    @Test("the framer's reference reading")
    func referenceFraming() {
        let bytes = Array("ab\r\n \t\n\ncd\nlong line\npartial".utf8)
        let read = FuzzTargets.referenceLines(bytes, limit: 8)
        #expect(read.lines == [Array("ab".utf8), Array("cd".utf8)])
        #expect(read.failed)
        let tail = FuzzTargets.referenceLines(Array("ok\n123456789".utf8), limit: 8)
        #expect(tail.lines == [Array("ok".utf8)] && tail.failed)
        #expect(!FuzzTargets.referenceLines(Array("12345678\r".utf8), limit: 8).failed)
    }

    @Test("bytes map monotonically onto ranges and run dry into a generator that terminates")
    func fuzzBytes() {
        var source = FuzzBytes([0, 128, 255])
        #expect(Int.random(in: 0..<10, using: &source) == 0)
        #expect(Int.random(in: 0..<10, using: &source) == 5)
        #expect(Int.random(in: 0..<10, using: &source) == 9)
        #expect(source.isExhausted)
        let drawn = (0..<100).map { _ in Int.random(in: 0..<1000, using: &source) }
        #expect(Set(drawn).count > 50, "the fallback generator varies")
    }

    @Test("the service target notices a refused request that changed a view")
    func serviceStateCatchesChanges() {
        let service = LayoutService()
        _ = service.handle(
            line: Array(#"{"id":1,"method":"view.create","params":{"view":"v","strategy":"flow","viewport":{"width":100,"height":100},"sections":[{"id":"s","items":[{"id":"a"},{"id":"b"},{"id":"c"}]}]}}"#.utf8), from: 1)
        let before = FuzzTargets.state(of: service)
        _ = service.handle(line: Array(#"{"id":1,"method":"view.scroll","params":{"view":"v","offset":{"x":0,"y":40}}}"#.utf8), from: 1)
        #expect(FuzzTargets.state(of: service) != before)
    }
}
