import LayoutGeometry

/// A viewport as `view.create`'s params carry it: `{"width", "height", "offset"?,
/// "contentInsets"?, "safeAreaInsets"?, "layoutMargins"?, "readableWidth"?}` (a snapshot writes
/// the first four always and the margins when set, `WireMapping.encodedSnapshot`).
public struct WireViewport: Hashable, Sendable {
    public var size: Size
    public var offset: Point
    public var contentInsets: EdgeInsets
    public var margins: WireMargins

    public init(size: Size, offset: Point = .zero, contentInsets: EdgeInsets = .zero, margins: WireMargins = WireMargins()) {
        self.size = size
        self.offset = offset
        self.contentInsets = contentInsets
        self.margins = margins
    }

    /// Reads the viewport object; unknown fields are refused.
    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireViewport {
        var viewport = WireViewport(
            size: Size(width: try reader.number("width"), height: try reader.number("height")),
            offset: try reader.optionalPoint("offset") ?? .zero,
            contentInsets: try reader.optionalInsets("contentInsets") ?? .zero)
        viewport.margins = try WireMargins.read(&reader)
        try reader.finish()
        return viewport
    }
}

/// The viewport's margins a compositional section's insets may count from: `safeAreaInsets`,
/// `layoutMargins` ({top, left, bottom, right}) and `readableWidth` (a number), each optional.
/// In `view.create` an absent one is zero (no readable limit); in `view.resize` it stays.
public struct WireMargins: Hashable, Sendable {
    public var safeAreaInsets: EdgeInsets?
    public var layoutMargins: EdgeInsets?
    public var readableWidth: Double?

    public init(safeAreaInsets: EdgeInsets? = nil, layoutMargins: EdgeInsets? = nil, readableWidth: Double? = nil) {
        self.safeAreaInsets = safeAreaInsets
        self.layoutMargins = layoutMargins
        self.readableWidth = readableWidth
    }

    public static func read(_ reader: inout ParamsReader) throws(WireError) -> WireMargins {
        WireMargins(
            safeAreaInsets: try reader.optionalInsets("safeAreaInsets"), layoutMargins: try reader.optionalInsets("layoutMargins"),
            readableWidth: try reader.optionalNumber("readableWidth"))
    }
}
