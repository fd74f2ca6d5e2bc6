import LayoutProtocol
import LayoutService
import Testing

/// The one method table (`Methods`), the documented catalog (`MethodCatalog`) and the published
/// schemas (`SchemaCatalog`) name the same methods and agree on which of them mutate.
@Suite("method table")
struct MethodTableTests {
    private static let schemas: [String: JSONValue] = {
        var parsed = [String: JSONValue]()
        for document in SchemaCatalog.documents { parsed[document.path] = try? JSONParser.parse(document.json) }
        return parsed
    }()

    @Test("the table and the catalog hold the same methods in the same order")
    func sameMethods() {
        #expect(Methods.all.map(\.name) == MethodCatalog.methods.map(\.name))
        #expect(Methods.named.count == Methods.all.count, "a method appears twice in the table")
    }

    @Test("every method has a params and a result schema, and the schemas describe no other method")
    func schemasCoverTheTable() {
        let names = Set(Methods.all.map(\.name))
        for name in names {
            #expect(Self.schemas["methods/\(name).params.json"] != nil, "no params schema for \(name)")
            #expect(Self.schemas["methods/\(name).result.json"] != nil, "no result schema for \(name)")
        }
        let described = Set(Self.schemas.keys.filter { $0.hasPrefix("methods/") }.map {
            String($0.dropFirst("methods/".count).split(separator: ".").dropLast(2).joined(separator: "."))
        })
        #expect(described == names, "schemas without a method: \(described.subtracting(names)); methods without: \(names.subtracting(described))")
    }

    @Test("a method mutates exactly when its schema and its catalog entry take dryRun and ifEpoch")
    func mutatesAgrees() {
        for method in MethodCatalog.methods {
            let properties = Self.schemas["methods/\(method.name).params.json"]?["properties"]?.objectValue?.keys ?? []
            let documented = method.parameters.map(\.name)
            for parameter in ["dryRun", "ifEpoch"] {
                #expect(properties.contains(parameter) == method.mutates || parameter == "ifEpoch" && ["view.stage.begin", "view.beginTransition"].contains(method.name),
                        "\(method.name): mutates \(method.mutates), its schema \(properties.contains(parameter) ? "takes" : "lacks") \(parameter)")
                #expect(documented.contains(parameter) == properties.contains(parameter), "\(method.name): the catalog and the schema disagree on \(parameter)")
            }
            #expect(method.mutates == method.result.hasPrefix("invalidation"), "\(method.name): mutates \(method.mutates), result \(method.result)")
        }
    }

    @Test("a method the service routes to an existing view requires `view`, in its schema and its catalog entry")
    func viewMethodsNameTheirView() {
        let catalog = Dictionary(uniqueKeysWithValues: MethodCatalog.methods.map { ($0.name, $0) })
        let viewMethods = Methods.all.filter(\.needsView)
        #expect(viewMethods.count >= 10, "only \(viewMethods.map(\.name)) route to a view")
        for method in viewMethods {
            let required = Self.schemas["methods/\(method.name).params.json"]?["required"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(required.contains("view"), "\(method.name): its schema does not require view")
            #expect(catalog[method.name]?.parameters.first { $0.name == "view" }?.required == true, "\(method.name): its catalog entry does not require view")
        }
    }

    @Test("methods that may cost O(n) never run on an I/O thread")
    func heavyMethodsOffload() {
        for name in ["view.create", "view.setData", "view.update", "view.setStrategy", "view.configure", "view.resize", "view.stage.commit", "daemon.reload"] {
            #expect(Methods.named[name]?.execution == .offload, "\(name) runs inline")
        }
        #expect(Methods.named["view.scroll"]?.execution == .inline)
    }
}
