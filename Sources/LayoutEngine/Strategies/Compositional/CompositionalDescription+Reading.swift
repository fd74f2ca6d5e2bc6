import LayoutGeometry

/// Reads a compositional description out of a `ParameterTree`, strictly: unknown fields, wrong
/// types and out-of-range numbers are refused with the path to the offending value, so a
/// client learns exactly what to fix (`invalidParameter(parameter: "sections.s1.group.size")`).
///
/// Descriptions are bounded (`maximumDepth`, `maximumNodes`, `maximumCount`) so that no
/// description makes one layout step cost more than its items do.
struct DescriptionReader {
    static let maximumDepth = 16
    static let maximumNodes = 4096
    static let maximumSubitems = 64
    static let maximumCount = 1024
    /// Fractions beyond this would only produce frames beyond the layout bound.
    static let maximumFraction = 1000.0

    private(set) var nodes = 0
    /// Every named kind with what it belongs to (true: an item, false: a section), so one kind
    /// never names both a badge and a section's element (their ids are different namespaces).
    private(set) var kinds: [ElementKind: Bool] = [.header: false, .footer: false]

    // MARK: Values

    func fail(_ path: String, _ reason: String) -> LayoutError { .invalidParameter(parameter: path, reason: reason) }

    func object(_ tree: ParameterTree, _ path: String, allowed: Set<String>) throws(LayoutError) -> [String: ParameterTree] {
        guard case .object(let fields) = tree else { throw fail(path, "must be an object") }
        if let unknown = fields.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw fail("\(path).\(unknown)", "is not a field here (allowed: \(allowed.sorted().joined(separator: ", ")))")
        }
        return fields
    }

    func number(_ tree: ParameterTree, _ path: String, minimum: Double = 0, maximum: Double = LayoutBounds.maximumCoordinate) throws(LayoutError) -> Double {
        guard case .number(let value) = tree, value.isFinite else { throw fail(path, "must be a finite number") }
        guard value >= minimum else { throw fail(path, "must be at least \(LayoutBounds.describe(minimum))") }
        guard value <= maximum else { throw fail(path, "must be at most \(LayoutBounds.describe(maximum))") }
        return value
    }

    func integer(_ tree: ParameterTree, _ path: String, minimum: Int, maximum: Int) throws(LayoutError) -> Int {
        let value = try number(tree, path, minimum: Double(minimum), maximum: Double(maximum))
        guard value == value.rounded() else { throw fail(path, "must be a whole number") }
        return Int(value)
    }

    func bool(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> Bool {
        guard case .bool(let value) = tree else { throw fail(path, "must be true or false") }
        return value
    }

    func choice<T: RawRepresentable & CaseIterable>(_ tree: ParameterTree, _ path: String, as type: T.Type) throws(LayoutError) -> T where T.RawValue == String {
        guard case .string(let name) = tree, let value = T(rawValue: name) else {
            throw fail(path, "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return value
    }

    func array(_ tree: ParameterTree, _ path: String, maximum: Int) throws(LayoutError) -> [ParameterTree] {
        guard case .array(let values) = tree else { throw fail(path, "must be an array") }
        guard values.count <= maximum else { throw fail(path, "must have at most \(maximum) entries") }
        return values
    }

    mutating func count(_ path: String) throws(LayoutError) {
        nodes += 1
        guard nodes <= Self.maximumNodes else { throw fail(path, "the description has more than \(Self.maximumNodes) parts") }
    }

    // MARK: Parts

    func dimension(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> CompositionalDimension {
        let names = ["absolute", "estimated", "fractionalWidth", "fractionalHeight", "uniformAcrossSiblings"]
        let fields = try object(tree, path, allowed: Set(names))
        guard fields.count == 1, let (name, value) = fields.first else {
            throw fail(path, "must have exactly one of \(names.joined(separator: ", "))")
        }
        let at = "\(path).\(name)"
        switch name {
        case "absolute": return .absolute(try number(value, at))
        case "estimated": return .estimated(try number(value, at))
        case "fractionalWidth": return .fractionalWidth(try number(value, at, maximum: Self.maximumFraction))
        case "fractionalHeight": return .fractionalHeight(try number(value, at, maximum: Self.maximumFraction))
        default: return .uniformAcrossSiblings(try number(value, at))
        }
    }

    func size(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> CompositionalSize {
        let fields = try object(tree, path, allowed: ["width", "height"])
        guard let width = fields["width"], let height = fields["height"] else { throw fail(path, "needs width and height") }
        return CompositionalSize(width: try dimension(width, "\(path).width"), height: try dimension(height, "\(path).height"))
    }

    func spacing(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> CompositionalSpacing {
        if case .number = tree { return .fixed(try number(tree, path)) }
        let fields = try object(tree, path, allowed: ["fixed", "flexible"])
        guard fields.count == 1, let (name, value) = fields.first else { throw fail(path, "must be {fixed: n} or {flexible: n}") }
        let amount = try number(value, "\(path).\(name)")
        return name == "fixed" ? .fixed(amount) : .flexible(amount)
    }

    func insets(_ tree: ParameterTree?, _ path: String) throws(LayoutError) -> DirectionalInsets {
        guard let tree else { return .zero }
        let fields = try object(tree, path, allowed: ["top", "leading", "bottom", "trailing"])
        var insets = DirectionalInsets()
        if let value = fields["top"] { insets.top = try number(value, "\(path).top") }
        if let value = fields["leading"] { insets.leading = try number(value, "\(path).leading") }
        if let value = fields["bottom"] { insets.bottom = try number(value, "\(path).bottom") }
        if let value = fields["trailing"] { insets.trailing = try number(value, "\(path).trailing") }
        return insets
    }

    func edgeSpacing(_ tree: ParameterTree?, _ path: String) throws(LayoutError) -> EdgeSpacing {
        guard let tree else { return .none }
        let fields = try object(tree, path, allowed: ["leading", "top", "trailing", "bottom"])
        var spacing = EdgeSpacing()
        if let value = fields["leading"] { spacing.leading = try self.spacing(value, "\(path).leading") }
        if let value = fields["top"] { spacing.top = try self.spacing(value, "\(path).top") }
        if let value = fields["trailing"] { spacing.trailing = try self.spacing(value, "\(path).trailing") }
        if let value = fields["bottom"] { spacing.bottom = try self.spacing(value, "\(path).bottom") }
        return spacing
    }

    func point(_ tree: ParameterTree, _ path: String, bound: Double = LayoutBounds.maximumCoordinate) throws(LayoutError) -> Point {
        let fields = try object(tree, path, allowed: ["x", "y"])
        let x = try fields["x"].map { (value) throws(LayoutError) in try number(value, "\(path).x", minimum: -bound, maximum: bound) } ?? 0
        let y = try fields["y"].map { (value) throws(LayoutError) in try number(value, "\(path).y", minimum: -bound, maximum: bound) } ?? 0
        return Point(x: x, y: y)
    }

    func anchor(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> CompositionalAnchor {
        let fields = try object(tree, path, allowed: ["edges", "absoluteOffset", "fractionalOffset"])
        var edges = AnchorEdges()
        for (index, entry) in try array(fields["edges"] ?? .array([]), "\(path).edges", maximum: 4).enumerated() {
            let names: [String: AnchorEdges] = ["top": .top, "leading": .leading, "bottom": .bottom, "trailing": .trailing]
            guard case .string(let name) = entry, let edge = names[name] else {
                throw fail("\(path).edges[\(index)]", "must be top, leading, bottom or trailing")
            }
            edges.insert(edge)
        }
        if edges.isSuperset(of: [.top, .bottom]) || edges.isSuperset(of: [.leading, .trailing]) {
            throw fail("\(path).edges", "cannot name two opposite edges")
        }
        if fields["absoluteOffset"] != nil && fields["fractionalOffset"] != nil {
            throw fail(path, "takes absoluteOffset or fractionalOffset, not both")
        }
        if let value = fields["fractionalOffset"] {
            return CompositionalAnchor(edges: edges, offset: .fractional(try point(value, "\(path).fractionalOffset", bound: Self.maximumFraction)))
        }
        let offset = try fields["absoluteOffset"].map { (value) throws(LayoutError) in try point(value, "\(path).absoluteOffset") } ?? .zero
        return CompositionalAnchor(edges: edges, offset: .absolute(offset))
    }

    mutating func kind(_ tree: ParameterTree?, _ path: String, default defaultKind: String? = nil, ofItem: Bool) throws(LayoutError) -> ElementKind {
        let name: String
        if let tree {
            guard case .string(let given) = tree, ElementKind.isValidName(given) else {
                throw fail(path, "must be a kind name of 1 to 64 letters, digits, '-', '_' or '.', not cell")
            }
            name = given
        } else {
            guard let defaultKind else { throw fail(path, "is required") }
            // A kind left to its default (badge, background) is a kind of the layout all the
            // same: registered, so lookups by key and the kind list know it.
            name = defaultKind
        }
        let kind = ElementKind(rawValue: name)
        if let known = kinds[kind], known != ofItem {
            throw fail(path, "'\(name)' already names \(known ? "an item's" : "a section's") elements")
        }
        kinds[kind] = ofItem
        return kind
    }

    mutating func anchoredItem(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> AnchoredItem {
        try count(path)
        let fields = try object(tree, path, allowed: ["kind", "size", "containerAnchor", "itemAnchor", "zIndex"])
        guard let size = fields["size"], let container = fields["containerAnchor"] else {
            throw fail(path, "needs size and containerAnchor")
        }
        return AnchoredItem(
            kind: try kind(fields["kind"], "\(path).kind", default: "badge", ofItem: true),
            size: try self.size(size, "\(path).size"),
            containerAnchor: try anchor(container, "\(path).containerAnchor"),
            itemAnchor: try fields["itemAnchor"].map { (value) throws(LayoutError) in try anchor(value, "\(path).itemAnchor") },
            zIndex: try fields["zIndex"].map { (value) throws(LayoutError) in try integer(value, "\(path).zIndex", minimum: -1000, maximum: 1000) } ?? 1)
    }

    mutating func element(_ tree: ParameterTree, _ path: String, depth: Int) throws(LayoutError) -> ElementDescription {
        guard case .object(let fields) = tree else { throw fail(path, "must be an object") }
        if fields["direction"] != nil { return .group(try group(tree, path, depth: depth + 1)) }
        try count(path)
        let item = try object(tree, path, allowed: ["size", "contentInsets", "edgeSpacing", "supplementaryItems"])
        guard let size = item["size"] else { throw fail(path, "needs a size (or a direction, for a group)") }
        var supplementaries = [AnchoredItem]()
        for (index, entry) in try array(item["supplementaryItems"] ?? .array([]), "\(path).supplementaryItems", maximum: 8).enumerated() {
            supplementaries.append(try anchoredItem(entry, "\(path).supplementaryItems[\(index)]"))
        }
        return .item(ItemDescription(
            size: try self.size(size, "\(path).size"),
            contentInsets: try insets(item["contentInsets"], "\(path).contentInsets"),
            edgeSpacing: try edgeSpacing(item["edgeSpacing"], "\(path).edgeSpacing"),
            supplementaryItems: supplementaries))
    }

    mutating func group(_ tree: ParameterTree, _ path: String, depth: Int) throws(LayoutError) -> GroupDescription {
        try count(path)
        guard depth <= Self.maximumDepth else { throw fail(path, "groups nest at most \(Self.maximumDepth) deep") }
        let fields = try object(
            tree, path,
            allowed: ["direction", "size", "subitems", "repeatingSubitem", "subitem", "count", "interItemSpacing", "contentInsets", "edgeSpacing"])
        guard let direction = fields["direction"], let size = fields["size"] else { throw fail(path, "needs direction and size") }
        var subitems = [ElementDescription]()
        let repetition: GroupDescription.Repetition
        // UIKit's three initializers, by their parameter labels: `subitems`, iOS 16's
        // `repeatingSubitem:count:` (copies at their own size) and iOS 13's `subitem:count:`
        // (equal copies filling the group).
        switch (fields["subitems"], fields["repeatingSubitem"], fields["subitem"]) {
        case (let list?, nil, nil):
            guard fields["count"] == nil else { throw fail("\(path).count", "goes with repeatingSubitem or subitem, not subitems") }
            let entries = try array(list, "\(path).subitems", maximum: Self.maximumSubitems)
            guard !entries.isEmpty else { throw fail("\(path).subitems", "must not be empty") }
            for (index, entry) in entries.enumerated() {
                subitems.append(try element(entry, "\(path).subitems[\(index)]", depth: depth))
            }
            repetition = .fill
        case (nil, let repeating?, nil):
            guard let given = fields["count"] else { throw fail(path, "repeatingSubitem needs a count") }
            repetition = .repeating(count: try integer(given, "\(path).count", minimum: 1, maximum: Self.maximumCount))
            subitems = [try element(repeating, "\(path).repeatingSubitem", depth: depth)]
        case (nil, nil, let equal?):
            guard let given = fields["count"] else { throw fail(path, "subitem needs a count") }
            repetition = .equal(count: try integer(given, "\(path).count", minimum: 1, maximum: Self.maximumCount))
            subitems = [try element(equal, "\(path).subitem", depth: depth)]
        default:
            throw fail(path, "needs one of subitems, repeatingSubitem with count, or subitem with count")
        }
        return GroupDescription(
            direction: try choice(direction, "\(path).direction", as: GroupDescription.Direction.self),
            size: try self.size(size, "\(path).size"),
            subitems: subitems, repetition: repetition,
            interItemSpacing: try fields["interItemSpacing"].map { (value) throws(LayoutError) in try spacing(value, "\(path).interItemSpacing") },
            contentInsets: try insets(fields["contentInsets"], "\(path).contentInsets"),
            edgeSpacing: try edgeSpacing(fields["edgeSpacing"], "\(path).edgeSpacing"))
    }

    mutating func boundaryItem(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> BoundaryItem {
        try count(path)
        let fields = try object(tree, path, allowed: ["kind", "size", "alignment", "offset", "extendsBoundary", "pinToVisibleBounds", "zIndex"])
        guard let size = fields["size"], let alignment = fields["alignment"] else { throw fail(path, "needs size and alignment") }
        let pinned = try fields["pinToVisibleBounds"].map { (value) throws(LayoutError) in try bool(value, "\(path).pinToVisibleBounds") } ?? false
        return BoundaryItem(
            kind: try kind(fields["kind"], "\(path).kind", ofItem: false),
            size: try self.size(size, "\(path).size"),
            alignment: try choice(alignment, "\(path).alignment", as: BoundaryAlignment.self),
            offset: try fields["offset"].map { (value) throws(LayoutError) in try point(value, "\(path).offset") } ?? .zero,
            extendsBoundary: try fields["extendsBoundary"].map { (value) throws(LayoutError) in try bool(value, "\(path).extendsBoundary") } ?? true,
            pinToVisibleBounds: pinned,
            zIndex: try fields["zIndex"].map { (value) throws(LayoutError) in try integer(value, "\(path).zIndex", minimum: -1000, maximum: 1000) }
                ?? (pinned ? CompositionalLayout.pinnedZIndex : 0))
    }

    mutating func decorationItem(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> DecorationItem {
        try count(path)
        let fields = try object(tree, path, allowed: ["kind", "contentInsets", "zIndex"])
        return DecorationItem(
            kind: try kind(fields["kind"], "\(path).kind", default: "background", ofItem: false),
            contentInsets: try insets(fields["contentInsets"], "\(path).contentInsets"),
            zIndex: try fields["zIndex"].map { (value) throws(LayoutError) in try integer(value, "\(path).zIndex", minimum: -1000, maximum: 1000) } ?? -1)
    }

    mutating func section(_ tree: ParameterTree, _ path: String) throws(LayoutError) -> SectionDescription {
        if case .object(let fields) = tree, let list = fields["list"] {
            guard fields.count == 1 else { throw fail(path, "a list section has only the list field") }
            return try listSection(list, "\(path).list")
        }
        let fields = try object(
            tree, path,
            allowed: ["group", "interGroupSpacing", "contentInsets", "contentInsetsReference", "orthogonalScrollingBehavior",
                      "boundarySupplementaryItems", "decorationItems", "supplementariesFollowContentInsets"])
        guard let group = fields["group"] else { throw fail(path, "needs a group (or a list)") }
        var boundaries = [BoundaryItem]()
        for (index, entry) in try array(fields["boundarySupplementaryItems"] ?? .array([]), "\(path).boundarySupplementaryItems", maximum: 8).enumerated() {
            let item = try boundaryItem(entry, "\(path).boundarySupplementaryItems[\(index)]")
            guard !boundaries.contains(where: { $0.kind == item.kind }) else {
                throw fail("\(path).boundarySupplementaryItems[\(index)].kind", "'\(item.kind)' is already a boundary item of this section")
            }
            boundaries.append(item)
        }
        var decorations = [DecorationItem]()
        for (index, entry) in try array(fields["decorationItems"] ?? .array([]), "\(path).decorationItems", maximum: 4).enumerated() {
            let item = try decorationItem(entry, "\(path).decorationItems[\(index)]")
            guard !decorations.contains(where: { $0.kind == item.kind }), !boundaries.contains(where: { $0.kind == item.kind }) else {
                throw fail("\(path).decorationItems[\(index)].kind", "'\(item.kind)' already names an element of this section")
            }
            decorations.append(item)
        }
        return SectionDescription(
            group: try self.group(group, "\(path).group", depth: 1),
            interGroupSpacing: try fields["interGroupSpacing"].map { (value) throws(LayoutError) in try number(value, "\(path).interGroupSpacing") } ?? 0,
            contentInsets: try insets(fields["contentInsets"], "\(path).contentInsets"),
            contentInsetsReference: try fields["contentInsetsReference"].map { (value) throws(LayoutError) in
                try choice(value, "\(path).contentInsetsReference", as: ContentInsetsReference.self)
            } ?? .automatic,
            orthogonalScrollingBehavior: try fields["orthogonalScrollingBehavior"].map { (value) throws(LayoutError) in
                try choice(value, "\(path).orthogonalScrollingBehavior", as: OrthogonalScrollingBehavior.self)
            } ?? .none,
            boundarySupplementaryItems: boundaries, decorationItems: decorations,
            supplementariesFollowContentInsets: try fields["supplementariesFollowContentInsets"].map { (value) throws(LayoutError) in
                try bool(value, "\(path).supplementariesFollowContentInsets")
            } ?? true)
    }
}
