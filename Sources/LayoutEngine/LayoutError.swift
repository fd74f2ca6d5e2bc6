import LayoutGeometry

/// Every way the engine refuses input. Each case has a stable wire name (`name`), a sentence for
/// people (`message`) and machine-readable details, derived here and nowhere else.
///
/// A thrown `LayoutError` always means nothing changed: models, strategies and registries
/// validate a whole request before they apply any of it.
public enum LayoutError: Error, Hashable, Sendable {
    /// A size that is negative, NaN or infinite. `field` names which size of the element.
    case invalidSize(id: String, field: String)
    /// An empty id: ids are how clients address items, so they must be non-empty.
    case invalidID(String)
    case duplicateItemID(String)
    case duplicateSectionID(String)
    case itemNotFound(String)
    case sectionNotFound(String)
    case invalidViewport(reason: String)
    case unknownStrategy(String)
    case duplicateStrategy(String)
    case unknownParameter(strategy: String, parameter: String)
    case invalidParameter(parameter: String, reason: String)

    /// The stable, machine-readable name clients switch on.
    public var name: String {
        switch self {
        case .invalidSize: "InvalidSize"
        case .invalidID: "InvalidID"
        case .duplicateItemID: "DuplicateItemID"
        case .duplicateSectionID: "DuplicateSectionID"
        case .itemNotFound: "ItemNotFound"
        case .sectionNotFound: "SectionNotFound"
        case .invalidViewport: "InvalidViewport"
        case .unknownStrategy: "UnknownStrategy"
        case .duplicateStrategy: "DuplicateStrategy"
        case .unknownParameter: "UnknownParameter"
        case .invalidParameter: "InvalidParameter"
        }
    }

    public var message: String {
        switch self {
        case .invalidSize(let id, let field):
            "\(field) of '\(id)' must be finite and not negative"
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
        case .invalidViewport(let reason): ["reason": reason]
        case .unknownStrategy(let name), .duplicateStrategy(let name): ["strategy": name]
        case .unknownParameter(let strategy, let parameter):
            ["strategy": strategy, "parameter": parameter]
        case .invalidParameter(let parameter, let reason):
            ["parameter": parameter, "reason": reason]
        }
    }
}
