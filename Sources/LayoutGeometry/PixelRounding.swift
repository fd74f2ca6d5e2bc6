/// Snapping to the device pixel grid, for clients that want crisp edges.
///
/// Layout math stays unrounded (UIKit's flow layout hands out fractional frames too); rounding
/// is a presentation step. Edges are rounded, not origin and size separately, so two frames that
/// touch before rounding still touch after it.
extension Rect {
    public func roundedToPixels(scale: Double) -> Rect {
        guard scale > 0, scale.isFinite else { return self }
        let minX = (self.minX * scale).rounded() / scale
        let minY = (self.minY * scale).rounded() / scale
        let maxX = (self.maxX * scale).rounded() / scale
        let maxY = (self.maxY * scale).rounded() / scale
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

extension Double {
    public func roundedToPixels(scale: Double) -> Double {
        guard scale > 0, scale.isFinite else { return self }
        return (self * scale).rounded() / scale
    }
}
