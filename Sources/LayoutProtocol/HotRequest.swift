import LayoutGeometry

/// A request for one of the hot mutations, with its params typed: decoded either from a
/// `Request` (the general path: `JSONParser`, then `ParamsReader`) or straight from the line's
/// bytes (`decode(_:)`, no `JSONValue` tree).
///
/// The byte decoder accepts only what is certainly valid and returns nil for anything else
/// (an error of any kind, escaped keys, `jsonrpc`, numbers it cannot convert exactly, any
/// method but the four), so that the general path, run then, produces the exact reply or
/// error. Whenever it returns a value, the general path decodes the same value
/// (`HotRequestTests`, the `hot` fuzz target).
///
/// How the service uses it: try `decode(line)` first; on nil, run today's path unchanged
/// (`Request.decode`, route, `ParamsReader`). On a value, skip every params read: look the
/// view up by `options.view` (`ViewNotFound` as today), then on its queue check for a deleted
/// view, and act with the typed params exactly as the `ParamsReader` path would after its
/// reads (budget, `dryRun` on a copy, `ifEpoch`, `animated`). Nothing else can fail in
/// between: a line the byte decoder takes passes every read and `finish()` of the general path.
public struct HotRequest: Hashable, Sendable {
    public enum Params: Hashable, Sendable {
        case scroll(ScrollParams)
        case select(SelectParams)
        case measure(MeasureParams)
        case update(UpdateParams)
    }

    public var id: RequestID?
    public var params: Params

    public init(id: RequestID?, params: Params) {
        self.id = id
        self.params = params
    }

    /// The methods with a byte decoder.
    public static let methods: Set<String> = ["view.scroll", "view.select", "view.measure", "view.update"]

    public var method: String {
        switch params {
        case .scroll: "view.scroll"
        case .select: "view.select"
        case .measure: "view.measure"
        case .update: "view.update"
        }
    }

    public var options: MutationOptions {
        switch params {
        case .scroll(let params): params.options
        case .select(let params): params.options
        case .measure(let params): params.options
        case .update(let params): params.options
        }
    }

    /// The general path: the typed params of a decoded request, through `ParamsReader` with
    /// today's reads and errors; nil when the method is not one of `methods`.
    public init?(_ request: Request) throws(WireError) {
        var reader = ParamsReader(request.params)
        switch request.method {
        case "view.scroll": params = .scroll(try ScrollParams(&reader))
        case "view.select": params = .select(try SelectParams(&reader))
        case "view.measure": params = .measure(try MeasureParams(&reader))
        case "view.update": params = .update(try UpdateParams(&reader))
        default: return nil
        }
        id = request.id
    }

    /// The fast path: a request line decoded without building a tree, or nil when the line is
    /// anything but a certainly valid request for one of `methods` (then decode it with
    /// `Request.decode` and `init(_:)`, which give the exact error).
    ///
    /// - Complexity: O(n) in the line's length, one pass (two over `params` when it comes
    ///   before `method`).
    public static func decode(_ line: some Collection<UInt8>) -> HotRequest? {
        if let decoded = line.withContiguousStorageIfAvailable({ decode(buffer: $0) }) { return decoded }
        return Array(line).withUnsafeBufferPointer { decode(buffer: $0) }
    }

    public static func decode(buffer: UnsafeBufferPointer<UInt8>) -> HotRequest? {
        guard let base = buffer.baseAddress else { return nil }
        var cursor = HotCursor(base: base, end: buffer.count)
        return cursor.request()
    }
}

/// The byte reader behind `HotRequest.decode` and `LoadRequest.decode`. Every method returns
/// nil (or false) to give up; none reports why, since the general path will.
struct HotCursor {
    let base: UnsafePointer<UInt8>
    let end: Int
    var position = 0

    typealias Key = (start: Int, count: Int)

    init(base: UnsafePointer<UInt8>, end: Int) {
        self.base = base
        self.end = end
    }

    // MARK: The envelope

