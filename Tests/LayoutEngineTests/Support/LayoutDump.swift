import LayoutEngine
import LayoutGeometry

/// Every element of a layout, gathered one by one through `attributes(forItem:)` and
/// `attributes(forSupplementary:inSection:)`: an independent path from `elements(in:)`, so the
/// two can be checked against each other.
func allElements(of layout: Layout) -> [ElementKey: LayoutAttributes] {
    var result = [ElementKey: LayoutAttributes]()
    for section in layout.model.sections {
        for kind in [ElementKind.header, .footer] {
            if let attributes = layout.attributes(forSupplementary: kind, inSection: section.id) {
                result[attributes.key] = attributes
            }
        }
        for id in section.itemIDs {
            if let attributes = layout.attributes(forItem: id) { result[attributes.key] = attributes }
        }
    }
    return result
}

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

/// A rect one point larger than the content on every side: it catches zero-size frames on the
/// content's edges too.
func everywhere(_ contentSize: Size) -> Rect {
    Rect(x: -1, y: -1, width: contentSize.width + 2, height: contentSize.height + 2)
}
