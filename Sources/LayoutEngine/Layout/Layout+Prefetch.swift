import LayoutGeometry

extension Layout {
    /// The cells that enter `window` within `horizon` seconds when it moves at `velocity`
    /// (points per second; only its scroll-axis part counts), in the order they enter (ties in
    /// reading order), at most `maximum` of them: what a client starts loading before it needs it. Cells
    /// the window already touches are not named.
    ///
    /// - Complexity: O(log n + k log k) for the k cells in the band the window sweeps.
    public func prefetch(window: Rect, velocity: Point, horizon: Double, maximum: Int) -> [String] {
        let axis = strategy.scrollAxis
        let reach = axis.main(of: velocity) * horizon
        guard reach != 0, reach.isFinite, maximum > 0 else { return [] }
        let main = axis.mainRange(of: window)
        let cross = axis.crossRange(of: window)
        let start = reach > 0 ? main.max : main.min + reach
        let band = axis.rect(cross: cross.min, main: start, crossExtent: cross.max - cross.min, mainExtent: abs(reach))
        var entering = elements(in: band).filter { $0.kind == .cell && !$0.frame.intersects(window) }
        // Moving forward a cell enters when its leading edge reaches the window's end; moving
        // back, when its trailing edge reaches the window's start.
        func entry(_ attributes: LayoutAttributes) -> Double {
            let range = axis.mainRange(of: attributes.frame)
            return reach > 0 ? range.min : -range.max
        }
        entering.sort { (entry($0), $0.section, $0.item ?? 0) < (entry($1), $1.section, $1.item ?? 0) }
        return entering.prefix(maximum).map(\.id)
    }
}
