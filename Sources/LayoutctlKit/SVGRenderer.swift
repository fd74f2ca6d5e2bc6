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
        /// Each row of the legend, under the caption.
        static let legendRow = 15.0
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
            let caption = "content \(num(picture.contentSize.width)) × \(num(picture.contentSize.height)) · offset \(num(picture.viewport.minX)), \(num(picture.viewport.minY))"
            // Estimate text widths (about 0.6 em a character) so a narrow region does not cut off
            // the title: the document size has to be known before any text is laid out.
            let textWidth = [(picture.title, 14.0), (caption, 11.0), (label, 13.0)].map { Double($0.0.count) * $0.1 * 0.6 }.max() ?? 0
            let legend = Legend(picture, width: max(region.width * scale, textWidth, Legend.minimumWidth))
            let drawingTop = top + Metrics.titleBand + Metrics.captionBand + Double(legend.rows) * Metrics.legendRow
            let drawing = Rect(x: Metrics.margin, y: drawingTop, width: max(0, region.width * scale), height: max(0, region.height * scale))
            // Mapping by hand rather than with an SVG transform keeps strokes and text at fixed
            // pixel sizes whatever the scale, and puts plain pixel coordinates in the output.
            func map(_ r: Rect) -> Rect {
                Rect(x: drawing.minX + (r.minX - region.minX) * scale, y: drawing.minY + (r.minY - region.minY) * scale,
                     width: r.width * scale, height: r.height * scale)
            }
            width = (Metrics.margin * 2 + max(drawing.width, textWidth, legend.width)).rounded(.up)
            height = (drawing.maxY + Metrics.margin).rounded(.up)

            lines.append(text("title", x: Metrics.margin, y: top + 20, size: 14, bold: true, escape(picture.title)))
            lines.append(text("content-size", x: Metrics.margin, y: top + Metrics.titleBand + 12, size: 11, bold: false, escape(caption)))
            lines += legend.lines(top: top + Metrics.titleBand + Metrics.captionBand)
            lines.append(##"<defs><clipPath id="\##(clipID)"><rect \##(geometry(drawing))/></clipPath></defs>"##)
            lines.append(##"<g class="drawing" clip-path="url(#\##(clipID))">"##)
            let content = map(Rect(origin: .zero, size: picture.contentSize))
            lines.append(##"<rect class="content" \##(geometry(content)) fill="#f4f4f4" stroke="#c8c8c8" stroke-width="1"/>"##)

            // Stable ascending z-order: ties keep input order, as the client stacks them.
            let visible = picture.elements.enumerated().filter { !$0.element.hidden }
                .sorted { ($0.element.zIndex, $0.offset) < ($1.element.zIndex, $1.offset) }.map(\.element)
            let stacks = SVGRenderer.stacks(visible)
            for (index, element) in visible.enumerated() {
                lines += SVGRenderer.element(element, frame: map(element.frame), scale: scale, stackCount: stacks[index] ?? 1)
            }

            if let finger = picture.finger {
                let spot = map(Rect(origin: finger, size: Size(width: 0, height: 0)))
                lines.append(##"<circle class="finger" cx="\##(num(spot.minX))" cy="\##(num(spot.minY))" r="5" fill="#2e9d3a" fill-opacity="0.6" stroke="#1d6a27" stroke-width="1"/>"##)
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

    /// One element: its frame, then (faded by its alpha) its effects and label, all under its
    /// transform.
    ///
    /// - The transform is a CGAffineTransform about the frame's center, as UIKit applies a
    ///   cell's: written as one SVG `matrix(a b c d e f)` in drawing pixels (the translation
    ///   scaled, the center folded into `e` and `f`).
    /// - Alpha: the frame's fill has `fill-opacity`, and the label and effects are in a
    ///   `body` group with `opacity`; the outline stays opaque so an invisible element (one
    ///   fading in) is still seen.
    /// - Effects: `coverAlpha` is a black shade of that opacity over the frame (the label turns
    ///   white on a dark one), `titleScale` scales the label's text; every effect is listed in
    ///   the element's tooltip (`<title>`) and `data-effects`, and the others in small text.
    private static func element(_ element: LayoutPicture.Element, frame: Rect, scale: Double, stackCount: Int) -> [String] {
        // Kinds become class names, so anything but a plain identifier would split or break the list.
        let kindClass = String(element.kind.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        var classes = "element \(kindClass)"
        if element.selected { classes += " selected" }
        if element.moving { classes += " moving" }
        if stackCount > 1 { classes += " stack-top" }
        let effects = element.effects.filter { $0.value.isFinite }.sorted { $0.key < $1.key }
        var attributes = ##"class="\##(classes)" data-id="\##(escape(element.id))" data-kind="\##(escape(element.kind))" data-z="\##(element.zIndex)""##
        if stackCount > 1 { attributes += ##" data-stack="\##(stackCount)""## }
        if !effects.isEmpty { attributes += ##" data-effects="\##(escape(effects.map { "\($0.key)=\(num($0.value))" }.joined(separator: " ")))""## }
        let t = element.transform
        if !t.isIdentity, [t.a, t.b, t.c, t.d, t.tx, t.ty].allSatisfy(\.isFinite) {
            let (cx, cy) = (frame.midX, frame.midY)
            let e = cx + t.tx * scale - (t.a * cx + t.c * cy), f = cy + t.ty * scale - (t.b * cx + t.d * cy)
            attributes += ##" transform="matrix(\##([t.a, t.b, t.c, t.d, e, f].map { num($0, digits: 4) }.joined(separator: " ")))""##
        }
        var lines = ["<g \(attributes)>"]
        var tooltip = element.id
        if !effects.isEmpty { tooltip += ": " + effects.map { "\($0.key) \(num($0.value))" }.joined(separator: ", ") }
        lines.append("<title>\(escape(tooltip))</title>")

        var fill = "#e0e0e0", stroke = "#707070", strokeWidth = 1.0, dash = ""
        switch element.kind {
        case "cell": (fill, stroke) = ("#cfe2ff", "#3b73b9")
        // Supplementary views look different at a glance: warm fill and a dashed edge.
        case "header", "footer": (fill, stroke, dash) = ("#ffd27a", "#a86a00", ##" stroke-dasharray="4 2""##)
        default: break
        }
        if element.selected { (stroke, strokeWidth) = ("#ff7a00", 3) }
        // The dragged item: a green dashed edge, whatever its kind or selection.
        if element.moving { (stroke, strokeWidth, dash) = ("#2e9d3a", 3, ##" stroke-dasharray="5 2""##) }

        // Shadows peek out down-right from under the top card, farthest first so nearer ones cover them.
        for k in stride(from: min(stackCount - 1, Metrics.maxShadows), through: 1, by: -1) {
            let offset = Double(k) * Metrics.shadowOffset
            lines.append(##"<rect class="stack-shadow" \##(geometry(frame.offsetBy(dx: offset, dy: offset))) fill="#a9c4e8" stroke="#3b73b9" stroke-width="0.5"/>"##)
        }
        let alpha = element.alpha.isFinite ? min(max(element.alpha, 0), 1) : 1
        lines.append(##"<rect class="frame" \##(geometry(frame)) fill="\##(fill)" fill-opacity="\##(num(alpha))" stroke="\##(stroke)" stroke-width="\##(num(strokeWidth))"\##(dash)/>"##)

        lines.append(alpha < 1 ? ##"<g class="body" opacity="\##(num(alpha))">"## : ##"<g class="body">"##)
        let cover = element.effects["coverAlpha"].flatMap { $0.isFinite ? min(max($0, 0), 1) : nil }
        if let cover {
            lines.append(##"<rect class="effect-cover" \##(geometry(frame)) fill="#000000" fill-opacity="\##(num(cover))"/>"##)
        }
        // The label always exists (tests and scripts look for it); in tiny frames it just gets tiny.
        let fitWidth = frame.width / (0.6 * Double(max(element.id.count, 1)))
        let titleScale = element.effects["titleScale"].flatMap { $0.isFinite && $0 > 0 ? min($0, 4) : nil } ?? 1
        let size = max(1, min(11 * titleScale, frame.height * 0.6, fitWidth))
        let ink = (cover ?? 0) >= 0.4 ? "#ffffff" : "#1a1a1a"
        lines.append(##"<text class="label" x="\##(num(frame.midX))" y="\##(num(frame.midY + size * 0.35))" font-size="\##(num(size))" text-anchor="middle" fill="\##(ink)">\##(escape(element.id))</text>"##)
        let others = effects.filter { $0.key != "coverAlpha" && $0.key != "titleScale" }
        if !others.isEmpty, frame.height >= 24 {
            let small = max(1, min(8, frame.height * 0.2))
            let listed = others.map { "\($0.key) \(num($0.value))" }.joined(separator: " · ")
            lines.append(##"<text class="effects" x="\##(num(frame.minX + 2))" y="\##(num(frame.maxY - 3))" font-size="\##(num(small))" fill="\##(ink)">\##(escape(listed))</text>"##)
        }
        lines.append("</g>")
        if stackCount > 1 {
            let badge = max(1, min(10, frame.height * 0.45))
            lines.append(##"<text class="stack-count" x="\##(num(frame.maxX - 2))" y="\##(num(frame.minY + badge + 1))" font-size="\##(num(badge))" font-weight="bold" text-anchor="end" fill="#b00000">×\##(stackCount)</text>"##)
        }
        lines.append("</g>")
        return lines
    }

    // MARK: - Legend

    /// What the colours and outlines mean, in rows under the caption: the kinds always, and
    /// what only some pictures have (selection, stacks, shades, transforms, effects) when
    /// this one has it.
    private struct Legend {
        static let minimumWidth = 300.0
        /// (class suffix, swatch fill, swatch stroke, dash, text)
        var entries: [(key: String, fill: String, stroke: String, dash: String, text: String)] = []
        /// Entry indices per row.
        var layout: [[Int]] = []
        var width = 0.0
        var rows: Int { layout.count }

        init(_ picture: LayoutPicture, width available: Double) {
            let shown = picture.elements.filter { !$0.hidden }
            entries.append(("cell", "#cfe2ff", "#3b73b9", "", "cell"))
            entries.append(("supplementary", "#ffd27a", "#a86a00", "4 2", "header/footer"))
            if shown.contains(where: \.selected) { entries.append(("selected", "#cfe2ff", "#ff7a00", "", "selected")) }
            if shown.contains(where: \.moving) { entries.append(("moving", "#cfe2ff", "#2e9d3a", "5 2", "moving (under the finger, the dot)")) }
            entries.append(("viewport", "none", "#e02020", "6 3", "viewport"))
            if SVGRenderer.stacks(shown).count > 0 { entries.append(("stack", "#a9c4e8", "#3b73b9", "", "×N stack")) }
            if shown.contains(where: { $0.alpha < 1 }) { entries.append(("alpha", "#cfe2ff", "#3b73b9", "", "faded: alpha < 1")) }
            if shown.contains(where: { $0.effects["coverAlpha"] != nil }) { entries.append(("cover", "#333333", "#3b73b9", "", "dark shade: coverAlpha")) }
            if shown.contains(where: { $0.effects["titleScale"] != nil }) { entries.append(("title-scale", "none", "none", "", "label size: titleScale")) }
            if shown.contains(where: { !$0.transform.isIdentity }) { entries.append(("transform", "none", "#3b73b9", "", "drawn with its transform")) }
            if shown.contains(where: { !$0.effects.isEmpty }) { entries.append(("effects", "none", "none", "", "effects: hover a cell")) }
            var row = [Int](), used = 0.0
            for (index, entry) in entries.enumerated() {
                let entryWidth = Self.width(of: entry.text)
                if !row.isEmpty, used + entryWidth > available {
                    layout.append(row)
                    row = []
                    used = 0
                }
                row.append(index)
                used += entryWidth
                width = max(width, used)
            }
            if !row.isEmpty { layout.append(row) }
        }

        /// A swatch, a gap, the text (about 0.6 em a character at 10 px) and a gap.
        static func width(of text: String) -> Double { 10 + 4 + Double(text.count) * 6 + 12 }

        func lines(top: Double) -> [String] {
            var lines = [##"<g class="legend">"##]
            for (rowIndex, row) in layout.enumerated() {
                var x = Metrics.margin
                let y = top + Double(rowIndex) * Metrics.legendRow
                for index in row {
                    let entry = entries[index]
                    let dash = entry.dash.isEmpty ? "" : ##" stroke-dasharray="\##(entry.dash)""##
                    lines.append(##"<g class="legend-entry" data-key="\##(entry.key)">"##)
                    if entry.key == "title-scale" {
                        lines.append(##"<text x="\##(num(x))" y="\##(num(y + 9))" font-size="11" fill="#1a1a1a">A</text><text x="\##(num(x + 7))" y="\##(num(y + 9))" font-size="6" fill="#1a1a1a">a</text>"##)
                    } else if entry.key == "effects" {
                        lines.append(##"<text x="\##(num(x + 1))" y="\##(num(y + 9))" font-size="10" fill="#1a1a1a">ⓘ</text>"##)
                    } else {
                        let opacity = entry.key == "alpha" ? ##" fill-opacity="0.35""## : ""
                        let rotated = entry.key == "transform" ? ##" transform="rotate(20 \##(num(x + 5)) \##(num(y + 6)))""## : ""
                        lines.append(##"<rect x="\##(num(x))" y="\##(num(y + 1))" width="10" height="10" fill="\##(entry.fill)"\##(opacity) stroke="\##(entry.stroke)" stroke-width="1.5"\##(dash)\##(rotated)/>"##)
                    }
                    lines.append(##"<text class="legend-text" x="\##(num(x + 14))" y="\##(num(y + 10))" font-size="10" fill="#1a1a1a">\##(escape(entry.text))</text>"##)
                    lines.append("</g>")
                    x += Self.width(of: entry.text)
                }
            }
            lines.append("</g>")
            return lines
        }
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
    static func num(_ value: Double) -> String { num(value, digits: 2) }

    /// At most `digits` decimals (a transform's matrix takes 4, or a small rotation would lose
    /// its sines), trailing zeros dropped.
    static func num(_ value: Double, digits: Int) -> String {
        guard value.isFinite else { return "0" }
        var unit: Int64 = 1
        for _ in 0..<digits { unit *= 10 }
        let scaled = (value * Double(unit)).rounded()
        guard abs(scaled) < 1e17 else { return String(Int64(value.rounded())) }
        let magnitude = Int64(abs(scaled))
        if magnitude == 0 { return "0" }  // also turns -0 and -0.001 into "0"
        let sign = scaled < 0 ? "-" : ""
        let (whole, fraction) = magnitude.quotientAndRemainder(dividingBy: unit)
        if fraction == 0 { return "\(sign)\(whole)" }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: digits - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(sign)\(whole).\(decimals)"
    }
}
