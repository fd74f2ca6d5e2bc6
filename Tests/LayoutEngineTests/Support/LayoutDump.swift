import LayoutEngine
import LayoutFuzzing
import LayoutGeometry

/// Elements of `all` whose frames intersect `rect`: the brute-force answer a query must match.
func bruteForce(_ all: [ElementKey: LayoutAttributes], in rect: Rect) -> [ElementKey: LayoutAttributes] {
    all.filter { $0.value.frame.intersects(rect) }
}

/// A stable, readable listing of elements for failure messages.
func listing(_ elements: [ElementKey: LayoutAttributes]) -> String {
    elements.keys.sorted().map { key in
        let attributes = elements[key]!
        return "  \(key) \(attributes.frame) z\(attributes.zIndex)"
    }.joined(separator: "\n")
}

/// A rect far larger than the content on every side: it catches zero-size frames on the
/// content's edges too.
func everywhere(_ contentSize: Size) -> Rect {
    // Far beyond the content: an orthogonal section's cells, badges and offset boundary items lie
    // outside the content rect.
    Rect(x: -1e7, y: -1e7, width: contentSize.width + 2e7, height: contentSize.height + 2e7)
}