    /// The envelope both byte decoders read (`request()` here, `loadRequest` for the loads): an
    /// object of `id`, `method` and `params`, each at most once, in any order, and nothing after
    /// it. `readMethod` takes the method's name (nil: not one this decoder reads); `readParams`
    /// reads the params object for that method. When `params` comes first it is stepped over
    /// (bytes scanned, nothing built) and read once the method is known.
    ///
    /// - Returns: nil to give up; else the id, the method and its params, nil when absent.
    @inline(__always)
    mutating func envelope<Method, Params>(
        method readMethod: (inout HotCursor) -> Method?, params readParams: (inout HotCursor, Method) -> Params?
    ) -> (id: RequestID?, method: Method, params: Params?)? {
        skipWhitespace()
        var id: RequestID?
        var method: Method?
        var deferredParams: (start: Int, end: Int)?
        var params: Params?
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if cursor.key(key, is: "id") {
                guard cursor.mark(1, &seen), let value = cursor.requestID() else { return false }
                id = value
            } else if cursor.key(key, is: "method") {
                guard cursor.mark(2, &seen), let name = readMethod(&cursor) else { return false }
                method = name
            } else if cursor.key(key, is: "params") {
                guard cursor.mark(4, &seen) else { return false }
                if let method {
                    guard let value = readParams(&cursor, method) else { return false }
                    params = value
                } else {
                    // `method` may come later: find where `params` ends now, read it then.
                    let start = cursor.position
                    guard cursor.skipObject() else { return false }
                    deferredParams = (start, cursor.position)
                }
            } else {
                return false
            }
            return true
        }
        guard finished, let method else { return nil }
        skipWhitespace()
        guard position == end else { return nil }
        if let deferredParams {
            position = deferredParams.start
            guard let value = readParams(&self, method), position == deferredParams.end else { return nil }
            params = value
        }
        return (id, method, params)
    }

    mutating func request() -> HotRequest? {
        guard let (id, _, params) = envelope(method: { $0.method() }, params: { $0.params($1) }), let params else { return nil }
        return HotRequest(id: id, params: params)
    }

    enum Method { case scroll, select, measure, update }

    mutating func method() -> Method? {
        guard let name = string() else { return nil }
        switch name {
        case "view.scroll": return .scroll
        case "view.select": return .select
        case "view.measure": return .measure
        case "view.update": return .update
        default: return nil
        }
    }

    /// An integer id (as `JSONValue.integerValue` takes it) or a string.
    mutating func requestID() -> RequestID? {
        guard position < end else { return nil }
        if base[position] == UInt8(ascii: "\"") { return string().map { .string($0) } }
        return integer().map { .number($0) }
    }

    mutating func params(_ method: Method) -> HotRequest.Params? {
        switch method {
        case .scroll: scroll().map { .scroll($0) }
        case .select: select().map { .select($0) }
        case .measure: measure().map { .measure($0) }
        case .update: update().map { .update($0) }
        }
    }

    // MARK: Params

    /// One of the common fields, if `key` names one: true when read, false to give up, nil
    /// when `key` is not common. `null` is absent for the optional ones, as in `ParamsReader`.
    mutating func option(_ key: Key, _ options: inout MutationOptions, _ seen: inout UInt32) -> Bool? {
        if self.key(key, is: "view") {
            guard mark(1 << 0, &seen), let view = string() else { return false }
            options.view = view
        } else if self.key(key, is: "animated") {
            guard mark(1 << 1, &seen), let flag = optionalBool() else { return false }
            options.animated = flag ?? false
        } else if self.key(key, is: "ifEpoch") {
            guard mark(1 << 2, &seen) else { return false }
            if literalNull() { return true }
            guard let epoch = integer() else { return false }
            options.ifEpoch = epoch
        } else if self.key(key, is: "dryRun") {
            guard mark(1 << 3, &seen), let flag = optionalBool() else { return false }
            options.dryRun = flag ?? false
        } else if self.key(key, is: "anchor") {
            // A policy's name; an element anchor (an object) is left to the general path.
            guard mark(1 << 4, &seen) else { return false }
            if literalNull() { return true }
            guard let name = string(), let policy = WireAnchor(name: name) else { return false }
            options.anchor = policy
        } else {
            return nil
        }
        return true
    }

    mutating func scroll() -> ScrollParams? {
        var options = MutationOptions(view: "")
        var offset = Point.zero
        var velocity: Point?
        var horizon: Double?
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if let handled = cursor.option(key, &options, &seen) { return handled }
            if cursor.key(key, is: "offset") {
                guard cursor.mark(1 << 8, &seen), let point = cursor.point() else { return false }
                offset = point
            } else if cursor.key(key, is: "velocity") {
                guard cursor.mark(1 << 9, &seen) else { return false }
                if cursor.literalNull() { return true }
                guard let point = cursor.point() else { return false }
                velocity = point
            } else if cursor.key(key, is: "horizon") {
                guard cursor.mark(1 << 10, &seen) else { return false }
                if cursor.literalNull() { return true }
                guard let value = cursor.number() else { return false }
                horizon = value
            } else {
                return false
            }
            return true
        }
        guard finished, seen & (1 << 0) != 0, seen & (1 << 8) != 0 else { return nil }
        return ScrollParams(options: options, offset: offset, velocity: velocity, horizon: horizon)
    }

    mutating func select() -> SelectParams? {
        var options = MutationOptions(view: "")
        var ids = [String]()
        var mode = SelectMode.set
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if let handled = cursor.option(key, &options, &seen) { return handled }
            if cursor.key(key, is: "ids") {
                guard cursor.mark(1 << 8, &seen), let list = cursor.strings() else { return false }
                ids = list
            } else if cursor.key(key, is: "mode") {
                guard cursor.mark(1 << 9, &seen) else { return false }
                if cursor.literalNull() { return true }
                guard let name = cursor.string(), let value = SelectMode(rawValue: name) else { return false }
                mode = value
            } else {
                return false
            }
            return true
        }
        guard finished, seen & (1 << 0) != 0, seen & (1 << 8) != 0 else { return nil }
        return SelectParams(options: options, ids: ids, mode: mode)
    }

    mutating func measure() -> MeasureParams? {
        var options = MutationOptions(view: "")
        var sizes = [MeasureParams.Entry]()
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if let handled = cursor.option(key, &options, &seen) { return handled }
            guard cursor.key(key, is: "sizes"), cursor.mark(1 << 8, &seen) else { return false }
            return cursor.array { cursor in
                var id: String?
                var size: Size?
                let finished = cursor.object { cursor, key in
                    if cursor.key(key, is: "id") {
                        guard id == nil, let value = cursor.string() else { return false }
                        id = value
                    } else if cursor.key(key, is: "size") {
                        guard size == nil, let value = cursor.size() else { return false }
                        size = value
                    } else {
                        return false
                    }
                    return true
                }
                guard finished, let id, let size else { return false }
                sizes.append(MeasureParams.Entry(id: id, size: size))
                return true
            }
        }
        guard finished, seen & (1 << 0) != 0, seen & (1 << 8) != 0 else { return nil }
        return MeasureParams(options: options, sizes: sizes)
    }

    mutating func update() -> UpdateParams? {
        var options = MutationOptions(view: "")
        var updates = [WireUpdate]()
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if let handled = cursor.option(key, &options, &seen) { return handled }
            guard cursor.key(key, is: "updates"), cursor.mark(1 << 8, &seen) else { return false }
            return cursor.array { cursor in
                guard let update = cursor.wireUpdate() else { return false }
                updates.append(update)
                return true
            }
        }
        guard finished, seen & (1 << 0) != 0, seen & (1 << 8) != 0 else { return nil }
        return UpdateParams(options: options, updates: updates)
    }

    // MARK: The wire model

    /// One batch operation. Every field has one type whatever the operation, so the fields
    /// are read as they come and the operation then checks it got exactly its own.
    mutating func wireUpdate() -> WireUpdate? {
        var op = ""
        var section = ""
        var at = 0
        var id = ""
        var ids = [String]()
        var items = [WireItem]()
        var sections = [WireSection]()
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if cursor.key(key, is: "op") {
                guard cursor.mark(1 << 0, &seen), let value = cursor.string() else { return false }
                op = value
            } else if cursor.key(key, is: "section") {
                guard cursor.mark(1 << 1, &seen), let value = cursor.string() else { return false }
                section = value
            } else if cursor.key(key, is: "at") {
                guard cursor.mark(1 << 2, &seen), let value = cursor.integer() else { return false }
                at = value
            } else if cursor.key(key, is: "id") {
                guard cursor.mark(1 << 3, &seen), let value = cursor.string() else { return false }
                id = value
            } else if cursor.key(key, is: "ids") {
                guard cursor.mark(1 << 4, &seen), let value = cursor.strings() else { return false }
                ids = value
            } else if cursor.key(key, is: "items") {
                guard cursor.mark(1 << 5, &seen), let value = cursor.items() else { return false }
                items = value
            } else if cursor.key(key, is: "sections") {
                guard cursor.mark(1 << 6, &seen) else { return false }
                let finished = cursor.array { cursor in
                    guard let value = cursor.wireSection() else { return false }
                    sections.append(value)
                    return true
                }
                guard finished else { return false }
            } else {
                return false
            }
            return true
        }
        guard finished else { return nil }
        let (opBit, sectionBit, atBit, idBit, idsBit, itemsBit, sectionsBit): (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32) =
            (1, 2, 4, 8, 16, 32, 64)
        switch op {
        case "insertItems" where seen == opBit | itemsBit | sectionBit | atBit: return .insertItems(items, section: section, at: at)
        case "deleteItems" where seen == opBit | idsBit: return .deleteItems(ids)
        case "moveItem" where seen == opBit | idBit | sectionBit | atBit: return .moveItem(id, toSection: section, at: at)
        case "reloadItems" where seen == opBit | itemsBit: return .reloadItems(items)
        case "insertSections" where seen == opBit | sectionsBit | atBit: return .insertSections(sections, at: at)
        case "deleteSections" where seen == opBit | idsBit: return .deleteSections(ids)
        case "moveSection" where seen == opBit | idBit | atBit: return .moveSection(id, to: at)
        case "reloadSections" where seen == opBit | sectionsBit: return .reloadSections(sections)
        default: return nil
        }
    }

    mutating func items() -> [WireItem]? {
        var items = [WireItem]()
        let finished = array { cursor in
            guard let item = cursor.wireItem() else { return false }
            // A long array reserves the rest once: grown by doubling, it held the old and the
            // new buffer at once, the peak of a 1M-item load (issue 41).
            if items.count == Self.itemsBeforeReserving { items.reserveCapacity(items.count + 1 + cursor.elementsAfter(minimumBytes: 10)) }
            items.append(item)
            return true
        }
        return finished ? items : nil
    }

    /// Items read before `items()` counts the rest of its array (a short one never does).
    static let itemsBeforeReserving = 4096

    /// How many more objects the array the cursor is inside holds after the one just read,
    /// stepped over with `skipObject` (strings and nesting followed, nothing read) up to the
    /// first element that is not one. At most what well-formed elements of `minimumBytes` each
    /// (with their comma) could fill of the rest of the line, so a hostile array of empty
    /// objects reserves no more than a valid one as long would use. Malformed input gives some
    /// count, and the decode fails as it would have.
    func elementsAfter(minimumBytes: Int) -> Int {
        var cursor = self
        var count = 0
        while true {
            cursor.skipWhitespace()
            guard cursor.consume(UInt8(ascii: ",")) else { break }
            cursor.skipWhitespace()
            guard cursor.skipObject() else { break }
            count += 1
        }
        return min(count, (end - position) / minimumBytes)
    }

    /// `{id, size?, estimatedSize?, selectedSize?}`.
    mutating func wireItem() -> WireItem? {
        var item = WireItem(id: "")
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if cursor.key(key, is: "id") {
                guard cursor.mark(1 << 0, &seen), let value = cursor.string() else { return false }
                item.id = value
            } else if cursor.key(key, is: "size") {
                guard cursor.mark(1 << 1, &seen), let value = cursor.optionalSize() else { return false }
                item.size = value
            } else if cursor.key(key, is: "estimatedSize") {
                guard cursor.mark(1 << 2, &seen), let value = cursor.optionalSize() else { return false }
                item.estimatedSize = value
            } else if cursor.key(key, is: "selectedSize") {
                guard cursor.mark(1 << 3, &seen), let value = cursor.optionalSize() else { return false }
                item.selectedSize = value
            } else {
                return false
            }
            return true
        }
        guard finished, seen & 1 != 0 else { return nil }
        return item
    }

    /// `{id, items, headerSize?, footerSize?}`.
    mutating func wireSection() -> WireSection? {
        var section = WireSection(id: "", items: [])
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if cursor.key(key, is: "id") {
                guard cursor.mark(1 << 0, &seen), let value = cursor.string() else { return false }
                section.id = value
            } else if cursor.key(key, is: "items") {
                guard cursor.mark(1 << 1, &seen), let value = cursor.items() else { return false }
                section.items = value
            } else if cursor.key(key, is: "headerSize") {
                guard cursor.mark(1 << 2, &seen), let value = cursor.optionalSize() else { return false }
                section.headerSize = value
            } else if cursor.key(key, is: "footerSize") {
                guard cursor.mark(1 << 3, &seen), let value = cursor.optionalSize() else { return false }
                section.footerSize = value
            } else {
                return false
            }
            return true
        }
        guard finished, seen & 3 == 3 else { return nil }
        return section
    }

    // MARK: Geometry

    mutating func point() -> Point? {
        guard let (x, y) = pair("x", "y") else { return nil }
        return Point(x: x, y: y)
    }

    mutating func size() -> Size? {
        guard let (width, height) = pair("width", "height") else { return nil }
        return Size(width: width, height: height)
    }

    /// A size, or `.some(nil)` for `null`.
    mutating func optionalSize() -> Size?? {
        if literalNull() { return .some(nil) }
        guard let size = size() else { return nil }
        return .some(size)
    }

    /// `{first: number, second: number}`, both required, nothing else.
    mutating func pair(_ first: StaticString, _ second: StaticString) -> (Double, Double)? {
        var a = 0.0
        var b = 0.0
        var seen: UInt32 = 0
        let finished = object { cursor, key in
            if cursor.key(key, is: first) {
                guard cursor.mark(1, &seen), let value = cursor.number() else { return false }
                a = value
            } else if cursor.key(key, is: second) {
                guard cursor.mark(2, &seen), let value = cursor.number() else { return false }
                b = value
            } else {
                return false
            }
            return true
        }
        guard finished, seen == 3 else { return nil }
        return (a, b)
    }

    // MARK: JSON

    /// Marks a field read; false when it was already (a duplicate key).
    @inline(__always)
    func mark(_ bit: UInt32, _ seen: inout UInt32) -> Bool {
        guard seen & bit == 0 else { return false }
        seen |= bit
        return true
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while position < end {
            switch base[position] {
            case 0x20, 0x09, 0x0A, 0x0D: position += 1
            default: return
            }
        }
    }

    @inline(__always)
    mutating func consume(_ byte: UInt8) -> Bool {
        guard position < end, base[position] == byte else { return false }
        position += 1
        return true
    }

    /// An object from its `{`: `body` reads each member's value (whitespace skipped around
    /// it) and returns false to give up.
    @inline(__always)
    mutating func object(_ body: (inout HotCursor, Key) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = key() else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard body(&self, key) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            return consume(UInt8(ascii: "}"))
        }
    }

    /// An array from its `[`: `body` reads each element.
    @inline(__always)
    mutating func array(_ body: (inout HotCursor) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "[")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "]")) { return true }
        while true {
            guard body(&self) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) {
                skipWhitespace()
                continue
            }
            return consume(UInt8(ascii: "]"))
        }
    }

    mutating func strings() -> [String]? {
        var strings = [String]()
        let finished = array { cursor in
            guard let text = cursor.string() else { return false }
            strings.append(text)
            return true
        }
        return finished ? strings : nil
    }

    /// A key's bytes: no escapes (a key with one is no key we know unescaped; the general
    /// path reads it), no control characters.
    @inline(__always)
    mutating func key() -> Key? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < end {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                position += 1
                return (start, position - 1 - start)
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            position += 1
        }
        return nil
    }

    @inline(__always)
    func key(_ key: Key, is name: StaticString) -> Bool {
        key.count == name.utf8CodeUnitCount && memoryEqual(base + key.start, name.utf8Start, key.count)
    }

    @inline(__always)
    func memoryEqual(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        for index in 0..<count where a[index] != b[index] { return false }
        return true
    }

    /// A string, its escapes decoded and its bytes valid UTF-8 (as `JSONParser` requires).
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        let start = position
        while position < end {
            let byte = base[position]
            if byte == UInt8(ascii: "\"") {
                let text = UTF8Text.string(UnsafeBufferPointer(start: base + start, count: position - start))
                position += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return escapedString(from: start) }
            if byte < 0x20 { return nil }
            position += 1
        }
        return nil
    }

    mutating func escapedString(from start: Int) -> String? {
        var decoded = [UInt8](UnsafeBufferPointer(start: base + start, count: position - start))
        while position < end {
            let byte = base[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                return UTF8Text.string(decoded)
            case UInt8(ascii: "\\"):
                position += 1
                guard position < end else { return nil }
                let escape = base[position]
                position += 1
                switch escape {
                case UInt8(ascii: "u"):
                    guard let first = hex4() else { return nil }
                    var value = first
                    if (0xD800...0xDBFF).contains(first) {
                        guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let second = hex4(), (0xDC00...0xDFFF).contains(second) else {
                            return nil
                        }
                        value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(first) {
                        return nil
                    }
                    guard let scalar = Unicode.Scalar(value) else { return nil }
                    decoded.append(contentsOf: UTF8.encode(scalar)!)
                default:
                    guard let byte = JSONEscape.byte(for: escape) else { return nil }
                    decoded.append(byte)
                }
            default:
                if byte < 0x20 { return nil }
                decoded.append(byte)
                position += 1
            }
        }
        return nil
    }

    mutating func hex4() -> UInt32? {
        guard position + 4 <= end else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = base[position]
            guard let digit = JSONEscape.hexDigit(byte) else { return nil }
            value = value * 16 + UInt32(digit)
            position += 1
        }
        return value
    }

    mutating func literal(_ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard position + count <= end, memoryEqual(base + position, word.utf8Start, count) else { return false }
        position += count
        return true
    }

    mutating func literalNull() -> Bool { literal("null") }

    /// `true`, `false`, or `null` as `.some(nil)`.
    mutating func optionalBool() -> Bool?? {
        if literal("true") { return .some(true) }
        if literal("false") { return .some(false) }
        if literal("null") { return .some(nil) }
        return nil
    }

    /// An integer as `JSONValue.integerValue` takes it: a number with no fraction, at most
    /// 2^53 in magnitude (`1e2` and `3.0` are integers).
    mutating func integer() -> Int? {
        guard let value = number(), let integral = Int64(exactly: value), integral.magnitude <= 9_007_199_254_740_992 else { return nil }
        return Int(integral)
    }

    /// A number by the JSON grammar, as the very double `JSONParser` reads: integers of up to
    /// 15 digits as `JSONParser` converts them (`-0` is +0), others when their digits (at most
    /// 15 significant) and power of ten (at most 22 either way) make one IEEE multiplication
    /// or division of exact operands, which rounds correctly as `Double(String)` does. Longer
    /// mantissas and larger exponents give up.
    mutating func number() -> Double? {
        var negative = false
        if consume(UInt8(ascii: "-")) { negative = true }
        guard position < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(base[position]) else { return nil }
        var mantissa: Int64 = 0
        var significant = 0
        var integerDigits = 0
        if base[position] == UInt8(ascii: "0") {
            position += 1
            if position < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(base[position]) { return nil }
        } else {
            while position < end, case let digit = base[position] &- UInt8(ascii: "0"), digit < 10 {
                mantissa = mantissa * 10 + Int64(digit)
                integerDigits += 1
                position += 1
                if integerDigits > 15 { return nil }
            }
            significant = integerDigits
        }
        var fractionDigits = 0
        var exponent = 0
        var simple = true
        if consume(UInt8(ascii: ".")) {
            simple = false
            guard position < end, base[position] &- UInt8(ascii: "0") < 10 else { return nil }
            while position < end, case let digit = base[position] &- UInt8(ascii: "0"), digit < 10 {
                mantissa = mantissa * 10 + Int64(digit)
                if mantissa != 0 { significant += 1 }
                fractionDigits += 1
                position += 1
                if significant > 15 || fractionDigits > 40 { return nil }
            }
        }
        if position < end, base[position] | 0x20 == UInt8(ascii: "e") {
            simple = false
            position += 1
            var negativeExponent = false
            if consume(UInt8(ascii: "-")) {
                negativeExponent = true
            } else {
                _ = consume(UInt8(ascii: "+"))
            }
            guard position < end, base[position] &- UInt8(ascii: "0") < 10 else { return nil }
            while position < end, case let digit = base[position] &- UInt8(ascii: "0"), digit < 10 {
                exponent = exponent * 10 + Int(digit)
                position += 1
                if exponent > 1000 { return nil }
            }
            if negativeExponent { exponent = -exponent }
        }
        if simple { return Double(negative ? -mantissa : mantissa) }
        let power = exponent - fractionDigits
        var value: Double
        if mantissa == 0 {
            value = 0
        } else if power >= 0 {
            guard power <= 22 else { return nil }
            value = Double(mantissa) * Self.powerOfTen(power)
        } else {
            guard power >= -22 else { return nil }
            value = Double(mantissa) / Self.powerOfTen(-power)
        }
        if negative { value = -value }
        return value
    }

    /// 10^n for n in 0...22, exactly (every product on the way is representable).
    @inline(__always)
    static func powerOfTen(_ n: Int) -> Double {
        var value = 1.0
        for _ in 0..<n { value *= 10 }
        return value
    }

    /// Steps over an object without reading it (its end found through strings and nesting),
    /// for `params` before `method`: it is read properly once the method is known.
    mutating func skipObject() -> Bool {
        guard position < end, base[position] == UInt8(ascii: "{") else { return false }
        var depth = 0
        while position < end {
            let byte = base[position]
            position += 1
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return true }
            case UInt8(ascii: "\""):
                while position < end, base[position] != UInt8(ascii: "\"") {
                    position += base[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                position += 1
            default: break
            }
        }
        return false
    }
}
