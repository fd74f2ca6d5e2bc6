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
/// and ours in -32000...-32099. The table (`entries`) is in `ProtocolDescription.swift`, generated
/// from protocol/interface.json; the daemon's `describe` lists it.
public enum ErrorCatalog {
    private static let codes = Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.code) })

    /// The code for a stable name; unknown names (a newer engine error) map to the generic
    /// application code -32000.
    public static func code(forName name: String) -> Int { codes[name] ?? -32000 }
}
