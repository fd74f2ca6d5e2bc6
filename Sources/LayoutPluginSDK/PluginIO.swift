import CLayoutPlugin

/// The input of one layout: read-only views of the arrays layoutd passes, valid during the
/// call. Items are numbered across sections, in order.
public struct PluginInput {
    @usableFromInline let raw: UnsafePointer<layoutd_input>

    @inlinable init(_ raw: UnsafePointer<layoutd_input>) { self.raw = raw }

    public var viewport: Viewport {
        let viewport = raw.pointee.viewport
        let insets = viewport.content_insets
        return Viewport(
            size: Size(width: viewport.size.width, height: viewport.size.height),
            offset: Point(x: viewport.offset_x, y: viewport.offset_y),
            contentInsets: EdgeInsets(top: insets.top, left: insets.left, bottom: insets.bottom, right: insets.right))
    }

    @inlinable public var sectionCount: Int { raw.pointee.section_count }

    @inlinable public var itemCount: Int { raw.pointee.item_count }

    @inlinable public func section(_ index: Int) -> PluginSection {
        precondition(index >= 0 && index < sectionCount, "section \(index) out of range")
        let section = raw.pointee.sections[index]
        return PluginSection(
            items: section.first_item..<(section.first_item + section.item_count),
            headerSize: section.has_header != 0 ? Size(width: section.header_size.width, height: section.header_size.height) : nil,
            footerSize: section.has_footer != 0 ? Size(width: section.footer_size.width, height: section.footer_size.height) : nil)
    }

    /// The item's size: its own, the open size of a selected expanding item, or the default.
    @inlinable public func size(ofItem index: Int) -> Size {
        precondition(index >= 0 && index < itemCount, "item \(index) out of range")
        let size = raw.pointee.item_sizes[index]
        return Size(width: size.width, height: size.height)
    }

    @inlinable public func isSelected(_ index: Int) -> Bool {
        precondition(index >= 0 && index < itemCount, "item \(index) out of range")
        return raw.pointee.item_selected[index] != 0
    }
}

/// One section of the input.
public struct PluginSection: Hashable, Sendable {
    /// The section's items, as flat indices.
    public var items: Range<Int>
    /// The header's size, or `nil` when the section has none.
    public var headerSize: Size?
    public var footerSize: Size?

    @inlinable public init(items: Range<Int>, headerSize: Size?, footerSize: Size?) {
        self.items = items
        self.headerSize = headerSize
        self.footerSize = footerSize
    }
}

/// One element's attributes as a plugin writes them.
public struct PluginAttributes: Hashable, Sendable {
    public var frame: Rect
    public var alpha: Double
    public var zIndex: Int32
    public var isHidden: Bool
    public var transform: Transform2D

    public init(frame: Rect, alpha: Double = 1, zIndex: Int32 = 0, isHidden: Bool = false, transform: Transform2D = .identity) {
        self.frame = frame
        self.alpha = alpha
        self.zIndex = zIndex
        self.isHidden = isHidden
        self.transform = transform
    }
}

/// Where a layout goes: the arrays layoutd owns, one entry per item, header and footer slot.
public struct PluginOutput {
    @usableFromInline let raw: UnsafeMutablePointer<layoutd_output>
    @usableFromInline let itemCount: Int
    @usableFromInline let sectionCount: Int
    @usableFromInline let effectCount: Int

    @inlinable init(_ raw: UnsafeMutablePointer<layoutd_output>, input: PluginInput, effectCount: Int) {
        self.raw = raw
        itemCount = input.itemCount
        sectionCount = input.sectionCount
        self.effectCount = effectCount
    }

    public var contentSize: Size {
        get { Size(width: raw.pointee.content_size.width, height: raw.pointee.content_size.height) }
        nonmutating set { raw.pointee.content_size = layoutd_size(width: newValue.width, height: newValue.height) }
    }

