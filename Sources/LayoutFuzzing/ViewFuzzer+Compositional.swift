import LayoutEngine
import LayoutGeometry

/// Random compositional descriptions and section scrolls: every part the strategy reads
/// (dimensions of each kind, nested groups, repeated and equal subitems, edge spacing, insets,
/// badges, boundary items pinned or not, backgrounds, list presets, every orthogonal
/// behaviour), small enough to lay out quickly.
extension ViewFuzzer {
    /// Parameters for a compositional view: a default section layout and layouts for some of
    /// `sectionIDs`.
    public mutating func compositionalParameters(sectionIDs: [String]) -> [String: ParameterValue] {
        var byID = [String: ParameterTree]()
        for id in sectionIDs where chance(50) { byID[id] = compositionalSection() }
        var parameters: [String: ParameterValue] = [
            "section": .tree(compositionalSection()), "sections": .tree(.object(byID)),
        ]
        if chance(20) { parameters["scrollDirection"] = .string("horizontal") }
        if chance(30) { parameters["interSectionSpacing"] = .number(half(0...40)) }
        return parameters
    }

    public mutating func compositionalSection() -> ParameterTree {
        if chance(20) {
            var list: [String: ParameterTree] = [
                "appearance": .string(pick(["plain", "grouped", "insetGrouped", "sidebar", "sidebarPlain"])),
                "headerMode": .string(pick(["none", "supplementary", "firstItemInSection"])),
                "footerMode": .string(pick(["none", "supplementary"])),
            ]
            if chance(30) { list["rowHeight"] = .number(half(20...120)) }
            return .object(["list": .object(list)])
        }
        var section: [String: ParameterTree] = ["group": layoutGroup(depth: 0)]
        if chance(50) { section["interGroupSpacing"] = .number(half(0...30)) }
        if chance(40) { section["contentInsets"] = layoutInsets() }
        if chance(35) {
            section["orthogonalScrollingBehavior"] = .string(pick(
                ["continuous", "continuousGroupLeadingBoundary", "paging", "groupPaging", "groupPagingCentered"]))
        }
        if chance(25) {
            section["contentInsetsReference"] = .string(pick(["automatic", "none", "safeArea", "layoutMargins", "readableContent"]))
        }
        var boundaries = [ParameterTree]()
        if chance(40) {
            boundaries.append(.object([
                "kind": .string("header"), "size": layoutSize(), "alignment": .string(pick(["top", "topLeading", "topTrailing", "leading"])),
                "pinToVisibleBounds": .bool(chance(40)), "extendsBoundary": .bool(chance(80)),
            ]))
        }
        if chance(30) {
            boundaries.append(.object([
                "kind": .string(pick(["footer", "legend"])), "size": layoutSize(), "alignment": .string(pick(["bottom", "bottomTrailing"])),
                "pinToVisibleBounds": .bool(chance(20)), "offset": .object(["x": .number(0), "y": .number(half(-10...10))]),
            ]))
        }
        if !boundaries.isEmpty { section["boundarySupplementaryItems"] = .array(boundaries) }
        if chance(30) {
            section["decorationItems"] = .array([.object(["kind": .string("background"), "contentInsets": layoutInsets()])])
        }
        return .object(section)
    }

    private mutating func layoutDimension(estimatedAllowed: Bool = true) -> ParameterTree {
        switch int(0...5) {
        case 0: return .object(["absolute": .number(half(20...200))])
        case 1 where estimatedAllowed: return .object(["estimated": .number(half(20...120))])
        case 2: return .object(["fractionalWidth": .number(pick([0.25, 1.0 / 3, 0.5, 0.8, 1]))])
        case 3: return .object(["fractionalHeight": .number(pick([0.25, 0.5, 1]))])
        case 4 where estimatedAllowed: return .object(["uniformAcrossSiblings": .number(half(20...120))])
        default: return .object(["absolute": .number(half(40...120))])
        }
    }

    private mutating func layoutSize() -> ParameterTree {
        .object(["width": layoutDimension(), "height": layoutDimension()])
    }

    private mutating func layoutInsets() -> ParameterTree {
        .object([
            "top": .number(half(0...24)), "leading": .number(half(0...24)),
            "bottom": .number(half(0...24)), "trailing": .number(half(0...24)),
        ])
    }

    private mutating func layoutSpacing() -> ParameterTree {
        chance(60) ? .object(["fixed": .number(half(0...20))]) : .object(["flexible": .number(half(0...20))])
    }

    private mutating func layoutItem() -> ParameterTree {
        var item: [String: ParameterTree] = ["size": layoutSize()]
        if chance(25) {
            item["edgeSpacing"] = .object(["leading": layoutSpacing(), "top": layoutSpacing(), "trailing": layoutSpacing(), "bottom": layoutSpacing()])
        }
        if chance(25) { item["contentInsets"] = layoutInsets() }
        if chance(20) {
            item["supplementaryItems"] = .array([.object([
                "kind": .string("badge"), "size": .object(["width": .object(["absolute": .number(20)]), "height": .object(["absolute": .number(20)])]),
                "containerAnchor": .object([
                    "edges": .array([.string("top"), .string("trailing")]),
                    "fractionalOffset": .object(["x": .number(0.3), "y": .number(-0.3)]),
                ]),
            ])])
        }
        return .object(item)
    }

    private mutating func layoutGroup(depth: Int) -> ParameterTree {
        var group: [String: ParameterTree] = [
            "direction": .string(pick(["horizontal", "vertical"])),
            "size": .object(["width": layoutDimension(), "height": layoutDimension()]),
        ]
        if chance(25) {
            // iOS 16's copies at their own size, or iOS 13's equal copies filling the group.
            let key = chance(50) ? "repeatingSubitem" : "subitem"
            group[key] = depth < 2 && chance(30) ? self.layoutGroup(depth: depth + 1) : layoutItem()
            group["count"] = .number(Double(int(1...4)))
        } else {
            group["subitems"] = .array((0..<int(1...3)).map { _ in depth < 2 && chance(25) ? self.layoutGroup(depth: depth + 1) : layoutItem() })
        }
        if chance(40) { group["interItemSpacing"] = layoutSpacing() }
        if chance(20) { group["contentInsets"] = layoutInsets() }
        return .object(group)
    }

    /// A section scroll for a compositional view: mostly of an orthogonal section, sometimes
    /// the end of one (snapping); nil when no section scrolls on its own.
    public mutating func sectionScroll(for view: View) -> ViewMutation? {
        let scrolling = view.model.sections.map(\.id).filter { (try? view.layout.sectionScroll(ofSection: $0)) != nil }
        guard !scrolling.isEmpty else { return nil }
        let id = pick(scrolling)
        let range = (try? view.layout.sectionScroll(ofSection: id))?.scroll.maximumOffset ?? 0
        let offset = half(-40...Int(range * 2) + 80)
        if chance(30) {
            return .scrollSectionEnd(id, proposed: chance(30) ? nil : offset, velocity: pick([0, half(-3000...3000)]))
        }
        return .scrollSection(id, offset)
    }
}
