import LayoutGeometry
import Testing

/// The curves against values solved independently (bisection to 1e-15 on the same control
/// points, CSS's `ease-in`, `ease-out`, `ease-in-out`): a client in any language that solves the
/// cubic Bézier gets these, and so does a browser given the CSS name.
@Suite("animation curves")
struct AnimationCurveTests {
    static let vectors: [(AnimationCurve, [(Double, Double)])] = [
        (.linear, [(0, 0), (0.1, 0.1), (0.25, 0.25), (0.5, 0.5), (0.9, 0.9), (1, 1)]),
        (.easeIn, [(0, 0), (0.1, 0.017026609652), (0.25, 0.093464650719), (0.5, 0.315356812573), (0.75, 0.621861869175), (0.9, 0.839427845762), (1, 1)]),
        (.easeOut, [(0, 0), (0.1, 0.160572154238), (0.25, 0.378138130825), (0.5, 0.684643187427), (0.75, 0.906535349281), (0.9, 0.982973390348), (1, 1)]),
        (.easeInOut, [(0, 0), (0.1, 0.019722453548), (0.25, 0.129161931047), (0.5, 0.5), (0.75, 0.870838068953), (0.9, 0.980277546452), (1, 1)]),
    ]

    @Test("progress at known times", arguments: vectors.map(\.0))
    func knownValues(curve: AnimationCurve) {
        let points = Self.vectors.first { $0.0 == curve }!.1
        for (time, expected) in points {
            let actual = curve.progress(at: time)
            #expect(abs(actual - expected) < 1e-9, "\(curve) at \(time): expected \(expected), actual \(actual)")
        }
    }

    @Test("monotonic, clamped outside 0...1, and easeIn mirrors easeOut")
    func shape() {
        for curve in AnimationCurve.allCases {
            var last = 0.0
            for step in 0...1000 {
                let value = curve.progress(at: Double(step) / 1000)
                #expect(value >= last - 1e-12, "\(curve) goes back at \(step)")
                last = value
            }
            #expect(curve.progress(at: -1) == 0 && curve.progress(at: 2) == 1)
        }
        for step in 0...100 {
            let t = Double(step) / 100
            #expect(abs(AnimationCurve.easeIn.progress(at: t) - (1 - AnimationCurve.easeOut.progress(at: 1 - t))) < 1e-9)
        }
    }
}
