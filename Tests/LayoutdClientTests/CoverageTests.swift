import Foundation
import LayoutProtocol
import LayoutdClient
import Testing

/// The Swift client covers the protocol as protocol/interface.json describes it: every method
/// has its generated types (`LayoutdMethods`) and typed calls, or is in the client's raw-only
/// list with a reason. A method added to the description fails this until the client is
/// regenerated (scripts/generate-protocol.py) or someone lists it as raw-only.
@Suite("LayoutdClient covers the protocol")
struct CoverageTests {
    static let interface: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("protocol").appendingPathComponent("interface.json")

    static func described() throws -> [(name: String, mutates: Bool)] {
        let value = try JSONParser.parse(Array(try Data(contentsOf: interface)))
        return (value["methods"]?.arrayValue ?? []).compactMap { method in
            guard let name = method["name"]?.stringValue, let mutates = method["mutates"]?.boolValue else { return nil }
            return (name, mutates)
        }
    }

    @Test("every described method is typed or raw-only with a reason")
    func everyMethodIsCovered() throws {
        let methods = try Self.described()
        #expect(methods.count >= 40, "read \(methods.count) methods from \(Self.interface.path)")
        for (name, mutates) in methods {
            if let reason = LayoutdMethods.rawOnly[name] {
                #expect(!reason.isEmpty, "\(name) is raw-only without a reason")
                #expect(LayoutdMethods.named(name) == nil, "\(name) is raw-only and typed")
                continue
            }
            guard let type = LayoutdMethods.named(name) else {
                Issue.record("\(name) is described in protocol/interface.json but the Swift client neither types it nor lists it as raw-only")
                continue
            }
            #expect(type.mutates == mutates, "\(name): mutates \(type.mutates), described \(mutates)")
        }
        let names = Set(methods.map(\.name))
        for type in LayoutdMethods.all {
            #expect(names.contains(type.name), "\(type.name) is typed but no longer described")
        }
        for name in LayoutdMethods.rawOnly.keys {
            #expect(names.contains(name), "\(name) is raw-only but no longer described")
        }
    }

    @Test("typed params encode in the schema's order and read back")
    func paramsRoundTrip() throws {
        let params = LayoutdMethods.ViewScrollTo.Params(view: "photos", id: "p4", dryRun: true, align: .center, offset: 8)
        let line = JSONWriter.string(.object(params.json))
        #expect(line == #"{"view":"photos","dryRun":true,"id":"p4","align":"center","offset":8}"#)
        let read = try LayoutdMethods.ViewScrollTo.Params(.object(params.json), "params")
        #expect(JSONWriter.string(.object(read.json)) == line)
        #expect(throws: DecodingFailure.self) { try LayoutdMethods.ViewScrollTo.Params(.object(["view": .string("v")]), "params") }
        #expect(throws: DecodingFailure.self) {
            try LayoutdMethods.ViewScrollTo.Params(.object(["view": .string("v"), "id": .string("a"), "speed": .number(1)]), "params")
        }
        let update = LayoutdMethods.ViewUpdate.Params(view: "v", updates: [.moveItem("a", toSection: "s", at: 2), .deleteItems(["b"])])
        #expect(JSONWriter.string(.object(update.json))
            == #"{"view":"v","updates":[{"op":"moveItem","id":"a","section":"s","at":2},{"op":"deleteItems","ids":["b"]}]}"#)
    }

    @Test("a result the daemon may grow keeps its object, and reads its own fields")
    func resultKeepsItsObject() throws {
        let value = try JSONParser.parse(#"{"upload":"u1","view":"v","epoch":3,"later":true}"#)
        let begun = try LayoutdMethods.ViewStageBegin.result(value)
        #expect(begun.upload == "u1" && begun.view == "v" && begun.epoch == 3)
        #expect(begun.json["later"] == .bool(true))
        #expect(throws: DecodingFailure.self) { try LayoutdMethods.ViewStageBegin.result(try JSONParser.parse(#"{"view":"v"}"#)) }
    }
}
