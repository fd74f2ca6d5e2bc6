import Glibc
import LayoutPluginSDK

/// docs/plugins.md's example: every item on one circle around the middle of the viewport, in
/// order, clockwise from the top (Apple's classic CircleLayout sample). Selected items sit on
/// top, scaled up; each item carries its angle as an effect. Headers and footers are hidden.
/// Plugins/CircleExample/c/circle.c is the same strategy in C: both must give the same frames.
final class CircleLayout: PluginLayout {
    static let descriptor = StrategyDescriptor(
        name: "circle", summary: "Items on a circle, clockwise from the top; selected items scale up",
        parameters: [
            ParameterDescription("itemSize", .size, default: .size(Size(width: 60, height: 60)), "size of items without their own"),
            ParameterDescription("radius", .number(minimum: 0, maximum: nil), default: .number(0), "0: fit the viewport"),
            ParameterDescription("selectedScale", .number(minimum: 1, maximum: 4), default: .number(1.5), "scale of selected items"),
        ])

    static let effectNames = ["angle"]

    let defaultItemSize: Size
    let radius: Double
    let selectedScale: Double

    init(parameters: ResolvedParameters) throws(PluginError) {
        defaultItemSize = parameters.size("itemSize")
        radius = parameters.number("radius")
        selectedScale = parameters.number("selectedScale")
    }

    func layout(_ input: PluginInput, into output: inout PluginOutput) {
        let area = Self.area(input.viewport)
        output.contentSize = Size(width: area.width, height: area.height)
        for index in 0..<input.itemCount { place(index, input, output) }
        for section in 0..<input.sectionCount {
            output[header: section] = PluginAttributes(frame: .zero, isHidden: true)
            output[footer: section] = PluginAttributes(frame: .zero, isHidden: true)
        }
    }

    func viewportChanged(_ input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        let area = Self.area(input.viewport)
        guard Size(width: area.width, height: area.height) != output.contentSize else { return .unchanged }
        layout(input, into: &output)
        return .updated
    }

    /// A size or a selection changed: only those items move, since positions depend on the
    /// count alone.
    func itemsChanged(_ items: UnsafeBufferPointer<Int>, input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        for index in items { place(index, input, output) }
        return .updated
    }

    private func place(_ index: Int, _ input: PluginInput, _ output: PluginOutput) {
        let area = Self.area(input.viewport)
        let ring = radius > 0 ? radius : max(0, (min(area.width, area.height) - defaultItemSize.height) / 2)
        let angle = 2 * Double.pi * Double(index) / Double(input.itemCount) - Double.pi / 2
        let centerX = area.width / 2 + ring * cos(angle)
        let centerY = area.height / 2 + ring * sin(angle)
        let size = input.size(ofItem: index)
        let selected = input.isSelected(index)
        output[item: index] = PluginAttributes(
            frame: Rect(x: centerX - size.width / 2, y: centerY - size.height / 2, width: size.width, height: size.height),
            zIndex: selected ? 1 : 0,
            transform: selected ? .scale(x: selectedScale, y: selectedScale) : .identity)
        output.setEffect(0, to: 360 * Double(index) / Double(input.itemCount), ofItem: index)
    }

    /// The viewport without its content insets.
    private static func area(_ viewport: Viewport) -> (width: Double, height: Double) {
        let insets = viewport.contentInsets
        return (max(0, viewport.size.width - insets.left - insets.right), max(0, viewport.size.height - insets.top - insets.bottom))
    }
}

@c(layoutd_plugin_entry)
public func layoutdPluginEntry() -> UnsafeRawPointer {
    LayoutPlugin.export(CircleLayout.self)
}
