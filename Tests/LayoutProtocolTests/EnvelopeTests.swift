import LayoutGeometry
import LayoutProtocol
import Testing

@Suite("request envelope")
struct EnvelopeTests {
    @Test("requests decode with integer or string ids; no id is a notification")
    func decoding() throws {
        let request = try Request.decode(Array(#"{"id": 7, "method": "view.scroll", "params": {"view": "a"}}"#.utf8))
        #expect(request == Request(id: .number(7), method: "view.scroll", params: ["view": .string("a")]))
        let named = try Request.decode(Array(#"{"jsonrpc": "2.0", "id": "x-1", "method": "daemon.hello"}"#.utf8))
        #expect(named.id == .string("x-1"))
        #expect(named.params.count == 0)
        let notification = try Request.decode(Array(#"{"method": "view.scroll", "params": {}}"#.utf8))
        #expect(notification.id == nil)
    }

    @Test(
        "bad requests fail with the right name, keeping the id when it was readable",
        arguments: [
            (#"{"id": 1, "method": }"#, "ParseError", nil as RequestID?),
            ("\u{0}", "ParseError", nil),
            (#"[1, 2]"#, "InvalidRequest", nil),
            (#"{"id": 1.5, "method": "a"}"#, "InvalidRequest", nil),
            (#"{"id": null, "method": "a"}"#, "InvalidRequest", nil),
            (#"{"id": 3}"#, "InvalidRequest", .number(3)),
            (#"{"id": 3, "method": ""}"#, "InvalidRequest", .number(3)),
            (#"{"id": "q", "method": "a", "params": [1]}"#, "InvalidRequest", .string("q")),
            (#"{"id": 4, "method": "a", "extra": true}"#, "InvalidRequest", .number(4)),
        ])
    func failures(line: String, name: String, id: RequestID?) {
        do {
            _ = try Request.decode(Array(line.utf8))
            Issue.record("accepted \(line)")
        } catch {
            #expect(error.error.name == name, "\(line): \(error.error.message)")
            #expect(error.id == id)
        }
    }

    @Test("replies, errors and events are single lines in a fixed shape")
    func encoding() {
        #expect(String(decoding: Envelope.result(id: .number(7), .object(["epoch": .number(3)])), as: UTF8.self) == "{\"id\":7,\"result\":{\"epoch\":3}}\n")
        let error = WireError(name: "ViewNotFound", message: "no view named 'x'", data: ["view": .string("x")])
        #expect(
            String(decoding: Envelope.error(id: .string("a"), error), as: UTF8.self)
                == "{\"id\":\"a\",\"error\":{\"code\":-32001,\"name\":\"ViewNotFound\",\"message\":\"no view named 'x'\",\"data\":{\"view\":\"x\"}}}\n")
        #expect(
            String(decoding: Envelope.error(id: nil, .parseError("bad")), as: UTF8.self)
                == "{\"id\":null,\"error\":{\"code\":-32700,\"name\":\"ParseError\",\"message\":\"bad\"}}\n")
        #expect(
            String(decoding: Envelope.event("view.invalidated", subscription: 2, seq: 9, params: .object([:])), as: UTF8.self)
                == "{\"event\":\"view.invalidated\",\"subscription\":2,\"seq\":9,\"params\":{}}\n")
        #expect(
            String(decoding: Envelope.event("daemon.shutdown", subscription: nil, seq: 3, encodedParams: JSONWriter.encode(.object(["reason": .string("SIGTERM")]))), as: UTF8.self)
                == "{\"event\":\"daemon.shutdown\",\"seq\":3,\"params\":{\"reason\":\"SIGTERM\"}}\n")
        #expect(
            String(decoding: Envelope.result(id: .string("a"), encoded: JSONWriter.encode(.array([.number(1.5)]))), as: UTF8.self)
                == "{\"id\":\"a\",\"result\":[1.5]}\n")
    }

    @Test("every error name has one code, JSON-RPC's own for the standard ones")
    func catalog() {
        let names = ErrorCatalog.entries.map(\.name)
        let codes = ErrorCatalog.entries.map(\.code)
        #expect(Set(names).count == names.count)
        // One code per name, except that an over-long line is a parse error in JSON-RPC's terms.
        let ownCodes = ErrorCatalog.entries.filter { $0.name != "LineTooLong" }.map(\.code)
        #expect(Set(ownCodes).count == ownCodes.count)
        #expect(ErrorCatalog.code(forName: "LineTooLong") == -32700)
        #expect(ErrorCatalog.code(forName: "ParseError") == -32700)
        #expect(ErrorCatalog.code(forName: "InvalidParams") == -32602)
        #expect(ErrorCatalog.code(forName: "SomethingNew") == -32000)
        #expect(codes.allSatisfy { (-32099 ... -32000).contains($0) || (-32700 ... -32600).contains($0) })
    }
}

@Suite("wire params")
struct WireParamsTests {
    static func reader(_ json: String) throws -> ParamsReader {
        ParamsReader(try #require(try JSONParser.parse(json).objectValue))
    }

    @Test("sections, items and sizes decode")
    func sections() throws {
        var reader = try Self.reader(#"""
            {"sections": [{"id": "s", "headerSize": {"width": 0, "height": 44},
                           "items": [{"id": "a"}, {"id": "b", "size": {"width": 10, "height": 20}, "selectedSize": {"width": 10, "height": 90}},
                                     {"id": "c", "estimatedSize": {"width": 5.5, "height": 6}}]}]}
            """#)
        let sections = try WireModel.sections(&reader, "sections")
        try reader.finish()
        #expect(sections == [
            WireSection(
                id: "s",
                items: [
                    WireItem(id: "a"),
                    WireItem(id: "b", size: Size(width: 10, height: 20), selectedSize: Size(width: 10, height: 90)),
                    WireItem(id: "c", estimatedSize: Size(width: 5.5, height: 6)),
                ],
                headerSize: Size(width: 0, height: 44))
        ])
    }

    @Test("every batch operation decodes")
    func updates() throws {
        var reader = try Self.reader(#"""
            {"updates": [
              {"op": "insertItems", "section": "s", "at": 0, "items": [{"id": "x"}]},
              {"op": "deleteItems", "ids": ["a"]},
              {"op": "moveItem", "id": "b", "section": "t", "at": 2},
              {"op": "reloadItems", "items": [{"id": "c", "size": {"width": 1, "height": 2}}]},
              {"op": "insertSections", "at": 1, "sections": [{"id": "n", "items": []}]},
              {"op": "deleteSections", "ids": ["old"]},
              {"op": "moveSection", "id": "t", "at": 0},
              {"op": "reloadSections", "sections": [{"id": "s", "items": [{"id": "y"}]}]}]}
            """#)
        let updates = try WireModel.updates(&reader, "updates")
        #expect(updates == [
            .insertItems([WireItem(id: "x")], section: "s", at: 0), .deleteItems(["a"]), .moveItem("b", toSection: "t", at: 2),
            .reloadItems([WireItem(id: "c", size: Size(width: 1, height: 2))]), .insertSections([WireSection(id: "n", items: [])], at: 1),
            .deleteSections(["old"]), .moveSection("t", to: 0), .reloadSections([WireSection(id: "s", items: [WireItem(id: "y")])]),
        ])
    }

    @Test(
        "wrong types, missing and unknown fields name their path",
        arguments: [
            (#"{"sections": [{"id": "s", "items": [{"id": 5}]}]}"#, "params.sections[0].items[0].id"),
            (#"{"sections": [{"id": "s", "items": [{"id": "a", "size": {"width": "1", "height": 2}}]}]}"#, "params.sections[0].items[0].size.width"),
            (#"{"sections": [{"id": "s", "items": [{"id": "a", "size": {"width": 1}}]}]}"#, "params.sections[0].items[0].size.height"),
            (#"{"sections": [{"id": "s", "items": [{"id": "a", "colour": "red"}]}]}"#, "params.sections[0].items[0].colour"),
            (#"{"sections": [{"items": []}]}"#, "params.sections[0].id"),
            (#"{"sections": {"id": "s"}}"#, "params.sections"),
            (#"{"sections": [3]}"#, "params.sections[0]"),
        ])
    func failures(json: String, path: String) throws {
        var reader = try Self.reader(json)
        do {
            _ = try WireModel.sections(&reader, "sections")
            try reader.finish()
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.name == "InvalidParams")
            #expect(error.data["path"] == .string(path), "\(error.message)")
        }
    }

    @Test("an unknown batch operation lists the known ones")
    func unknownOperation() throws {
        var reader = try Self.reader(#"{"updates": [{"op": "shuffle"}]}"#)
        #expect(throws: WireError.self) { try WireModel.updates(&reader, "updates") }
    }

    @Test("attributes encode in the documented order, optional parts only when present")
    func attributes() {
        let cell = WireAttributes(id: "p7", kind: "cell", section: 0, item: 3, frame: Rect(x: 137.5, y: 0, width: 100, height: 100))
        #expect(
            JSONWriter.string(cell.json)
                == #"{"id":"p7","kind":"cell","section":0,"item":3,"frame":{"x":137.5,"y":0,"width":100,"height":100},"zIndex":0,"alpha":1,"hidden":false}"#)
        let header = WireAttributes(
            id: "s", kind: "header", section: 1, item: nil, frame: Rect(x: 0, y: 250, width: 375, height: 40), zIndex: 1024,
            transform: .scale(x: 2, y: 1), effects: ["titleScale": 0.5, "coverAlpha": 0.525])
        #expect(
            JSONWriter.string(header.json)
                == #"{"id":"s","kind":"header","section":1,"frame":{"x":0,"y":250,"width":375,"height":40},"zIndex":1024,"alpha":1,"hidden":false,"transform":{"a":2,"b":0,"c":0,"d":1,"tx":0,"ty":0},"effects":{"coverAlpha":0.525,"titleScale":0.5}}"#)
    }
}
