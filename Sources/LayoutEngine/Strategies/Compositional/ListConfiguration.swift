/// A list section (`UICollectionLayoutListConfiguration`): full-width self-sizing rows, with a
/// header and footer as the modes ask, expanded to the section description UIKit's list builds.
///
/// Apple documents the appearances and modes but publishes none of their metrics, so each one
/// is a field with a default (`Appearance.metrics`); docs/compositional-layout.md lists them.
struct ListConfiguration: Hashable, Sendable {
    enum Appearance: String, Hashable, Sendable, CaseIterable {
        case plain, grouped, insetGrouped, sidebar, sidebarPlain

        /// Defaults: estimated row, header and footer heights, the space after each section,
        /// whether headers pin, and the inset reference (inset appearances take the margins).
        var metrics: (row: Double, header: Double, footer: Double, sectionSpacing: Double, pinned: Bool, reference: ContentInsetsReference) {
            switch self {
            case .plain: (44, 28, 28, 0, true, .automatic)
            case .grouped: (44, 38, 38, 20, false, .automatic)
            case .insetGrouped: (44, 38, 38, 20, false, .layoutMargins)
            case .sidebar: (44, 38, 38, 20, false, .layoutMargins)
            case .sidebarPlain: (44, 28, 28, 0, false, .automatic)
            }
        }
    }

    enum HeaderMode: String, Hashable, Sendable, CaseIterable {
        /// No header.
        case none
        /// A `header` boundary item.
        case supplementary
        /// The section's first item is its header: a row like the others, no supplementary.
        case firstItemInSection
    }

    enum FooterMode: String, Hashable, Sendable, CaseIterable {
        case none, supplementary
    }
}

extension DescriptionReader {
    mutating func listSection(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> SectionDescription {
        try count(path)
        let fields = try object(
            tree, path,
            allowed: ["appearance", "headerMode", "footerMode", "rowHeight", "headerHeight", "footerHeight", "itemSpacing",
                      "sectionSpacing", "pinnedHeaders", "contentInsets", "contentInsetsReference"])
        let appearance = try fields["appearance"].map { (value) throws(LayoutError) in
            try choice(value, "\(path).appearance", as: ListConfiguration.Appearance.self)
        } ?? .plain
        let metrics = appearance.metrics
        func measure(_ name: String, _ fallback: Double) throws(LayoutError) -> Double {
            try fields[name].map { (value) throws(LayoutError) in try number(value, "\(path).\(name)") } ?? fallback
        }
        let headerMode = try fields["headerMode"].map { (value) throws(LayoutError) in
            try choice(value, "\(path).headerMode", as: ListConfiguration.HeaderMode.self)
        } ?? ListConfiguration.HeaderMode.none
        let footerMode = try fields["footerMode"].map { (value) throws(LayoutError) in
            try choice(value, "\(path).footerMode", as: ListConfiguration.FooterMode.self)
        } ?? ListConfiguration.FooterMode.none
        let pinned = try fields["pinnedHeaders"].map { (value) throws(LayoutError) in try bool(value, "\(path).pinnedHeaders") } ?? metrics.pinned
        let row = CompositionalSize(width: .fractionalWidth(1), height: .estimated(try measure("rowHeight", metrics.row)))
        var boundaries = [BoundaryItem]()
        if headerMode == .supplementary {
            boundaries.append(BoundaryItem(
                kind: .header, size: CompositionalSize(width: .fractionalWidth(1), height: .estimated(try measure("headerHeight", metrics.header))),
                alignment: .top, offset: .zero, extendsBoundary: true, pinToVisibleBounds: pinned,
                zIndex: pinned ? CompositionalLayout.pinnedZIndex : 0))
        }
        if footerMode == .supplementary {
            boundaries.append(BoundaryItem(
                kind: .footer, size: CompositionalSize(width: .fractionalWidth(1), height: .estimated(try measure("footerHeight", metrics.footer))),
                alignment: .bottom, offset: .zero, extendsBoundary: true, pinToVisibleBounds: false, zIndex: 0))
        }
        var insets = try self.insets(fields["contentInsets"], "\(path).contentInsets")
        if fields["contentInsets"] == nil { insets.bottom = try measure("sectionSpacing", metrics.sectionSpacing) }
        let item = ItemDescription(size: row, contentInsets: .zero, edgeSpacing: .none, supplementaryItems: [])
        return SectionDescription(
            group: GroupDescription(
                direction: .horizontal, size: row, subitems: [.item(item)], repetition: .fill, interItemSpacing: nil,
                contentInsets: .zero, edgeSpacing: .none),
            interGroupSpacing: try measure("itemSpacing", 0),
            contentInsets: insets,
            contentInsetsReference: try fields["contentInsetsReference"].map { (value) throws(LayoutError) in
                try choice(value, "\(path).contentInsetsReference", as: ContentInsetsReference.self)
            } ?? metrics.reference,
            orthogonalScrollingBehavior: .none, boundarySupplementaryItems: boundaries, decorationItems: [],
            supplementariesFollowContentInsets: true)
    }
}
