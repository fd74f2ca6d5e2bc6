/// Every method of protocol version 1 as clients see it: what `daemon.describe` returns, what
/// the method table (`Methods` in LayoutService) is held to, and what the fuzzers and the soak
/// draw methods from. The data is `ProtocolDescription.swift`, generated from
/// protocol/interface.json (the one description of the protocol); this file holds its types.
public enum MethodCatalog {
    public struct Parameter: Sendable {
        public var name: String
        /// A short spelling of its type (`string`, `[section]`, `point`, `a|b`); the method's
        /// params schema is the exact statement.
        public var type: String
        public var required: Bool
        public var summary: String
    }

    public struct Method: Sendable {
        public var name: String
        public var summary: String
        /// The document in protocol/ that explains it, with the heading's anchor.
        public var doc: String
        public var parameters: [Parameter]
        /// What it answers, in a word: `invalidation`, `snapshot` or `{field, field?}`.
        public var result: String
        /// Whether a success changes a view and moves its epoch by one: the result is an
        /// invalidation, every subscriber gets a `view.invalidated`, and the params take
        /// `ifEpoch` and `dryRun`.
        public var mutates: Bool
        /// The errors it may raise besides `requestErrors`.
        public var errors: [String]
        /// The events it may cause for subscribers.
        public var events: [String]
    }

    public static func method(named name: String) -> Method? { methods.first { $0.name == name } }

    /// Whether `method`'s reply may carry error `name`: one of the errors every request may
    /// get, or one the method declares. Unknown methods may only get the request errors.
    public static func mayRaise(_ name: String, method: String) -> Bool {
        requestErrors.contains(name) || (self.method(named: method)?.errors.contains(name) ?? false)
    }
}
