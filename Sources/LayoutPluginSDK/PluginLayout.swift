@_exported import LayoutEngine
@_exported import LayoutGeometry

/// A layout strategy written for a plugin: an ordinary Swift type that lays out the plain input
/// layoutd hands a plugin (sizes in section order, the selection, the viewport) and writes
/// frames. Export it from a shared library with `LayoutPlugin.export(_:)`; layoutd does the
/// rest (ids, windows, diffs, events).
///
/// An instance belongs to one view and is called from one thread at a time. Keep it pure: the
/// same input must give the same output (layoutd checks this when it loads the plugin).
public protocol PluginLayout: AnyObject {
    /// Name, summary and parameters, as `strategy.list` publishes them. layoutd validates a
    /// client's parameters against it before `init` sees them.
    static var descriptor: StrategyDescriptor { get }

    /// Names of the per-element effects `layout` may set (`PluginOutput.setEffect`).
    static var effectNames: [String] { get }

    /// Builds an instance from every declared parameter (defaults filled in).
    ///
    /// - Throws: `PluginError` when values that are valid alone do not go together.
    init(parameters: ResolvedParameters) throws(PluginError)

    /// The size of items without their own.
    var defaultItemSize: Size { get }

    /// The direction the content scrolls in; vertical unless implemented.
    var scrollAxis: Axis { get }

    /// Whether frames depend on the content offset: layoutd then calls `viewportChanged` (or
    /// `layout`) on every scroll. False unless implemented.
    var isOffsetDependent: Bool { get }

    /// A full layout. `output` starts out with every element at the defaults (zero frame,
    /// alpha 1, z-index 0, shown, identity transform, no effects).
    func layout(_ input: PluginInput, into output: inout PluginOutput)

    /// The viewport changed (its size or insets; or its offset when offset dependent);
    /// `output` holds the last layout. `.fullLayout` unless implemented.
    func viewportChanged(_ input: PluginInput, output: inout PluginOutput) -> PluginUpdate

    /// The sizes or selection of `items` (flat indices, sorted) changed; `output` holds the
    /// last layout. `.fullLayout` unless implemented.
    func itemsChanged(_ items: UnsafeBufferPointer<Int>, input: PluginInput, output: inout PluginOutput) -> PluginUpdate

    /// Where scrolling comes to rest when the user lifts a finger at `proposed` with `velocity`
    /// (points per second): paging and snapping. `proposed` unless implemented.
    func targetContentOffset(proposed: Point, velocity: Point, input: PluginInput, output: PluginOutput) -> Point

    /// A check run once when layoutd loads the plugin; return why it cannot work here, or
    /// `nil`. Nothing to check unless implemented.
    static func selfCheck() -> String?
}

extension PluginLayout {
    public static var effectNames: [String] { [] }
    public var scrollAxis: Axis { .vertical }
    public var isOffsetDependent: Bool { false }

    public func viewportChanged(_ input: PluginInput, output: inout PluginOutput) -> PluginUpdate { .fullLayout }

    public func itemsChanged(_ items: UnsafeBufferPointer<Int>, input: PluginInput, output: inout PluginOutput) -> PluginUpdate {
        .fullLayout
    }

    public func targetContentOffset(proposed: Point, velocity: Point, input: PluginInput, output: PluginOutput) -> Point {
        proposed
    }

    public static func selfCheck() -> String? { nil }
}

/// What an incremental hook did.
public enum PluginUpdate: Int32, Sendable {
    /// Nothing in the output changed.
    case unchanged = 0
    /// The output was updated in place.
    case updated = 1
    /// Lay out from scratch instead (`layout` is called next).
    case fullLayout = 2
}

/// Why parameters were refused: a sentence, optionally naming one parameter.
public struct PluginError: Error, Sendable {
    public var parameter: String?
    public var reason: String

    public init(parameter: String? = nil, _ reason: String) {
        self.parameter = parameter
        self.reason = reason
    }

    /// `name: reason`, the form layoutd reads back into an `InvalidParameter` error.
    var message: String { parameter.map { "\($0): \(reason)" } ?? reason }
}
