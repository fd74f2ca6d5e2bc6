import LayoutGeometry

/// The largest magnitude the engine accepts for a length or coordinate a client sends, so that
/// no layout of accepted input can overflow to infinity (and no reply carries `null` where a
/// number belongs).
///
/// The bound covers every number, size and insets parameter of every strategy; item, header,
/// footer, estimated, measured and open sizes; the viewport's size, offset and content insets;
/// the window margin; and `scrollEnd`'s proposed offset and velocity. Values the engine
/// computes itself (content sizes, frames, offsets it keeps an anchor with, snapping targets)
/// are not bounded by it: they are sums of bounded lengths, so they are finite.
///
/// Why 1e15: below 2^50 (≈ 1.1e15) a double still resolves an eighth of a point, so frames at
/// the bound are still meaningful; and layout arithmetic only adds bounded lengths, multiplies
/// them by counts and divides them by each other. A view at its item limit (2,000,000 by
/// default) with every length at the bound, every item in its own line and section, sums to
/// about 1e22: nearly 290 orders of magnitude below the largest double (≈ 1.8e308). It is also
/// where integer parameters and the wire's whole-number formatting already stop (`1e15`).
public enum LayoutBounds {
    public static let maximumCoordinate: Double = 1e15

    /// Finite and at most `maximumCoordinate` in magnitude (NaN fails the comparison).
    public static func contains(_ value: Double) -> Bool { abs(value) <= maximumCoordinate }

    /// The bound as reasons and messages spell it (`"\(1e15)"` would be `1000000000000000.0`).
    static let maximumText = "1e15"

    /// `value` as a reason spells it: the bound as `maximumText`, anything else as Swift does.
    static func describe(_ value: Double) -> String {
        abs(value) == maximumCoordinate ? (value < 0 ? "-" : "") + maximumText : "\(value)"
    }
}

extension Size {
    /// Not negative and within the layout bound in both dimensions: a size a client may send.
    var isValidLayoutExtent: Bool { isValidExtent && LayoutBounds.contains(width) && LayoutBounds.contains(height) }
}

extension Point {
    var isWithinLayoutBounds: Bool { LayoutBounds.contains(x) && LayoutBounds.contains(y) }
}

extension EdgeInsets {
    var isWithinLayoutBounds: Bool {
        LayoutBounds.contains(top) && LayoutBounds.contains(left) && LayoutBounds.contains(bottom)
            && LayoutBounds.contains(right)
    }
}
