// A small demonstration of the engine until the daemon lands (issue 5): lays out the flow
// example from docs/flow-layout.md (F2: insets, header, footer) and prints every frame.
import Glibc
import LayoutEngine
import LayoutGeometry

func padded(_ text: String, _ width: Int) -> String {
    text + String(repeating: " ", count: max(0, width - text.count))
}

let registry = StrategyRegistry.builtIn
let items = (0..<5).map { ItemSpec(id: "photo-\($0)") }
let layout: Layout
do {
    let model = try CollectionModel(sections: [SectionSpec(id: "album", items: items)])
    let strategy = try registry.makeStrategy(
        named: "flow",
        parameters: [
            "itemSize": .size(Size(width: 100, height: 100)),
            "sectionInset": .insets(EdgeInsets(top: 20, left: 16, bottom: 20, right: 16)),
            "headerReferenceSize": .size(Size(width: 0, height: 44)),
            "footerReferenceSize": .size(Size(width: 0, height: 30)),
        ])
    layout = try Layout(strategy: strategy, model: model, viewport: Viewport(size: Size(width: 375, height: 667)))
} catch {
    print("layout-demo: \(error.name): \(error.message)")
    exit(1)
}

print("flow, viewport 375×667, itemSize 100×100, inset 20/16, header 44, footer 30")
print("content size \(layout.contentSize)")
for attributes in layout.elements(in: Rect(origin: .zero, size: layout.contentSize))
    .sorted(by: { ($0.frame.minY, $0.frame.minX) < ($1.frame.minY, $1.frame.minX) })
{
    print("  \(padded(attributes.kind.rawValue, 7)) \(padded(attributes.id, 8)) \(attributes.frame)")
}
print("strategies: \(registry.descriptors.map(\.name).joined(separator: ", "))")
print("(the layoutd daemon arrives with issue 5; `make test` runs the test suite)")
