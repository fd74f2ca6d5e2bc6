import LayoutProtocol

extension FuzzTargets {
    // MARK: The hot requests' byte decoder

    /// One request line: whenever the byte decoder (`HotRequest.decode`) gives a value, the
    /// general path (`Request.decode`, then the typed params through `ParamsReader`) decodes
    /// the very same value, down to the sign of a zero; whenever the general path refuses the
    /// line (or it is not a hot method), the byte decoder gives nil.
    @Sendable public static func hot(_ data: [UInt8]) -> [String] {
        let fast = HotRequest.decode(data)
        let general: HotRequest?
        let refusal: String?
        do {
            general = try HotRequest(try Request.decode(data))
            refusal = general == nil ? "not a hot method" : nil
        } catch let failure as RequestFailure {
            general = nil
            refusal = "\(failure.error.name): \(failure.error.message)"
        } catch let error as WireError {
            general = nil
            refusal = "\(error.name): \(error.message)"
        } catch {
            general = nil
            refusal = "\(error)"
        }
        guard let fast else { return [] }
        let line = String(decoding: data.prefix(300), as: UTF8.self)
        guard let general else {
            return ["the byte decoder accepted what the general path refuses (\(refusal ?? "?")): \(line)\n  fast: \(String(reflecting: fast))"]
        }
        // `==` takes -0.0 for 0.0; the reflection tells them apart.
        if fast != general || String(reflecting: fast) != String(reflecting: general) {
            return ["the decoders disagree on \(line)\n  fast:    \(String(reflecting: fast))\n  general: \(String(reflecting: general))"]
        }
        return []
    }
}
