import LayoutGeometry

/// Every way the engine refuses input. Each case has a stable wire name (`name`), a sentence for
/// people (`message`) and machine-readable details, derived here and nowhere else.
///
/// A thrown `LayoutError` always means nothing changed: models, strategies and registries
/// validate a whole request before they apply any of it.
public enum LayoutError: Error, Hashable, Sendable {
    /// A size that is negative, NaN, infinite or beyond `LayoutBounds.maximumCoordinate`.
    /// `field` names which size of the element.
    case invalidSize(id: String, field: String)
    /// An empty id: ids are how clients address items, so they must be non-empty.
    case invalidID(String)
    case duplicateItemID(String)
    case duplicateSectionID(String)
    case itemNotFound(String)
    case sectionNotFound(String)
    /// A section that exists but has no element of that kind (a header, a footer).
    case elementNotFound(kind: String, id: String)
    case invalidViewport(reason: String)
    case unknownStrategy(String)
    case duplicateStrategy(String)
    case unknownParameter(strategy: String, parameter: String)
    case invalidParameter(parameter: String, reason: String)
    /// A batch that cannot be applied as a whole (an id named twice, an insert into a section
    /// the same batch deletes, ...).
    case invalidBatch(reason: String)
    /// A position outside `0...count` in the section (or section list) it targets.
    case indexOutOfRange(target: String, index: Int, count: Int)
    /// A configured limit (items per view, updates per batch) would be exceeded.
    case limitExceeded(limit: String, maximum: Int)
    /// The view moved on since the epoch the client based its change on.
    case staleEpoch(expected: Int, actual: Int)
    /// `beginTransition` while the view already has a gesture in progress (an interactive
    /// transition; `View.Gesture`).
    case transitionInProgress
    /// `updateTransition` or `endTransition` on a view with no interactive transition.
    case noActiveTransition
    /// `beginMove` while an interactive move (of item `id`) is in progress.
    case moveInProgress(id: String)
    /// `updateMove` or `endMove` with no interactive move in progress.
    case noActiveMove
    /// `scrollSection` or `scrollSectionEnd` on a section that does not scroll on its own (not
    /// an orthogonal section of a compositional layout).
    case sectionNotOrthogonal(String)

    /// The stable, machine-readable name clients switch on.
    public var name: String {
        switch self {
        case .invalidSize: "InvalidSize"
        case .invalidID: "InvalidID"
        case .duplicateItemID: "DuplicateItemID"
        case .duplicateSectionID: "DuplicateSectionID"
        case .itemNotFound: "ItemNotFound"
        case .sectionNotFound: "SectionNotFound"
        case .elementNotFound: "ElementNotFound"
        case .invalidViewport: "InvalidViewport"
        case .unknownStrategy: "UnknownStrategy"
        case .duplicateStrategy: "DuplicateStrategy"
        case .unknownParameter: "UnknownParameter"
        case .invalidParameter: "InvalidParameter"
        case .invalidBatch: "InvalidBatch"
        case .indexOutOfRange: "IndexOutOfRange"
        case .limitExceeded: "LimitExceeded"
        case .staleEpoch: "StaleEpoch"
        case .transitionInProgress: "TransitionInProgress"
        case .noActiveTransition: "NoActiveTransition"
        case .moveInProgress: "MoveInProgress"
        case .noActiveMove: "NoActiveMove"
        case .sectionNotOrthogonal: "SectionNotOrthogonal"
        }
    }

    public var message: String {
        switch self {
        case .invalidSize(let id, let field):
            "\(field) of '\(id)' must be finite, not negative and at most \(LayoutBounds.maximumText)"
        case .invalidID(let id):
            "id '\(id)' is not valid: ids must be non-empty strings"
        case .duplicateItemID(let id):
            "item id '\(id)' is used more than once"
        case .duplicateSectionID(let id):
            "section id '\(id)' is used more than once"
        case .itemNotFound(let id):
            "no item with id '\(id)'"
        case .sectionNotFound(let id):
            "no section with id '\(id)'"
        case .elementNotFound(let kind, let id):
            "'\(id)' has no \(kind)"
        case .invalidViewport(let reason):
            "invalid viewport: \(reason)"
        case .unknownStrategy(let name):
            "no strategy named '\(name)'"
        case .duplicateStrategy(let name):
            "a strategy named '\(name)' is already registered"
        case .unknownParameter(let strategy, let parameter):
            "strategy '\(strategy)' has no parameter '\(parameter)'"
        case .invalidParameter(let parameter, let reason):
            "parameter '\(parameter)': \(reason)"
        case .invalidBatch(let reason):
            "invalid batch: \(reason)"
        case .indexOutOfRange(let target, let index, let count):
            "index \(index) is outside 0...\(count) in \(target)"
        case .limitExceeded(let limit, let maximum):
            "\(limit) would exceed its limit of \(maximum)"
        case .staleEpoch(let expected, let actual):
            "the view is at epoch \(actual), not \(expected)"
        case .transitionInProgress:
            "the view has an interactive transition in progress: end it first"
        case .noActiveTransition:
            "the view has no interactive transition in progress"
        case .moveInProgress(let id):
            "item '\(id)' is being moved; end that move first"
        case .noActiveMove:
            "no interactive move is in progress"
        case .sectionNotOrthogonal(let id):
            "section '\(id)' does not scroll on its own (its layout has no orthogonalScrollingBehavior)"
        }
    }

    /// Details for the error's `data` object on the wire.
    public var details: [String: String] {
        switch self {
        case .invalidSize(let id, let field): ["id": id, "field": field]
        case .invalidID(let id): ["id": id]
        case .duplicateItemID(let id), .duplicateSectionID(let id),
            .itemNotFound(let id), .sectionNotFound(let id):
            ["id": id]
        case .elementNotFound(let kind, let id): ["kind": kind, "id": id]
        case .invalidViewport(let reason): ["reason": reason]
        case .unknownStrategy(let name), .duplicateStrategy(let name): ["strategy": name]
        case .unknownParameter(let strategy, let parameter):
            ["strategy": strategy, "parameter": parameter]
        case .invalidParameter(let parameter, let reason):
            ["parameter": parameter, "reason": reason]
        case .invalidBatch(let reason): ["reason": reason]
        case .indexOutOfRange(let target, let index, let count):
            ["target": target, "index": String(index), "count": String(count)]
        case .limitExceeded(let limit, let maximum): ["limit": limit, "maximum": String(maximum)]
        case .staleEpoch(let expected, let actual): ["expected": String(expected), "actual": String(actual)]
        case .transitionInProgress, .noActiveTransition: [:]
        case .moveInProgress(let id): ["id": id]
        case .noActiveMove: [:]
        case .sectionNotOrthogonal(let id): ["id": id]
        }
    }
}
