import LayoutProtocol

extension FuzzTargets {
    // MARK: The hot requests' byte decoder

    /// One request line: whenever the byte decoder (`HotRequest.decode`) gives a value, the
    /// general path (`Request.decode`, then the typed params through `ParamsReader`) decodes
    /// the very same value, down to the sign of a zero; whenever the general path refuses the
    /// line (or it is not a hot method), the byte decoder gives nil.
    ///
    /// The same bytes then go through the load decoder (`load(_:)`): request lines of both kinds
    /// share the seeds and the dictionary.
    @Sendable public static func hot(_ data: [UInt8]) -> [String] {
        hotRequest(data) + load(data)
    }

    static func hotRequest(_ data: [UInt8]) -> [String] {
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

    // MARK: The load decoder

    /// One request line: whenever the load decoder (`LoadRequest.decode`) gives a request, the
    /// general path (`Request.decode`) decodes the same id and method, the same params but for
    /// `sections`, and sections that `WireModel.sections` reads without an error into the very
    /// same wire model, down to the sign of a zero; whenever the general path refuses the line,
    /// the load decoder gives nil.
    @Sendable public static func load(_ data: [UInt8]) -> [String] {
        guard let fast = LoadRequest.decode(data) else { return [] }
        let line = String(decoding: data.prefix(300), as: UTF8.self)
        let general: Request
        do {
            general = try Request.decode(data)
        } catch {
            return ["the load decoder accepted what the general path refuses (\(error.error.name): \(error.error.message)): \(line)"]
        }
        var failures = [String]()
        var rest = general.params
        rest["sections"] = nil
        if fast.id != general.id || fast.method != general.method || fast.params != rest
            || String(reflecting: fast.params) != String(reflecting: rest)
        {
            failures.append("the envelopes or params differ on \(line)\n  fast:    \(String(reflecting: fast))\n  general: \(String(reflecting: general))")
        }
        if general.params["sections"] == nil {
            if fast.sections != nil { failures.append("the load decoder found sections the general path has not: \(line)") }
            return failures
        }
        var reader = ParamsReader(general.params)
        do {
            let sections = try WireModel.sections(&reader, "sections")
            if sections != fast.sections || String(reflecting: sections) != String(reflecting: fast.sections ?? []) {
                failures.append("the sections differ on \(line)\n  fast:    \(String(reflecting: fast.sections))\n  general: \(String(reflecting: sections))")
            }
        } catch {
            failures.append("the load decoder accepted sections the general path refuses (\(error.name): \(error.message)): \(line)")
        }
        return failures
    }
}
