import LayoutProtocol

/// What a shell completes for a strategy parameter (`NAME=VALUE` words: `create --param`,
/// `configure`, `switch`, `begin-transition`, `render --configure`): its name, and the values
/// worth offering after `NAME=`.
public struct ParameterCompletion: Sendable, Hashable {
    public var name: String
    /// A choice's values, `true` and `false` for a bool; none for numbers, sizes and the rest.
    public var values: [String]

    public init(_ name: String, values: [String] = []) {
        self.name = name
        self.values = values
    }

    /// From a `strategy.list` entry's `parameters`: `name`, and `choices` or a `bool` type.
    public init?(descriptor: JSONValue) {
        guard let name = descriptor["name"]?.stringValue else { return nil }
        let choices = descriptor["choices"]?.arrayValue?.compactMap(\.stringValue) ?? []
        self.init(name, values: descriptor["type"]?.stringValue == "bool" ? ["true", "false"] : choices)
    }

    /// The lines `layoutctl __complete parameters` prints: every `NAME=`, then every
    /// `NAME=VALUE` (the scripts offer the first kind until the word has an `=`).
    public static func lines(_ parameters: [ParameterCompletion]) -> [String] {
        parameters.map { $0.name + "=" } + parameters.flatMap { parameter in parameter.values.map { parameter.name + "=" + $0 } }
    }

    /// The strategy a new view gets when `create` names none.
    public static let defaultStrategy = "flow"

    /// The built-in strategies' parameters, for completing without a daemon. layoutctl does
    /// not link the engine, so this is a copy of its descriptors (`StrategyRegistry.builtIn`);
    /// LayoutctlKitTests fails when the two differ.
    public static let builtIn: [String: [ParameterCompletion]] = [
        "collapsible": [
            ParameterCompletion("itemSize"),
            ParameterCompletion("itemSpacing"),
            ParameterCompletion("rowSpacing"),
            ParameterCompletion("sectionSpacing"),
            ParameterCompletion("collapsed", values: ["true", "false"]),
            ParameterCompletion("transition", values: ["basic", "preStack"]),
            ParameterCompletion("animationDuration"),
        ],
        "compositional": [
            ParameterCompletion("scrollDirection", values: ["vertical", "horizontal"]),
            ParameterCompletion("interSectionSpacing"),
            ParameterCompletion("section"),
            ParameterCompletion("sections"),
        ],
        "display": [
            ParameterCompletion("mode", values: ["grid", "list", "inline"]),
            ParameterCompletion("columns"),
            ParameterCompletion("rowHeight"),
            ParameterCompletion("inlineWidthFraction"),
            ParameterCompletion("inlineHeight"),
            ParameterCompletion("interitemSpacing"),
            ParameterCompletion("lineSpacing"),
            ParameterCompletion("animationDuration"),
        ],
        "flow": [
            ParameterCompletion("itemSize"),
            ParameterCompletion("estimatedItemSize"),
            ParameterCompletion("minimumInteritemSpacing"),
            ParameterCompletion("minimumLineSpacing"),
            ParameterCompletion("sectionInset"),
            ParameterCompletion("headerReferenceSize"),
            ParameterCompletion("footerReferenceSize"),
            ParameterCompletion("scrollDirection", values: ["vertical", "horizontal"]),
            ParameterCompletion("sectionHeadersPinToVisibleBounds", values: ["true", "false"]),
            ParameterCompletion("lastLineAlignment", values: ["automatic", "gridAligned", "leading", "centered", "justified"]),
            ParameterCompletion("spacingMode", values: ["justified", "fixed"]),
            ParameterCompletion("lineAlignment", values: ["leading", "center", "trailing"]),
            ParameterCompletion("itemAlignment", values: ["automatic", "start", "center", "end"]),
        ],
        "ultravisual": [
            ParameterCompletion("standardHeight"),
            ParameterCompletion("featuredHeight"),
            ParameterCompletion("maximumCoverAlpha"),
            ParameterCompletion("minimumCoverAlpha"),
            ParameterCompletion("minimumTitleScale"),
            ParameterCompletion("snapping", values: ["true", "false"]),
        ],

    ]
}
