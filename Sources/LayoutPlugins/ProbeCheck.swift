import LayoutEngine
import LayoutGeometry

/// layoutd's own check of a plugin strategy before it is registered: it must build with its
/// default parameters, lay out a probe model (sections with and without headers and footers,
/// an empty section, own and default sizes, a selected expanding item) into finite frames,
/// give the same frames for the same input, and its incremental hooks must agree with a full
/// layout. A plugin that fails here would fail a client later, in a view.
enum ProbeCheck {
    static func run(_ type: PluginStrategyType) -> String? {
        let parameters: ResolvedParameters
        do {
            parameters = try type.descriptor.resolve([:])
        } catch {
            return "its default parameters do not resolve: \(error.message)"
        }
        let model: CollectionModel
        do {
            model = try probeModel()
        } catch {
            preconditionFailure("the probe model is valid: \(error)")
        }
        let viewport = Viewport(size: Size(width: 320, height: 480))
        let wide = Viewport(size: Size(width: 500, height: 480))

        func laidOut(_ viewport: Viewport, _ model: CollectionModel) -> Result<(PluginStrategy, [LayoutAttributes]), ProbeFailure> {
            let strategy: PluginStrategy
            do {
                strategy = try type.make(parameters)
            } catch {
                return .failure(ProbeFailure("cannot be created with its default parameters: \(error.message)"))
            }
            guard strategy.defaultItemSize.isValidExtent else {
                return .failure(ProbeFailure("its default item size is not finite and non-negative"))
            }
            strategy.prepare(model: model, viewport: viewport)
            if let repair = strategy.lastRepair { return .failure(ProbeFailure("its layout of the probe produced \(repair)")) }
            return .success((strategy, everything(strategy, model)))
        }

        switch (laidOut(viewport, model), laidOut(viewport, model)) {
        case (.failure(let failure), _), (_, .failure(let failure)):
            return failure.message
        case (.success(let (strategy, first)), .success(let (_, second))):
            guard first == second else { return "laid out the same input differently twice (a layout must depend on its input only)" }
            guard first.contains(where: { $0.kind == .cell }) else { return "its layout of the probe has no cells" }

            // Incremental hooks against full layouts of the same state.
            _ = strategy.updateViewport(wide, model: model)
            guard case .success(let (_, fresh)) = laidOut(wide, model) else { return "cannot lay out at another width" }
            guard everything(strategy, model) == fresh else { return "viewport_changed disagrees with a full layout at the new width" }

            var selectedModel = model
            do {
                try selectedModel.select(["e1", "a2"], mode: .add)
            } catch {
                preconditionFailure("the probe ids exist")
            }
            strategy.selectionDidChange(["e1", "a2"], model: selectedModel)
            guard case .success(let (_, freshSelected)) = laidOut(wide, selectedModel) else { return "cannot lay out a selection" }
            guard everything(strategy, selectedModel) == freshSelected else {
                return "items_changed disagrees with a full layout after a selection"
            }
            return nil
        }
    }

    /// Every element of the layout, sorted by key.
    private static func everything(_ strategy: PluginStrategy, _ model: CollectionModel) -> [LayoutAttributes] {
        let all = Rect(x: -1e9, y: -1e9, width: 2e9 + strategy.contentSize.width, height: 2e9 + strategy.contentSize.height)
        return strategy.elements(in: all, model: model).sorted { $0.key < $1.key }
    }

    private static func probeModel() throws(LayoutError) -> CollectionModel {
        var model = try CollectionModel(sections: [
            SectionSpec(
                id: "s0",
                items: [
                    ItemSpec(id: "a0", size: Size(width: 100, height: 60)), ItemSpec(id: "a1", size: Size(width: 40, height: 90)),
                    ItemSpec(id: "a2"), ItemSpec(id: "a3", size: Size(width: 0, height: 20)),
                    ItemSpec(id: "a4", size: Size(width: 150, height: 150)),
                ],
                headerSize: Size(width: 320, height: 40), footerSize: Size(width: 320, height: 20)),
            SectionSpec(id: "empty", items: [], headerSize: Size(width: 320, height: 30)),
            SectionSpec(
                id: "s2",
                items: [
                    ItemSpec(id: "e0"), ItemSpec(id: "e1", selectedSize: Size(width: 200, height: 220)), ItemSpec(id: "e2"),
                    ItemSpec(id: "e3", size: Size(width: 70, height: 30)),
                ]),
        ])
        try model.select(["e0"], mode: .add)
        return model
    }
}

struct ProbeFailure: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
