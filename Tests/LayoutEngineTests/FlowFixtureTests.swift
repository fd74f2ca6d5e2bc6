import LayoutEngine
import LayoutGeometry
import Testing

/// One runner for every file in `Tests/Fixtures/flow/`: each runs as written and, unless it
/// opts out, transposed into the other scroll direction. A failure prints the input, the
/// expected and the actual frames.
@Suite("flow fixtures")
struct FlowFixtureTests {
    static let files = Fixture.files(strategy: "flow")

    @Test("there are at least 40 flow fixtures")
    func fixtureCount() {
        #expect(Self.files.count >= 40, "found \(Self.files.count)")
    }

    @Test("fixture matches as written", arguments: files)
    func asWritten(file: String) throws {
        try FixtureRunner.run(try Fixture.load(file))
    }

    @Test("fixture matches transposed", arguments: files)
    func transposed(file: String) throws {
        let fixture = try Fixture.load(file)
        guard fixture.transposable else { return }
        try FixtureRunner.run(fixture.transposed)
    }
}

enum FixtureRunner {
    static let tolerance = 1e-6

    static func run(_ fixture: Fixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let layout = try Layout(
            strategy: StrategyRegistry.builtIn.makeStrategy(named: fixture.strategy, parameters: fixture.parameters),
            model: CollectionModel(sections: fixture.sections), viewport: fixture.viewport)
        try layout.select(fixture.selected, mode: .set)
        if !fixture.measurements.isEmpty {
            let changed = try layout.applyMeasurements(fixture.measurements)
            if let expected = fixture.expectedMeasured {
                let actual = changed.map { layout.model.itemID(at: $0) }
                #expect(actual == expected, "\(fixture): measurements that took effect", sourceLocation: sourceLocation)
            }
        }

        let all = allElements(of: layout)
        let queried = Dictionary(
            layout.elements(in: everywhere(layout.contentSize)).map { ($0.key, $0) }, uniquingKeysWith: { a, _ in a })
        var problems = [String]()
        if !layout.contentSize.isClose(to: fixture.expectedContentSize, tolerance: tolerance) {
            problems.append("content size: expected \(fixture.expectedContentSize), actual \(layout.contentSize)")
        }
        for (key, expected) in fixture.expectedFrames.sorted(by: { $0.key < $1.key }) {
            guard let actual = all[key] else {
                problems.append("\(key): expected \(expected.frame), actual missing")
                continue
            }
            if !actual.frame.isClose(to: expected.frame, tolerance: tolerance) {
                problems.append("\(key): expected \(expected.frame), actual \(actual.frame)")
            }
            if let zIndex = expected.zIndex, zIndex != actual.zIndex {
                problems.append("\(key): expected zIndex \(zIndex), actual \(actual.zIndex)")
            }
        }
        if fixture.complete {
            for key in all.keys.sorted() where fixture.expectedFrames[key] == nil {
                problems.append("\(key): not expected, actual \(all[key]!.frame)")
            }
        }
        if Set(queried.keys) != Set(all.keys) {
            problems.append("elements(in: everything) differs from per-element lookup:\n\(listing(queried))")
        }
        for (key, attributes) in queried where all[key] != attributes {
            problems.append("\(key): elements(in:) gave \(attributes.frame), attributes(for:) gave \(all[key]?.frame as Any)")
        }
        for query in fixture.queries {
            let actual = Set(layout.elements(in: query.rect).map(\.key))
            if actual != query.keys {
                problems.append("query \(query.rect): expected \(query.keys.sorted()), actual \(actual.sorted())")
            }
        }
        // The visible window must agree with brute force too, not only the whole content.
        let window = fixture.viewport.bounds
        let windowed = Set(layout.elements(in: window).map(\.key))
        let brute = Set(bruteForce(all, in: window).keys)
        if windowed != brute {
            problems.append("window query \(window): expected \(brute.sorted()), actual \(windowed.sorted())")
        }

        if !problems.isEmpty {
            Issue.record(
                Comment(rawValue: """
                    \(fixture)
                    INPUT: strategy \(fixture.strategy) params \(fixture.parameters.sorted { $0.key < $1.key })
                           viewport \(fixture.viewport.size) offset \(fixture.viewport.offset) insets \(fixture.viewport.contentInsets)
                           sections \(fixture.sections.map { "\($0.id): \($0.items.count) items" }) selected \(fixture.selected)
                    EXPECTED: content \(fixture.expectedContentSize)
                    \(fixture.expectedFrames.keys.sorted().map { "  \($0) \(fixture.expectedFrames[$0]!.frame)" }.joined(separator: "\n"))
                    ACTUAL: content \(layout.contentSize)
                    \(listing(all))
                    PROBLEMS:
                    \(problems.map { "  " + $0 }.joined(separator: "\n"))
                    """), sourceLocation: sourceLocation)
        }
    }
}
