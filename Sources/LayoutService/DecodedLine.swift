import LayoutProtocol

/// A request line read the one way the connection and the service both read it: one of the hot
/// mutations straight from its bytes (`HotRequest`: no JSON tree), else the parsed request (a
/// load's sections read from the bytes by `LoadRequest`, no tree of its items), else the
/// refusal to answer at once. The connection decides from it where the request runs
/// (`submitsQuickly`); `LayoutService.submit(_:from:completion:)` carries it out.
public enum DecodedLine: Sendable {
    case hot(HotRequest)
    case request(Request)
    case refused(RequestFailure)

    public init(_ line: some Collection<UInt8>) {
        if let hot = HotRequest.decode(line) {
            self = .hot(hot)
            return
        }
        // A load's sections straight into the wire model: no tree of its items.
        if let load = LoadRequest.decode(line) {
            self = .request(load)
            return
        }
        do {
            self = .request(try Request.decode(line))
        } catch {
            self = .refused(error)
        }
    }

    /// The method named, for a request the parser read whole (the hot ones need not say).
    public var method: String? {
        if case .request(let request) = self { return request.method }
        return nil
    }

    /// Whether submitting it returns at once on the caller's thread: a hot mutation only hands
    /// its work to a view, a refusal is answered at once, and a request is as its method's
    /// class says (`Methods`); anything else belongs on a pool thread.
    public var submitsQuickly: Bool {
        switch self {
        case .hot, .refused: true
        case .request(let request): LayoutService.submitsQuickly(request.method)
        }
    }
}
