import LayoutGeometry

/// Draws a `LayoutPicture` as a standalone SVG 1.1 document, for people who would rather look at
/// a layout than read its frames.
///
/// The class and `data-*` attributes are part of the output's contract: tests and scripts find
/// elements by them, so they stay stable even where the styling changes. Styling is written as
/// presentation attributes rather than CSS because some viewers (image previews, converters)
/// ignore `<style>`. The output depends only on the input, so equal pictures give equal bytes and
/// pictures can be diffed or cached.
public enum SVGRenderer {
    public static func render(_ picture: LayoutPicture, scale: Double = 1) -> String {
        let panel = Panel(picture, scale: scale, top: 0, clipID: "region")
        return document(width: panel.width, height: panel.height, body: panel.lines)
    }

    /// Two pictures at the same scale, left and right, e.g. the two ends of a transition.
    public static func renderSideBySide(
        _ from: LayoutPicture, _ to: LayoutPicture,
        fromLabel: String = "from", toLabel: String = "to", scale: Double = 1
    ) -> String {
        let panels = [
            ("from", fromLabel, Panel(from, scale: scale, top: Metrics.labelBand, clipID: "region-from", label: fromLabel)),
            ("to", toLabel, Panel(to, scale: scale, top: Metrics.labelBand, clipID: "region-to", label: toLabel)),
        ]
        var body: [String] = []
        var x = 0.0
        for (side, label, panel) in panels {
            // A translated group lets each panel be drawn in its own local coordinates, so the
            // panel code is the same as for a single picture (clip paths follow the transform).
            body.append(##"<g class="panel" data-side="\##(side)" data-label="\##(escape(label))" transform="translate(\##(num(x)),0)">"##)
            body.append(text("panel-label", x: Metrics.margin, y: 16, size: 13, bold: true, escape(label)))
            body += panel.lines
            body.append("</g>")
            x += panel.width
        }
        let height = panels.map { $0.2.height }.max() ?? 0
        let divider = panels[0].2.width
        body.append(##"<line class="divider" x1="\##(num(divider))" y1="0" x2="\##(num(divider))" y2="\##(num(height))" stroke="#cccccc" stroke-width="1"/>"##)
        return document(width: x, height: height, body: body)
    }

    // MARK: - One picture

    private enum Metrics {
        static let margin = 8.0
        /// The title's band above the drawing, then the caption's.
        static let titleBand = 28.0
        static let captionBand = 18.0
        /// Side by side: the panel label above each picture's title.
        static let labelBand = 22.0
        /// Two origins closer than this (in points) are the same stack.
        static let stackTolerance = 0.5
        static let maxShadows = 3
        /// How far each stack shadow is pushed right and down, in pixels.
        static let shadowOffset = 3.0
    }

    /// The SVG lines of one picture in local coordinates, with the size they take.
    private struct Panel {
        var lines: [String] = []
        var width = 0.0
        var height = 0.0

        init(_ picture: LayoutPicture, scale requested: Double, top: Double, clipID: String, label: String = "") {
            // A zero, negative or infinite scale would give an empty or invalid document.
            let scale = requested.isFinite && requested > 0 ? requested : 1
            let region = picture.region
            let drawingTop = top + Metrics.titleBand + Metrics.captionBand
            let drawing = Rect(x: Metrics.margin, y: drawingTop, width: max(0, region.width * scale), height: max(0, region.height * scale))
            // Mapping by hand rather than with an SVG transform keeps strokes and text at fixed
            // pixel sizes whatever the scale, and puts plain pixel coordinates in the output.
            func map(_ r: Rect) -> Rect {
                Rect(x: drawing.minX + (r.minX - region.minX) * scale, y: drawing.minY + (r.minY - region.minY) * scale,
                     width: r.width * scale, height: r.height * scale)
            }
            let caption = "content \(num(picture.contentSize.width)) × \(num(picture.contentSize.height))"
            // Estimate text widths (about 0.6 em a character) so a narrow region does not cut off
            // the title: the document size has to be known before any text is laid out.
            let textWidth = [(picture.title, 14.0), (caption, 11.0), (label, 13.0)].map { Double($0.0.count) * $0.1 * 0.6 }.max() ?? 0
            width = (Metrics.margin * 2 + max(drawing.width, textWidth)).rounded(.up)
            height = (drawing.maxY + Metrics.margin).rounded(.up)

            lines.append(text("title", x: Metrics.margin, y: top + 20, size: 14, bold: true, escape(picture.title)))
            lines.append(text("content-size", x: Metrics.margin, y: top + Metrics.titleBand + 12, size: 11, bold: false, escape(caption)))
            lines.append(##"<defs><clipPath id="\##(clipID)"><rect \##(geometry(drawing))/></clipPath></defs>"##)
            lines.append(##"<g class="drawing" clip-path="url(#\##(clipID))">"##)
            let content = map(Rect(origin: .zero, size: picture.contentSize))
            lines.append(##"<rect class="content" \##(geometry(content)) fill="#f4f4f4" stroke="#c8c8c8" stroke-width="1"/>"##)

            // Stable ascending z-order: ties keep input order, as the client stacks them.
            let visible = picture.elements.enumerated().filter { !$0.element.hidden }
                .sorted { ($0.element.zIndex, $0.offset) < ($1.element.zIndex, $1.offset) }.map(\.element)
            let stacks = SVGRenderer.stacks(visible)
            for (index, element) in visible.enumerated() {
                lines += SVGRenderer.element(element, frame: map(element.frame), stackCount: stacks[index] ?? 1)
            }

            // Last, so no element can hide where the user is looking.
            lines.append(##"<rect class="viewport" \##(geometry(map(picture.viewport))) fill="none" stroke="#e02020" stroke-width="2" stroke-dasharray="6 3"/>"##)
            lines.append("</g>")
            // Outside the clip: shows where the drawn region ends even when the content does not fill it.
            lines.append(##"<rect class="region" \##(geometry(drawing)) fill="none" stroke="#999999" stroke-width="0.5"/>"##)
        }
    }

    /// For each stack of cells, the index (in `ordered`) of its top card and the stack's size.
    ///
    /// Collapsed sections put several cells at one origin; drawn plainly they look like a single
    /// cell, so the top card is marked instead. `ordered` is in drawing order, so the last
    /// member of a stack is the one with the highest zIndex (the one actually seen).
    private static func stacks(_ ordered: [LayoutPicture.Element]) -> [Int: Int] {
        var groups: [(origin: Point, members: [Int])] = []
        for (index, element) in ordered.enumerated() where element.kind == "cell" {
            let origin = element.frame.origin
            if let g = groups.firstIndex(where: {
                abs($0.origin.x - origin.x) <= Metrics.stackTolerance && abs($0.origin.y - origin.y) <= Metrics.stackTolerance
            }) {
                groups[g].members.append(index)
            } else {
                groups.append((origin, [index]))
            }
        }
        var tops: [Int: Int] = [:]
        for group in groups where group.members.count > 1 {
            tops[group.members.last!] = group.members.count
        }
        return tops
    }

    private static func element(_ element: LayoutPicture.Element, frame: Rect, stackCount: Int) -> [String] {
        // Kinds become class names, so anything but a plain identifier would split or break the list.
        let kindClass = String(element.kind.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        var classes = "element \(kindClass)"
        if element.selected { classes += " selected" }
        if stackCount > 1 { classes += " stack-top" }
        var lines = [##"<g class="\##(classes)" data-id="\##(escape(element.id))" data-kind="\##(escape(element.kind))" data-z="\##(element.zIndex)"\##(stackCount > 1 ? ##" data-stack="\##(stackCount)""## : "")>"##]

        var fill = "#e0e0e0", stroke = "#707070", strokeWidth = 1.0, dash = ""
        switch element.kind {
        case "cell": (fill, stroke) = ("#cfe2ff", "#3b73b9")
        // Supplementary views look different at a glance: warm fill and a dashed edge.
        case "header", "footer": (fill, stroke, dash) = ("#ffd27a", "#a86a00", ##" stroke-dasharray="4 2""##)
        default: break
        }
        if element.selected { (stroke, strokeWidth) = ("#ff7a00", 3) }

        // Shadows peek out down-right from under the top card, farthest first so nearer ones cover them.
        for k in stride(from: min(stackCount - 1, Metrics.maxShadows), through: 1, by: -1) {
            let offset = Double(k) * Metrics.shadowOffset
            lines.append(##"<rect class="stack-shadow" \##(geometry(frame.offsetBy(dx: offset, dy: offset))) fill="#a9c4e8" stroke="#3b73b9" stroke-width="0.5"/>"##)
        }
        // Fill opacity follows alpha but the stroke does not, so a fully transparent element
        // (e.g. one fading in) is still outlined.
        let alpha = element.alpha.isFinite ? min(max(element.alpha, 0), 1) : 1
        lines.append(##"<rect class="frame" \##(geometry(frame)) fill="\##(fill)" fill-opacity="\##(num(alpha))" stroke="\##(stroke)" stroke-width="\##(num(strokeWidth))"\##(dash)/>"##)

        // The label always exists (tests and scripts look for it); in tiny frames it just gets tiny.
        let fitWidth = frame.width / (0.6 * Double(max(element.id.count, 1)))
        let size = max(1, min(11, frame.height * 0.6, fitWidth))
        lines.append(##"<text class="label" x="\##(num(frame.midX))" y="\##(num(frame.midY + size * 0.35))" font-size="\##(num(size))" text-anchor="middle" fill="#1a1a1a">\##(escape(element.id))</text>"##)
        if stackCount > 1 {
            let badge = max(1, min(10, frame.height * 0.45))
            lines.append(##"<text class="stack-count" x="\##(num(frame.maxX - 2))" y="\##(num(frame.minY + badge + 1))" font-size="\##(num(badge))" font-weight="bold" text-anchor="end" fill="#b00000">×\##(stackCount)</text>"##)
        }
        lines.append("</g>")
        return lines
    }

    // MARK: - Text

    private static func document(width: Double, height: Double, body: [String]) -> String {
        let (w, h) = (num(width), num(height))
        var lines = [
            ##"<?xml version="1.0" encoding="UTF-8"?>"##,
            ##"<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\##(w)" height="\##(h)" viewBox="0 0 \##(w) \##(h)" font-family="sans-serif">"##,
            ##"<rect class="background" x="0" y="0" width="\##(w)" height="\##(h)" fill="#ffffff"/>"##,
        ]
        lines += body
        lines.append("</svg>")
        return lines.joined(separator: "\n") + "\n"
    }

    private static func text(_ cls: String, x: Double, y: Double, size: Double, bold: Bool, _ escaped: String) -> String {
        ##"<text class="\##(cls)" x="\##(num(x))" y="\##(num(y))" font-size="\##(num(size))"\##(bold ? ##" font-weight="bold""## : "") fill="#1a1a1a">\##(escaped)</text>"##
    }

    private static func geometry(_ r: Rect) -> String {
        // SVG rejects negative sizes; a degenerate frame is drawn as a line or a point instead.
        ##"x="\##(num(r.minX))" y="\##(num(r.minY))" width="\##(num(max(0, r.width)))" height="\##(num(max(0, r.height)))""##
    }

    /// Safe in both text and attribute values (quotes included).
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Integers without ".0", otherwise at most two decimals: sub-pixel digits only add noise
    /// and `String(Double)` would print e.g. 0.30000000000000004 or exponents.
    static func num(_ value: Double) -> String {
        guard value.isFinite else { return "0" }
        let hundredths = (value * 100).rounded()
        guard abs(hundredths) < 1e17 else { return String(Int64(value.rounded())) }
        let magnitude = Int64(abs(hundredths))
        if magnitude == 0 { return "0" }  // also turns -0 and -0.001 into "0"
        let sign = hundredths < 0 ? "-" : ""
        let (whole, fraction) = magnitude.quotientAndRemainder(dividingBy: 100)
        if fraction == 0 { return "\(sign)\(whole)" }
        let digits = fraction < 10 ? "0\(fraction)" : (fraction % 10 == 0 ? "\(fraction / 10)" : "\(fraction)")
        return "\(sign)\(whole).\(digits)"
    }
}
