import LayoutProtocol
import LayoutService
import Testing

/// The service end to end without a socket: JSON lines in, JSON lines out.
@Suite("layout service")
struct ServiceTests {
    /// Sends one line and returns the lines produced, per connection, parsed.
    @discardableResult
    static func send(_ service: LayoutService, _ line: String, from connection: ConnectionID = 1) throws -> [(ConnectionID, JSONValue)] {
        try service.handle(line: Array(line.utf8), from: connection).map { delivery in
            #expect(delivery.line.last == 0x0A)
            #expect(delivery.line.dropLast().contains(0x0A) == false, "one line per delivery")
            return (delivery.connection, try JSONParser.parse(delivery.line.dropLast()))
        }
    }

    static func reply(_ service: LayoutService, _ line: String, from connection: ConnectionID = 1) throws -> JSONValue {
        let output = try send(service, line, from: connection)
        return try #require(output.first { $0.0 == connection && $0.1["id"] != nil }?.1)
    }

    static func create(_ service: LayoutService, items: Int = 30) throws {
        let items = (0..<items).map { #"{"id": "p\#($0)"}"# }.joined(separator: ",")
        let created = try reply(
            service,
            #"{"id": 1, "method": "view.create", "params": {"view": "photos", "strategy": "flow", "params": {"itemSize": {"width": 100, "height": 100}}, "viewport": {"width": 375, "height": 667}, "sections": [{"id": "s", "items": [\#(items)]}]}}"#)
        #expect(created["result"]?["epoch"] == .number(0))
    }

    @Test("hello agrees on version 1 and refuses versions it does not speak")
    func hello() throws {
        let service = LayoutService()
        let hello = try Self.reply(service, #"{"id": 1, "method": "daemon.hello", "params": {"protocol": [1, 2]}}"#)
        #expect(hello["result"]?["protocol"] == .number(1))
        let refused = try Self.reply(service, #"{"id": 2, "method": "daemon.hello", "params": {"protocol": [7]}}"#)
        #expect(refused["error"]?["name"] == .string("UnsupportedVersion"))
    }

    @Test("describe lists every method, error and strategy")
    func describe() throws {
        let service = LayoutService()
        let result = try #require(try Self.reply(service, #"{"id": 1, "method": "daemon.describe"}"#)["result"])
        let methods = Set(result["methods"]?.arrayValue?.compactMap { $0["name"]?.stringValue } ?? [])
        #expect(methods == Set(MethodCatalog.methods.map(\.name)))
        #expect(result["errors"]?.arrayValue?.count == ErrorCatalog.entries.count)
        let strategies = result["strategies"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(strategies == ["collapsible", "compositional", "display", "flow", "ultravisual"])
    }

    @Test("a view is created, queried, listed and deleted by name")
    func lifecycle() throws {
        let service = LayoutService()
        try Self.create(service)
        let duplicate = try Self.reply(service, #"{"id": 2, "method": "view.create", "params": {"view": "photos", "strategy": "flow", "viewport": {"width": 10, "height": 10}}}"#)
        #expect(duplicate["error"]?["name"] == .string("ViewExists"))
        let item = try Self.reply(service, #"{"id": 3, "method": "view.item", "params": {"view": "photos", "id": "p4"}}"#)
        #expect(item["result"]?["attributes"]?["frame"] == .object(["x": .number(137.5), "y": .number(110), "width": .number(100), "height": .number(100)]))
        let query = try Self.reply(service, #"{"id": 4, "method": "view.query", "params": {"view": "photos", "rect": {"x": 0, "y": 100, "width": 375, "height": 15}}}"#)
        #expect(query["result"]?["elements"]?.arrayValue?.compactMap { $0["id"]?.stringValue } == ["p3", "p4", "p5"])
        let list = try Self.reply(service, #"{"id": 5, "method": "view.list"}"#)
        #expect(list["result"]?["views"]?.arrayValue?.first?["itemCount"] == .number(30))
        #expect(try Self.reply(service, #"{"id": 6, "method": "view.delete", "params": {"view": "photos"}}"#)["result"] == .object([:]))
        let gone = try Self.reply(service, #"{"id": 7, "method": "view.get", "params": {"view": "photos"}}"#)
        #expect(gone["error"]?["name"] == .string("ViewNotFound"))
        #expect(gone["error"]?["code"] == .number(-32001))
    }

    @Test(
        "refusals are named, echo the id, and change nothing",
        arguments: [
            (#"{"id": 9, "method": "view.scroll", "params": {"view": "photos", "offset": {"x": 0, "y": 50}, "extra": 1}}"#, "InvalidParams"),
            (#"{"id": 9, "method": "view.scroll", "params": {"view": "photos", "offset": {"x": 0}}}"#, "InvalidParams"),
            (#"{"id": 9, "method": "view.scroll", "params": {"view": "photos", "offset": {"x": 0, "y": 1}, "ifEpoch": 5}}"#, "StaleEpoch"),
            (#"{"id": 9, "method": "view.update", "params": {"view": "photos", "updates": [{"op": "deleteItems", "ids": ["p1", "nope"]}]}}"#, "ItemNotFound"),
            (#"{"id": 9, "method": "view.update", "params": {"view": "photos", "updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "p1"}]}]}}"#, "DuplicateItemID"),
            (#"{"id": 9, "method": "view.setData", "params": {"view": "photos", "sections": [{"id": "s", "items": [{"id": "a", "size": {"width": -1, "height": 2}}]}]}}"#, "InvalidSize"),
            (#"{"id": 9, "method": "view.measure", "params": {"view": "photos", "sizes": [{"id": "ghost", "size": {"width": 1, "height": 2}}]}}"#, "ItemNotFound"),
            (#"{"id": 9, "method": "view.select", "params": {"view": "photos", "ids": ["p1"], "mode": "invert"}}"#, "InvalidParams"),
            (#"{"id": 9, "method": "view.resize", "params": {"view": "photos", "size": {"width": 0, "height": 10}}}"#, "InvalidViewport"),
            (#"{"id": 9, "method": "view.configure", "params": {"view": "photos", "params": {"itemSzie": {"width": 1, "height": 1}}}}"#, "UnknownParameter"),
            (#"{"id": 9, "method": "view.setStrategy", "params": {"view": "photos", "strategy": "masonry"}}"#, "UnknownStrategy"),
            (#"{"id": 9, "method": "view.nope", "params": {}}"#, "MethodNotFound"),
            (#"{"id": 9, "method": "view.scroll", "params": {"view": "other", "offset": {"x": 0, "y": 1}}}"#, "ViewNotFound"),
        ])
    func refusals(line: String, name: String) throws {
        let service = LayoutService()
        try Self.create(service)
        let before = try Self.reply(service, #"{"id": 2, "method": "view.get", "params": {"view": "photos"}}"#)["result"]
        let reply = try Self.reply(service, line)
        #expect(reply["id"] == .number(9))
        #expect(reply["error"]?["name"] == .string(name), "\(reply)")
        let after = try Self.reply(service, #"{"id": 2, "method": "view.get", "params": {"view": "photos"}}"#)["result"]
        #expect(after == before)
    }

    @Test("the daemon-wide item budget holds across views, is given back by deletes and refusals change nothing")
    func totalItemBudget() throws {
        let service = LayoutService(limits: ServiceLimits(maximumTotalItems: 40))
        func items(_ prefix: String, _ count: Int) -> String { (0..<count).map { #"{"id": "\#(prefix)\#($0)"}"# }.joined(separator: ",") }
        func create(_ name: String, _ count: Int) throws -> JSONValue {
            try Self.reply(
                service,
                #"{"id": 1, "method": "view.create", "params": {"view": "\#(name)", "strategy": "flow", "viewport": {"width": 375, "height": 667}, "sections": [{"id": "s", "items": [\#(items(name, count))]}]}}"#)
        }
        func insert(_ name: String, _ ids: String) throws -> JSONValue {
            try Self.reply(
                service, #"{"id": 2, "method": "view.update", "params": {"view": "\#(name)", "updates": [{"op": "insertItems", "section": "s", "at": 0, "items": [\#(ids)]}]}}"#)
        }
        func limit(_ reply: JSONValue) -> JSONValue? { reply["error"]?["data"]?["limit"] }
        #expect(try create("a", 30)["result"] != nil)
        #expect(limit(try create("b", 11)) == .string("total items"))
        #expect(try create("b", 10)["result"] != nil)
        // Full: an insertion anywhere is refused and changes nothing; a batch that deletes as
        // many as it inserts is still refused (the reservation counts what it could add).
        let before = try Self.reply(service, #"{"id": 3, "method": "view.get", "params": {"view": "a"}}"#)
        #expect(limit(try insert("a", #"{"id": "x"}"#)) == .string("total items"))
        #expect(try Self.reply(service, #"{"id": 3, "method": "view.get", "params": {"view": "a"}}"#) == before)
        // setData that shrinks a view gives items back to the other.
        #expect(try Self.reply(service, #"{"id": 4, "method": "view.setData", "params": {"view": "a", "sections": [{"id": "s", "items": [\#(items("a", 20))]}]}}"#)["result"] != nil)
        #expect(try insert("b", items("n", 10))["result"] != nil)
        #expect(limit(try insert("b", #"{"id": "y"}"#)) == .string("total items"))
        // A refused request (duplicate id) gives its reservation back.
        #expect(try Self.reply(service, #"{"id": 5, "method": "view.delete", "params": {"view": "b"}}"#)["result"] != nil)
        #expect(try insert("a", #"{"id": "a1"}"#)["error"]?["name"] == .string("DuplicateItemID"))
        #expect(try create("c", 20)["result"] != nil)
        #expect(limit(try create("d", 1)) == .string("total items"))
        let hello = try Self.reply(service, #"{"id": 6, "method": "daemon.hello"}"#)
        #expect(hello["result"]?["limits"]?["maximumTotalItems"] == .number(40))
    }

    @Test("a reloadSections that grows a section is checked against the item budget")
    func reloadSectionsBudget() throws {
        // Found by a hostile client: with a budget of 1,000, one reload added 40,000 items.
        let service = LayoutService(limits: ServiceLimits(maximumTotalItems: 100))
        func items(_ prefix: String, _ count: Int) -> String { (0..<count).map { #"{"id": "\#(prefix)\#($0)"}"# }.joined(separator: ",") }
        func reload(_ count: Int, prefix: String) throws -> JSONValue {
            try Self.reply(
                service,
                #"{"id": 2, "method": "view.update", "params": {"view": "a", "updates": [{"op": "reloadSections", "sections": [{"id": "s", "items": [\#(items(prefix, count))]}]}]}}"#)
        }
        let created = try Self.reply(
            service,
            #"{"id": 1, "method": "view.create", "params": {"view": "a", "strategy": "flow", "viewport": {"width": 375, "height": 667}, "sections": [{"id": "s", "items": [\#(items("a", 60))]}, {"id": "t", "items": [\#(items("t", 30))]}]}}"#)
        #expect(created["result"] != nil)
        let before = try Self.reply(service, #"{"id": 3, "method": "view.get", "params": {"view": "a"}}"#)
        let refused = try reload(4000, prefix: "x")
        #expect(refused["error"]?["data"]?["limit"] == .string("total items"))
        #expect(try Self.reply(service, #"{"id": 3, "method": "view.get", "params": {"view": "a"}}"#) == before)
        // Growing by exactly what is left (60 -> 70 with 90 of 100 used) fits; then one more does not.
        #expect(try reload(70, prefix: "y")["result"] != nil)
        #expect(try reload(71, prefix: "z")["error"]?["data"]?["limit"] == .string("total items"))
        // Shrinking gives items back.
        #expect(try reload(10, prefix: "w")["result"] != nil)
        #expect(try reload(70, prefix: "v")["result"] != nil)
    }

    @Test("lines that are not requests get errors with id null or the readable id")
    func malformed() throws {
        let service = LayoutService()
        let output = try Self.send(service, "{not json")
        #expect(output.first?.1["id"] == .null)
        #expect(output.first?.1["error"]?["code"] == .number(-32700))
        let invalid = try Self.send(service, #"{"id": 4}"#)
        #expect(invalid.first?.1["id"] == .number(4))
        #expect(invalid.first?.1["error"]?["name"] == .string("InvalidRequest"))
        let utf8 = service.handle(line: [0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D], from: 1)
        #expect(utf8.count == 1)
    }

    @Test("subscribers get the snapshot, then every invalidation with a gapless seq per connection")
    func subscriptions() throws {
        let service = LayoutService()
        try Self.create(service)
        let subscribed = try Self.reply(service, #"{"id": 2, "method": "view.subscribe", "params": {"view": "photos"}}"#, from: 2)
        let subscription = try #require(subscribed["result"]?["subscription"])
        #expect(subscribed["result"]?["snapshot"]?["elements"]?.arrayValue?.count == 21)
        // A scroll by connection 1: the reply to 1 first, then the event to 2.
        let output = try Self.send(service, #"{"id": 3, "method": "view.scroll", "params": {"view": "photos", "offset": {"x": 0, "y": 220}}}"#)
        #expect(output.map(\.0) == [1, 2])
        #expect(output[1].1["event"] == .string("view.invalidated"))
        #expect(output[1].1["subscription"] == subscription)
        #expect(output[1].1["seq"] == .number(1))
        #expect(output[1].1["id"] == nil)
        #expect(output[1].1["params"] == output[0].1["result"])
        // A notification (no id): no reply, the event still goes out, seq continues.
        let quiet = try Self.send(service, #"{"method": "view.select", "params": {"view": "photos", "ids": ["p9"]}}"#)
        #expect(quiet.map(\.0) == [2])
        #expect(quiet[0].1["seq"] == .number(2))
        // Unsubscribing stops events; deleting tells remaining subscribers.
        let second = try Self.reply(service, #"{"id": 4, "method": "view.subscribe", "params": {"view": "photos"}}"#, from: 2)
        #expect(try Self.reply(service, #"{"id": 5, "method": "view.unsubscribe", "params": {"subscription": \#(JSONWriter.string(subscription))}}"#, from: 2)["result"] == .object([:]))
        let deleted = try Self.send(service, #"{"id": 6, "method": "view.delete", "params": {"view": "photos"}}"#)
        #expect(deleted.count == 2)
        #expect(deleted[1].1["event"] == .string("view.deleted"))
        #expect(deleted[1].1["subscription"] == second["result"]?["subscription"])
        #expect(deleted[1].1["seq"] == .number(3))
    }

    @Test("a subscriber's mirror of the window stays equal to a fresh query")
    func mirror() throws {
        let service = LayoutService()
        try Self.create(service, items: 200)
        let subscribed = try Self.reply(service, #"{"id": 2, "method": "view.subscribe", "params": {"view": "photos"}}"#, from: 2)
        var mirror = [String: JSONValue]()
        func key(_ value: JSONValue) -> String { "\(value["kind"]?.stringValue ?? ""):\(value["id"]?.stringValue ?? "")" }
        for element in subscribed["result"]?["snapshot"]?["elements"]?.arrayValue ?? [] { mirror[key(element)] = element }
        let requests = [
            #"{"id": 3, "method": "view.scroll", "params": {"view": "photos", "offset": {"x": 0, "y": 500}}}"#,
            #"{"id": 4, "method": "view.update", "params": {"view": "photos", "animated": true, "updates": [{"op": "deleteItems", "ids": ["p16"]}, {"op": "insertItems", "section": "s", "at": 3, "items": [{"id": "new", "size": {"width": 300, "height": 40}}]}]}}"#,
            #"{"id": 5, "method": "view.measure", "params": {"view": "photos", "sizes": [{"id": "p2", "size": {"width": 100, "height": 180}}]}}"#,
            #"{"id": 6, "method": "view.resize", "params": {"view": "photos", "size": {"width": 500, "height": 700}}}"#,
            #"{"id": 7, "method": "view.setStrategy", "params": {"view": "photos", "strategy": "display", "params": {"mode": "list"}, "animated": true}}"#,
            #"{"id": 8, "method": "view.configure", "params": {"view": "photos", "params": {"mode": "inline"}}}"#,
            #"{"id": 9, "method": "view.scrollEnd", "params": {"view": "photos", "proposed": {"x": 900, "y": 0}}}"#,
        ]
        for request in requests {
            let output = try Self.send(service, request)
            let event = try #require(output.first { $0.0 == 2 }?.1["params"])
            for left in event["left"]?.arrayValue ?? [] { mirror[key(left)] = nil }
            for element in (event["entered"]?.arrayValue ?? []) + (event["changed"]?.arrayValue ?? []) { mirror[key(element)] = element }
            let window = try #require(event["window"])
            let fresh = try Self.reply(service, #"{"id": 99, "method": "view.query", "params": {"view": "photos", "rect": \#(JSONWriter.string(window))}}"#)
            var expected = [String: JSONValue]()
            for element in fresh["result"]?["elements"]?.arrayValue ?? [] { expected[key(element)] = element }
            #expect(mirror == expected, "after \(request)")
        }
    }
}
