import LayoutPluginSDK
import Waterfall

/// The waterfall as layoutd ships it: a plugin running the same `WaterfallColumns` as the
/// built-in `WaterfallLayout`, over the plain input layoutd hands a plugin (sizes already
/// resolved to own, open or default), so both forms give the same frames.
final class WaterfallPluginLayout: PluginLayout {
    static var descriptor: StrategyDescriptor { WaterfallParameters.descriptor }

    private let configuration: WaterfallParameters
    /// W of the last full layout: the only thing in the viewport the frames depend on.
    private var laidOutWidth: Double?

    // MARK: Lifecycle

    /// Every combination of valid values lays out, so nothing is refused.
    init(parameters: ResolvedParameters) throws(PluginError) {
        configuration = WaterfallParameters(parameters)
    }

    // MARK: PluginLayout

    var defaultItemSize: Size { configuration.itemSize }

    /// - Complexity: O(n · columnCount) for n items.
    func layout(_ input: PluginInput, into output: inout PluginOutput) {
        let width = WaterfallColumns.availableWidth(in: input.viewport)
        var columns = WaterfallColumns(parameters: configuration, width: width)
        for sectionIndex in 0..<input.sectionCount {
            let section = input.section(sectionIndex)
            if let header = columns.beginSection(headerSize: section.headerSize) {
                output[header: sectionIndex] = PluginAttributes(frame: header)
            }
            for item in section.items {
                output.setFrame(columns.place(input.size(ofItem: item)), ofItem: item)
            }
            if let footer = columns.endSection(footerSize: section.footerSize) {
                output[footer: sectionIndex] = PluginAttributes(frame: footer)
            }
        }
        output.contentSize = columns.contentSize
        laidOutWidth = width
    }

    /// Scrolling, a height change or top and bottom insets leave every frame where it is.
    func viewportChanged(_ input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        WaterfallColumns.availableWidth(in: input.viewport) == laidOutWidth ? .unchanged : .fullLayout
    }
}
