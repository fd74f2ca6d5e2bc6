/// The byte decoder for the requests that load data (`view.create`, `view.setData`,
/// `view.stage.append`): their `sections` read from the line's bytes straight into the wire
/// model, with no `JSONValue` tree for the items. A 1M-item `view.create` once built a tree of
/// 1M objects (parsing was two thirds of its time) only to read it into `WireSection`s and
/// free it (issue 41).
///
/// Only `sections` is read this way: the other members of `params` are small and are parsed by
/// `JSONParser` itself from their bytes (as deep in the line as the general path sees them), so
/// the method's own reads (`ParamsReader`) and their errors, unknown members included, are the
/// general path's. The result is a `Request` whose `sections` hold the decoded sections and
/// whose `params` lack the member; `ParamsReader(request)` and `WireModel.sections` read it as
/// if it were there.
///
/// The rule of `HotRequest`: the decoder accepts only a line that is certainly valid JSON with
/// the envelope's rules (no `jsonrpc`, no duplicate keys, no escaped keys, at most
/// `maximumParamsKeys` members in `params`) and sections of the shape `WireSection.read`
/// accepts (known fields, valid types, numbers it converts exactly); anything else is nil, and
/// the general path (`Request.decode`) then gives the exact error at the same position.
/// Whenever it returns a request, the general path decodes the same one (`LoadRequestTests`,
/// the `hot` fuzz target).
public enum LoadRequest {
    /// The methods whose `sections` the decoder reads: each reads them with
    /// `WireModel.sections(&params, "sections")` from its root params and nowhere else.
    public static let methods: Set<String> = ["view.create", "view.setData", "view.stage.append"]

    /// Members of `params` the decoder takes; more (valid up to `JSONParser.maximumKeysPerObject`)
    /// go to the general path. No method has half as many.
    static let maximumParamsKeys = 32

    /// The request, or nil when the line is anything but a certainly valid request for one of
    /// `methods` with an array of plain sections (then `Request.decode` gives the exact error,
    /// or reads the line its own way).
    ///
    /// - Complexity: O(n) in the line's length: one pass (two over `params` when it comes
    ///   before `method`), with one allocation per item (its id, when longer than a small string)
    ///   and none for the tree.
    public static func decode(_ line: some Collection<UInt8>) -> Request? {
        if let decoded = line.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(line).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    public static func decode(buffer: UnsafeBufferPointer<UInt8>) -> Request? {
        guard let base = buffer.baseAddress else { return nil }
        var cursor = HotCursor(base: base, end: buffer.count)
        return cursor.loadRequest(buffer)
    }
}

extension HotCursor {
    /// The envelope, as `request()` reads a hot one (`envelope`), for one of the load methods.
    mutating func loadRequest(_ buffer: UnsafeBufferPointer<UInt8>) -> Request? {
        guard let (id, method, params) = envelope(
            method: { cursor in cursor.string().flatMap { LoadRequest.methods.contains($0) ? $0 : nil } },
            params: { cursor, _ in cursor.loadParams(buffer) })
        else { return nil }
        // No params at all is valid; the method's reads then refuse what is missing.
        let (object, sections) = params ?? (JSONObject(), nil)
        return Request(id: id, method: method, params: object, sections: sections)
    }

    /// The params object: `sections` into the wire model, every other member parsed by
    /// `JSONParser` from its bytes at the depth it has in the line (2).
    mutating func loadParams(_ buffer: UnsafeBufferPointer<UInt8>) -> (object: JSONObject, sections: [WireSection]?)? {
        var pairs = [(key: String, value: JSONValue)]()
        var sections: [WireSection]?
        let finished = object { cursor, key in
            if cursor.key(key, is: "sections") {
                guard sections == nil else { return false }
                guard let value = cursor.sections() else { return false }
                sections = value
                return true
            }
            // The key is free of escapes and control characters (`key()`); its bytes must
            // still be UTF-8, as the parser requires of every string.
            guard pairs.count < LoadRequest.maximumParamsKeys,
                let name = UTF8Text.string(UnsafeBufferPointer(start: cursor.base + key.start, count: key.count)),
                !pairs.contains(where: { $0.key == name })
            else { return false }
            guard let (value, end) = try? JSONParser.value(in: buffer, at: cursor.position, depth: 2) else { return false }
            cursor.position = end
            pairs.append((name, value))
            return true
        }
        guard finished else { return nil }
        return (JSONObject(uniquePairs: pairs), sections)
    }

    /// `[{id, items, headerSize?, footerSize?}, ...]`.
    mutating func sections() -> [WireSection]? {
        var sections = [WireSection]()
        let finished = array { cursor in
            guard let section = cursor.wireSection() else { return false }
            sections.append(section)
            return true
        }
        return finished ? sections : nil
    }
}
