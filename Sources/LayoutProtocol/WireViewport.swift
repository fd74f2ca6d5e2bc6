import LayoutGeometry

/// A viewport as `view.create`'s params carry it: `{"width", "height", "offset"?,
/// "contentInsets"?}` (a snapshot writes every field, `WireMapping.encodedSnapshot`).
public struct WireViewport: Hashable, Sendable {
    public var size: Size
    public var offset: Point
    public var contentInsets: EdgeInsets

    public init(size: Size, offset: Point = .zero, contentInsets: EdgeInsets = .zero) {
        self.size = size
        self.offset = offset
        self.contentInsets = contentInsets
    }

    /// Reads `{"width", "height", "offset"?, "contentInsets"?}`; unknown fields are refused.
    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireViewport {
        let viewport = WireViewport(
            size: Size(width: try reader.number("width"), height: try reader.number("height")),
            offset: try reader.optionalPoint("offset") ?? .zero,
            contentInsets: try reader.optionalInsets("contentInsets") ?? .zero)
        try reader.finish()
        return viewport
    }
}
