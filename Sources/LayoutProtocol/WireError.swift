/// An error as the protocol sends it: a JSON-RPC code, a stable name clients switch on, a
/// sentence for people and machine-readable data.
public struct WireError: Error, Hashable, Sendable {
    public var code: Int
    public var name: String
    public var message: String
    public var data: JSONObject

    public init(code: Int, name: String, message: String, data: JSONObject = [:]) {
        self.code = code
        self.name = name
        self.message = message
        self.data = data
    }

    /// An error by its stable name; the code comes from `ErrorCatalog`.
    public init(name: String, message: String, data: JSONObject = [:]) {
        self.init(code: ErrorCatalog.code(forName: name), name: name, message: message, data: data)
    }

    public static func parseError(_ message: String) -> WireError {
        WireError(name: "ParseError", message: message)
    }

    public static func invalidRequest(_ message: String) -> WireError {
        WireError(name: "InvalidRequest", message: message)
    }

    public static func methodNotFound(_ method: String) -> WireError {
        WireError(name: "MethodNotFound", message: "no method '\(method)'", data: ["method": .string(method)])
    }

    /// A parameter of the wrong type, missing or unknown; `path` names it (`items[3].size`).
    public static func invalidParams(_ path: String, _ reason: String) -> WireError {
        WireError(name: "InvalidParams", message: "\(path): \(reason)", data: ["path": .string(path), "reason": .string(reason)])
    }

    public static func internalError(_ message: String) -> WireError {
        WireError(name: "InternalError", message: message)
    }

    /// The error object of a reply.
    public var json: JSONValue {
        var object: JSONObject = ["code": .number(Double(code)), "name": .string(name), "message": .string(message)]
        if data.count > 0 { object["data"] = .object(data) }
        return .object(object)
    }
}

/// Every error name the protocol can send, with its code: JSON-RPC's own (-32700...-32603)
/// and ours in -32000...-32099. Defined once, here; the daemon's `describe` lists this table.
public enum ErrorCatalog {
    public static let entries: [(name: String, code: Int, meaning: String)] = [
        ("ParseError", -32700, "the line is not valid JSON or not valid UTF-8"),
        ("InvalidRequest", -32600, "the JSON is not a request object"),
        ("MethodNotFound", -32601, "no such method"),
        ("InvalidParams", -32602, "a parameter is missing, unknown or of the wrong type"),
        ("InternalError", -32603, "the daemon failed; the request had no effect"),
        ("ViewNotFound", -32001, "no view with that name"),
        ("ViewExists", -32002, "a view with that name exists"),
        ("UnknownStrategy", -32003, "no strategy with that name"),
        ("UnknownParameter", -32004, "the strategy has no such parameter"),
        ("InvalidParameter", -32005, "a strategy parameter value is out of range or of the wrong kind"),
        ("InvalidViewport", -32006, "a viewport size, offset or inset is not finite, or a size is not positive"),
        ("InvalidSize", -32007, "a size is negative"),
        ("InvalidID", -32008, "an id is empty"),
        ("DuplicateItemID", -32009, "an item id is used twice"),
        ("DuplicateSectionID", -32010, "a section id is used twice"),
        ("ItemNotFound", -32011, "no item with that id"),
        ("SectionNotFound", -32012, "no section with that id"),
        ("InvalidBatch", -32013, "a batch names an id twice or reaches into a section it deletes"),
        ("IndexOutOfRange", -32014, "a position is outside the section or section list"),
        ("StaleEpoch", -32015, "the view moved on since the epoch given in ifEpoch"),
        ("LimitExceeded", -32016, "a limit (items, batch size, views, connections, line length) would be exceeded"),
        ("PermissionDenied", -32017, "the peer's uid is not allowed"),
        ("UnsupportedVersion", -32018, "no protocol version in common"),
        ("DuplicateStrategy", -32019, "a strategy with that name is already registered"),
        ("ReloadFailed", -32020, "the configuration could not be read or is invalid; nothing changed"),
        ("IdleTimeout", -32021, "a partial line made no progress, or was not complete, before its deadline; the connection closes"),
        ("OutputOverflow", -32022, "the client left more output unread than the daemon holds for it; the connection closes"),
        ("ElementNotFound", -32023, "the section (or item) exists but has no element of that kind (a header, a footer, a badge)"),
        ("TransitionInProgress", -32024, "the view has an interactive transition in progress"),
        ("NoActiveTransition", -32025, "the view has no interactive transition in progress"),
        ("MoveInProgress", -32026, "an interactive move is in progress on the view; end it first"),
        ("NoActiveMove", -32027, "no interactive move is in progress on the view"),
        ("SectionNotOrthogonal", -32028, "the section does not scroll on its own (no orthogonalScrollingBehavior in its layout)"),
        ("LineTooLong", -32700, "a line is longer than the limit; the connection closes"),
    ]

    private static let codes = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.code) })

    /// The code for a stable name; unknown names (a newer engine error) map to the generic
    /// application code -32000.
    public static func code(forName name: String) -> Int { codes[name] ?? -32000 }
}