    /// Sets only the frame: the fast path of a full layout.
    @inlinable public func setFrame(_ frame: Rect, ofItem index: Int) {
        precondition(index >= 0 && index < itemCount, "item \(index) out of range")
        raw.pointee.items[index].frame = layoutd_rect(x: frame.minX, y: frame.minY, width: frame.width, height: frame.height)
    }

    @inlinable public func frame(ofItem index: Int) -> Rect {
        precondition(index >= 0 && index < itemCount, "item \(index) out of range")
        let frame = raw.pointee.items[index].frame
        return Rect(x: frame.x, y: frame.y, width: frame.width, height: frame.height)
    }

    public subscript(item index: Int) -> PluginAttributes {
        get { Self.read(slot(raw.pointee.items, index, of: itemCount, "item").pointee) }
        nonmutating set { slot(raw.pointee.items, index, of: itemCount, "item").pointee = Self.write(newValue) }
    }

    /// The header slot of a section (ignored by layoutd when the section has no header).
    public subscript(header section: Int) -> PluginAttributes {
        get { Self.read(slot(raw.pointee.headers, section, of: sectionCount, "section").pointee) }
        nonmutating set { slot(raw.pointee.headers, section, of: sectionCount, "section").pointee = Self.write(newValue) }
    }

    public subscript(footer section: Int) -> PluginAttributes {
        get { Self.read(slot(raw.pointee.footers, section, of: sectionCount, "section").pointee) }
        nonmutating set { slot(raw.pointee.footers, section, of: sectionCount, "section").pointee = Self.write(newValue) }
    }

    /// Entry `index` of one of the output's arrays, checked against its length.
    private func slot(
        _ array: UnsafeMutablePointer<layoutd_attributes>, _ index: Int, of count: Int, _ what: String
    ) -> UnsafeMutablePointer<layoutd_attributes> {
        precondition(index >= 0 && index < count, "\(what) \(index) out of range")
        return array + index
    }

    /// Sets effect number `effect` (an index into the type's `effectNames`) of an item;
    /// `nil` removes it.
    public func setEffect(_ effect: Int, to value: Double?, ofItem index: Int) {
        setEffect(effect, to: value, in: raw.pointee.item_effects, index, of: itemCount, "item")
    }

    /// Sets an effect of a section's header.
    public func setEffect(_ effect: Int, to value: Double?, ofHeader section: Int) {
        setEffect(effect, to: value, in: raw.pointee.header_effects, section, of: sectionCount, "section")
    }

    /// Sets an effect of a section's footer.
    public func setEffect(_ effect: Int, to value: Double?, ofFooter section: Int) {
        setEffect(effect, to: value, in: raw.pointee.footer_effects, section, of: sectionCount, "section")
    }

    private func setEffect(_ effect: Int, to value: Double?, in values: UnsafeMutablePointer<Double>, _ index: Int, of count: Int, _ what: String) {
        precondition(effect >= 0 && effect < effectCount, "effect \(effect) is not declared in effectNames")
        precondition(index >= 0 && index < count, "\(what) \(index) out of range")
        values[index * effectCount + effect] = value ?? .nan
    }

    static func read(_ attributes: layoutd_attributes) -> PluginAttributes {
        let frame = attributes.frame
        let matrix = attributes.transform
        return PluginAttributes(
            frame: Rect(x: frame.x, y: frame.y, width: frame.width, height: frame.height), alpha: attributes.alpha,
            zIndex: attributes.z_index, isHidden: attributes.hidden != 0,
            transform: Transform2D(a: matrix.0, b: matrix.1, c: matrix.2, d: matrix.3, tx: matrix.4, ty: matrix.5))
    }

    static func write(_ attributes: PluginAttributes) -> layoutd_attributes {
        let frame = attributes.frame
        let matrix = attributes.transform
        return layoutd_attributes(
            frame: layoutd_rect(x: frame.minX, y: frame.minY, width: frame.width, height: frame.height), alpha: attributes.alpha,
            z_index: attributes.zIndex, hidden: attributes.isHidden ? 1 : 0,
            transform: (matrix.a, matrix.b, matrix.c, matrix.d, matrix.tx, matrix.ty))
    }
}
