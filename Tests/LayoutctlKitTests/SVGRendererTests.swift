import Glibc
import LayoutctlKit
import LayoutGeometry
import Testing

// MARK: - A small XML reader, enough for the renderer's output

/// One parsed element. Parsing (rather than matching substrings) also proves the output is
/// well-formed: every tag closed, attributes quoted, entities valid.
private final class Node {
    let name: String
    let attributes: [String: String]
    var children: [Node] = []
    var text = ""

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    var classes: [Substring] { (attributes["class"] ?? "").split(separator: " ") }
    func hasClass(_ c: String) -> Bool { classes.contains(Substring(c)) }
    func number(_ attribute: String) -> Double? { attributes[attribute].flatMap(Double.init) }

    /// Every descendant (self included), in document order.
    var all: [Node] { [self] + children.flatMap(\.all) }
    func find(class c: String) -> [Node] { all.filter { $0.hasClass(c) } }
    func find(name: String) -> [Node] { all.filter { $0.name == name } }
}

private struct XMLError: Error, CustomStringConvertible { var description: String }

private func decode(_ s: Substring) throws -> String {
    var out = ""
    var rest = s[...]
    while let amp = rest.firstIndex(of: "&") {
        out += rest[..<amp]
        guard let semi = rest[amp...].firstIndex(of: ";") else { throw XMLError(description: "unterminated entity") }
        switch rest[rest.index(after: amp)..<semi] {
        case "amp": out += "&"
        case "lt": out += "<"
        case "gt": out += ">"
        case "quot": out += "\""
        case "apos": out += "'"
        case let other: throw XMLError(description: "unknown entity &\(other);")
        }
        rest = rest[rest.index(after: semi)...]
    }
    return out + rest
}

private func parseSVG(_ svg: String) throws -> Node {
    let document = Node(name: "#document", attributes: [:])
    var stack = [document]
    var rest = Substring(svg)
    while !rest.isEmpty {
        guard let open = rest.firstIndex(of: "<") else {
            stack.last!.text += try decode(rest)
            break
        }
        stack.last!.text += try decode(rest[..<open])
        guard let close = rest[open...].firstIndex(of: ">") else { throw XMLError(description: "unterminated tag") }
        let tag = rest[rest.index(after: open)..<close]
        rest = rest[rest.index(after: close)...]
        if tag.hasPrefix("?") || tag.hasPrefix("!") { continue }
        if tag.hasPrefix("/") {
            guard stack.count > 1, stack.last!.name == tag.dropFirst() else { throw XMLError(description: "mismatched </\(tag.dropFirst())>") }
            stack.removeLast()
            continue
        }
        let selfClosing = tag.hasSuffix("/")
        var body = selfClosing ? tag.dropLast() : tag
        let name = body.prefix { $0 != " " }
        body = body.dropFirst(name.count)
        var attributes: [String: String] = [:]
        while let eq = body.firstIndex(of: "=") {
            let key = body[..<eq].trimmingPrefix(" ")
            guard body[body.index(after: eq)] == "\"" else { throw XMLError(description: "unquoted attribute \(key)") }
            let valueStart = body.index(eq, offsetBy: 2)
            guard let end = body[valueStart...].firstIndex(of: "\"") else { throw XMLError(description: "unterminated attribute") }
            guard attributes.updateValue(try decode(body[valueStart..<end]), forKey: String(key)) == nil else {
                throw XMLError(description: "duplicate attribute \(key)")
            }
            body = body[body.index(after: end)...]
        }
        let node = Node(name: String(name), attributes: attributes)
        stack.last!.children.append(node)
        if !selfClosing { stack.append(node) }
    }
    guard stack.count == 1 else { throw XMLError(description: "unclosed <\(stack.last!.name)>") }
    return document
}

private func occurrences(of needle: String, in haystack: String) -> Int {
    haystack.split(separator: needle, omittingEmptySubsequences: false).count - 1
}

// MARK: - Pictures

private typealias Element = LayoutPicture.Element

private func picture(_ elements: [Element], title: String = "grid · flow · epoch 1",
                     region: Rect = Rect(x: 0, y: 0, width: 320, height: 480)) -> LayoutPicture {
    LayoutPicture(
        title: title, contentSize: Size(width: 320, height: 1200),
        viewport: Rect(x: 0, y: 100, width: 320, height: 300), region: region, elements: elements)
}

private let basicElements: [Element] = [
    Element(id: "header-0", kind: "header", frame: Rect(x: 0, y: 0, width: 320, height: 40), zIndex: 10),
    Element(id: "0-0", kind: "cell", frame: Rect(x: 10, y: 50, width: 90, height: 90)),
    Element(id: "0-1", kind: "cell", frame: Rect(x: 110, y: 50, width: 90, height: 90), selected: true),
    Element(id: "0-2", kind: "cell", frame: Rect(x: 210, y: 50, width: 90, height: 90), hidden: true),
    Element(id: "0-3", kind: "cell", frame: Rect(x: 10, y: 150, width: 90, height: 90), alpha: 0),
    Element(id: "footer-0", kind: "footer", frame: Rect(x: 0, y: 250, width: 320, height: 30)),
]

// MARK: - Tests

@Suite("SVG renderer")
struct SVGRendererTests {
    @Test("a standalone document with background, title, caption, content and one viewport")
    func documentStructure() throws {
        let svg = SVGRenderer.render(picture(basicElements))
        let root = try #require(try parseSVG(svg).find(name: "svg").first)
        #expect(root.attributes["xmlns"] == "http://www.w3.org/2000/svg")
        #expect(root.attributes["viewBox"] == "0 0 \(root.attributes["width"]!) \(root.attributes["height"]!)")
        #expect(root.children.first?.hasClass("background") == true)
        #expect(root.children.first?.attributes["fill"] == "#ffffff")
        #expect(root.find(class: "title").map(\.text) == ["grid · flow · epoch 1"])
        #expect(root.find(class: "content-size").map(\.text) == ["content 320 × 1200 · offset 0, 100"])
        // The legend under the caption, above the drawing: the kinds, selection and the viewport.
        let legend = root.find(class: "legend-entry").compactMap { $0.attributes["data-key"] }
        #expect(legend == ["cell", "supplementary", "selected", "viewport", "alpha"])
        #expect(root.find(class: "content").count == 1)
        #expect(root.find(class: "viewport").count == 1)
        #expect(occurrences(of: #"class="viewport""#, in: svg) == 1)
        // The title sits above the drawing, outside the clipped area.
        let clip = try #require(root.find(name: "clipPath").first?.children.first)
        let title = try #require(root.find(class: "title").first)
        #expect(try #require(title.number("y")) < clip.number("y")!)
        // The viewport is the last thing drawn, above every element.
        let drawing = try #require(root.find(class: "drawing").first)
        #expect(drawing.attributes["clip-path"] == "url(#\(root.find(name: "clipPath").first!.attributes["id"]!))")
        #expect(drawing.children.last?.hasClass("viewport") == true)
    }

    @Test("one group per visible element, hidden elements omitted")
    func oneGroupPerVisibleElement() throws {
        let svg = SVGRenderer.render(picture(basicElements))
        let groups = try parseSVG(svg).find(class: "element")
        #expect(Set(groups.compactMap { $0.attributes["data-id"] }) == ["header-0", "0-0", "0-1", "0-3", "footer-0"])
        #expect(groups.count == 5)
        #expect(occurrences(of: #"class="element cell"#, in: svg) == 3)
        #expect(!svg.contains(#"data-id="0-2""#))
        for group in groups {
            #expect(group.children.filter { $0.hasClass("frame") }.count == 1)
            // The label is in the element's body (what its alpha fades).
            #expect(group.find(class: "label").map(\.text) == [group.attributes["data-id"]!])
            #expect(group.attributes["data-kind"] == group.classes[1].description)
        }
    }

    @Test("kinds, selection and alpha are visible in the drawing")
    func kindsSelectionAlpha() throws {
        let root = try parseSVG(SVGRenderer.render(picture(basicElements)))
        func frame(_ id: String) throws -> Node {
            let group = try #require(root.find(class: "element").first { $0.attributes["data-id"] == id })
            return try #require(group.children.first { $0.hasClass("frame") })
        }
        let header = try #require(root.find(class: "header").first)
        #expect(header.attributes["data-id"] == "header-0" && header.hasClass("element"))
        #expect(root.find(class: "footer").map { $0.attributes["data-id"] } == ["footer-0"])
        #expect(try frame("header-0").attributes["fill"] != frame("0-0").attributes["fill"])
        #expect(try frame("header-0").attributes["stroke-dasharray"] != nil)

        #expect(root.find(class: "selected").map { $0.attributes["data-id"] } == ["0-1"])
        #expect(try frame("0-1").number("stroke-width")! > frame("0-0").number("stroke-width")!)
        #expect(try frame("0-1").attributes["stroke"] != frame("0-0").attributes["stroke"])

        // Alpha 0: no fill, but still outlined.
        #expect(try frame("0-3").attributes["fill-opacity"] == "0")
        #expect(try frame("0-3").number("stroke-width")! > 0)
        #expect(try frame("0-0").attributes["fill-opacity"] == "1")
    }

    @Test("a transform is drawn about the frame's center, scaled with the drawing; alpha fades the body")
    func transformAndOpacity() throws {
        // A quarter turn and a translation of (10, 0) points, at scale 2, region at the origin.
        let turned = Element(
            id: "t", kind: "cell", frame: Rect(x: 100, y: 100, width: 40, height: 20), alpha: 0.4,
            transform: Transform2D(a: 0, b: 1, c: -1, d: 0, tx: 10, ty: 0))
        let root = try parseSVG(SVGRenderer.render(picture([turned, basicElements[1]]), scale: 2))
        let group = try #require(root.find(class: "element").first { $0.attributes["data-id"] == "t" })
        let matrix = try #require(group.attributes["transform"])
        let values = matrix.dropFirst("matrix(".count).dropLast().split(separator: " ").compactMap { Double($0) }
        #expect(values.count == 6, "\(matrix)")
        // The frame's center in drawing pixels stays put, moved only by the scaled translation.
        let frame = try #require(group.children.first { $0.hasClass("frame") })
        let cx = frame.number("x")! + frame.number("width")! / 2, cy = frame.number("y")! + frame.number("height")! / 2
        let (x, y) = (values[0] * cx + values[2] * cy + values[4], values[1] * cx + values[3] * cy + values[5])
        #expect(abs(x - (cx + 20)) < 0.01 && abs(y - cy) < 0.01)
        // A corner turns about the center: (left, top) goes to (center.x + h/2, center.y - w/2).
        let (left, top) = (frame.number("x")!, frame.number("y")!)
        #expect(abs(values[0] * left + values[2] * top + values[4] - (cx + 20 + 20)) < 0.01)
        #expect(abs(values[1] * left + values[3] * top + values[5] - (cy - 40)) < 0.01)
        let body = try #require(group.children.first { $0.hasClass("body") })
        #expect(body.attributes["opacity"] == "0.4")
        #expect(frame.attributes["fill-opacity"] == "0.4")
        // An untransformed, opaque element has neither attribute.
        let plain = try #require(root.find(class: "element").first { $0.attributes["data-id"] == "0-0" })
        #expect(plain.attributes["transform"] == nil)
        #expect(plain.children.first { $0.hasClass("body") }?.attributes["opacity"] == nil)
        let legend = root.find(class: "legend-entry").compactMap { $0.attributes["data-key"] }
        #expect(legend.contains("transform") && legend.contains("alpha"))
    }

    @Test("effects: coverAlpha shades, titleScale sizes the label, every effect in the tooltip")
    func effects() throws {
        let cell = Element(
            id: "c", kind: "cell", frame: Rect(x: 0, y: 0, width: 300, height: 100),
            effects: ["coverAlpha": 0.75, "titleScale": 0.5, "detailAlpha": 0.25])
        let plain = Element(id: "p", kind: "cell", frame: Rect(x: 0, y: 100, width: 300, height: 100))
        let root = try parseSVG(SVGRenderer.render(picture([cell, plain])))
        let group = try #require(root.find(class: "element").first { $0.attributes["data-id"] == "c" })
        #expect(group.attributes["data-effects"] == "coverAlpha=0.75 detailAlpha=0.25 titleScale=0.5")
        #expect(root.find(class: "effect-cover").map { $0.attributes["fill-opacity"] } == ["0.75"])
        let labels = root.find(class: "label")
        #expect(labels.map { $0.attributes["font-size"] } == ["5.5", "11"])
        #expect(root.find(class: "effects").count == 1)
        let caption = try #require(root.find(class: "content-size").first)
        #expect(caption.text.contains("offset 0, 100"))
    }

    @Test("cells at one origin form a stack with shadows and a count on the top card")
    func stacks() throws {
        let origin = Rect(x: 20, y: 20, width: 100, height: 60)
        let elements = [
            Element(id: "s-0", kind: "cell", frame: origin, zIndex: 3),
            Element(id: "s-1", kind: "cell", frame: origin.offsetBy(dx: 0.3, dy: -0.2), zIndex: 5),
            Element(id: "s-2", kind: "cell", frame: origin, zIndex: 1),
            Element(id: "lone", kind: "cell", frame: Rect(x: 150, y: 20, width: 100, height: 60)),
            // Headers at a cell's origin are not part of its stack.
            Element(id: "h", kind: "header", frame: origin, zIndex: 0),
        ]
        let svg = SVGRenderer.render(picture(elements))
        let root = try parseSVG(svg)
        #expect(root.find(class: "stack-count").map(\.text) == ["×3"])
        let top = try #require(root.find(class: "stack-top").first)
        #expect(top.attributes["data-id"] == "s-1")  // the highest zIndex
        #expect(top.find(class: "stack-count").count == 1)
        #expect(top.find(class: "stack-shadow").count == 2)
        #expect(root.find(class: "stack-shadow").count == 2)
        #expect(occurrences(of: "stack-count", in: svg) == 1)

        // Shadows are capped at three however tall the stack is.
        let tall = (0..<7).map { Element(id: "t-\($0)", kind: "cell", frame: origin, zIndex: $0) }
        let tallRoot = try parseSVG(SVGRenderer.render(picture(tall)))
        #expect(tallRoot.find(class: "stack-count").map(\.text) == ["×7"])
        #expect(tallRoot.find(class: "stack-shadow").count == 3)
        #expect(tallRoot.find(class: "stack-top").first?.attributes["data-id"] == "t-6")
    }

    @Test("XML special characters in ids, kinds and titles are escaped")
    func escaping() throws {
        let elements = [Element(id: #"a&b<c>"d'"#, kind: "cell", frame: Rect(x: 0, y: 0, width: 50, height: 50))]
        let svg = SVGRenderer.render(picture(elements, title: "R&D <view>"))
        #expect(svg.contains(#"data-id="a&amp;b&lt;c&gt;&quot;d&apos;""#))
        #expect(svg.contains("R&amp;D &lt;view&gt;"))
        #expect(!svg.contains("a&b") && !svg.contains("<c>") && !svg.contains("<view>"))
        let root = try parseSVG(svg)
        #expect(root.find(class: "element").first?.attributes["data-id"] == #"a&b<c>"d'"#)
        #expect(root.find(class: "label").first?.text == #"a&b<c>"d'"#)
        #expect(root.find(class: "title").first?.text == "R&D <view>")
    }

    @Test("elements are drawn in ascending zIndex, ties in input order")
    func zOrder() throws {
        let frame = Rect(x: 0, y: 0, width: 40, height: 40)
        let elements = [
            Element(id: "top", kind: "cell", frame: frame.offsetBy(dx: 0, dy: 0), zIndex: 9),
            Element(id: "low", kind: "cell", frame: frame.offsetBy(dx: 50, dy: 0), zIndex: -1),
            Element(id: "tie-a", kind: "cell", frame: frame.offsetBy(dx: 100, dy: 0), zIndex: 2),
            Element(id: "tie-b", kind: "cell", frame: frame.offsetBy(dx: 150, dy: 0), zIndex: 2),
        ]
        let svg = SVGRenderer.render(picture(elements))
        let order = try parseSVG(svg).find(class: "element").compactMap { $0.attributes["data-id"] }
        #expect(order == ["low", "tie-a", "tie-b", "top"])
        let low = try #require(svg.firstRange(of: #"data-id="low""#))
        let top = try #require(svg.firstRange(of: #"data-id="top""#))
        #expect(low.lowerBound < top.lowerBound)
    }

    @Test("the region is translated to the drawing area, scaled, and clipped")
    func regionMapping() throws {
        let region = Rect(x: 100, y: 200, width: 150, height: 100)
        let elements = [
            Element(id: "at-origin", kind: "cell", frame: Rect(x: 100, y: 200, width: 30, height: 20)),
            Element(id: "inside", kind: "cell", frame: Rect(x: 110.25, y: 230.5, width: 10.125, height: 5)),
        ]
        for scale in [1.0, 2.0] {
            let root = try parseSVG(SVGRenderer.render(picture(elements, region: region), scale: scale))
            let clip = try #require(root.find(name: "clipPath").first?.children.first)
            #expect(clip.number("width") == 150 * scale && clip.number("height") == 100 * scale)
            let (ox, oy) = (try #require(clip.number("x")), try #require(clip.number("y")))
            func frame(_ id: String) throws -> Node {
                try #require(root.find(class: "element").first { $0.attributes["data-id"] == id }?.children.first { $0.hasClass("frame") })
            }
            let atOrigin = try frame("at-origin")
            #expect(atOrigin.number("x") == ox && atOrigin.number("y") == oy)
            #expect(atOrigin.number("width") == 30 * scale && atOrigin.number("height") == 20 * scale)
            let inside = try frame("inside")
            #expect(abs(inside.number("x")! - (ox + 10.25 * scale)) <= 0.005)
            #expect(inside.number("y") == oy + 30.5 * scale)
            // The viewport (0,100)-(320,400) maps through the same translation.
            let viewport = try #require(root.find(class: "viewport").first)
            #expect(viewport.number("x") == ox - 100 * scale && viewport.number("y") == oy - 100 * scale)
            // The document is wide enough for the drawing.
            let svg = try #require(root.find(name: "svg").first)
            #expect(svg.number("width")! >= ox + 150 * scale && svg.number("height")! >= oy + 100 * scale)
        }
    }

    @Test("numbers are printed compactly")
    func compactNumbers() throws {
        let elements = [Element(id: "f", kind: "cell", frame: Rect(x: 1.0 / 3, y: 2, width: 0.1 + 0.2, height: 10), alpha: 0.5)]
        let svg = SVGRenderer.render(picture(elements))
        let frame = try #require(try parseSVG(svg).find(class: "frame").first)
        #expect(frame.attributes["x"]?.hasSuffix(".33") == true && frame.attributes["width"] == "0.3" && frame.attributes["fill-opacity"] == "0.5")
        // Every coordinate anywhere in the document: no trailing ".0", no exponent, two decimals at most.
        for node in try parseSVG(svg).all {
            for key in ["x", "y", "width", "height", "font-size"] {
                guard let value = node.attributes[key] else { continue }
                #expect(Double(value) != nil && !value.contains("e"), "\(key)=\(value)")
                let decimals = value.split(separator: ".", omittingEmptySubsequences: false).dropFirst().first ?? ""
                #expect(decimals.count <= 2 && decimals.last != "0", "\(key)=\(value)")
            }
        }
    }

    @Test("side by side: two panels, each a full picture with one viewport")
    func sideBySide() throws {
        let to = picture(Array(basicElements.prefix(2)), title: "grid · flow · epoch 2", region: Rect(x: 0, y: 0, width: 200, height: 300))
        let svg = SVGRenderer.renderSideBySide(picture(basicElements), to, toLabel: "after & co", scale: 0.5)
        let root = try parseSVG(svg)
        let panels = root.find(class: "panel")
        #expect(panels.count == 2)
        #expect(panels.map { $0.attributes["data-label"] } == ["from", "after & co"])
        #expect(panels.map { $0.find(class: "panel-label").first?.text } == ["from", "after & co"])
        #expect(panels.map { $0.find(class: "viewport").count } == [1, 1])
        #expect(occurrences(of: #"class="viewport""#, in: svg) == 2)
        #expect(panels.map { $0.find(class: "element").count } == [5, 2])
        #expect(panels.map { $0.find(class: "title").first?.text } == ["grid · flow · epoch 1", "grid · flow · epoch 2"])
        // Same scale in both; clip ids must not collide in one document.
        let clips = panels.map { $0.find(name: "clipPath").first! }
        #expect(Set(clips.map { $0.attributes["id"]! }).count == 2)
        #expect(clips.map { $0.children.first!.number("width")! } == [160, 100])
        // The second panel sits to the right of the first.
        #expect(panels[0].attributes["transform"] == "translate(0,0)")
        #expect(panels[1].attributes["transform"] != panels[0].attributes["transform"])
    }

    @Test("the same picture gives the same bytes")
    func deterministic() {
        let a = SVGRenderer.render(picture(basicElements), scale: 1.5)
        let b = SVGRenderer.render(picture(basicElements), scale: 1.5)
        #expect(a == b)
        let c = SVGRenderer.renderSideBySide(picture(basicElements), picture(basicElements.reversed()))
        let d = SVGRenderer.renderSideBySide(picture(basicElements), picture(basicElements.reversed()))
        #expect(c == d)
    }

    @Test("rsvg-convert turns the output into a PNG", .enabled(if: rsvgConvertAvailable, "rsvg-convert is not installed"))
    func rendersWithRsvg() throws {
        var template = Array("/tmp/svgrenderer-XXXXXX".utf8CString)
        let dir = try #require(template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }.map { String(cString: $0) })
        let (svgPath, pngPath) = (dir + "/picture.svg", dir + "/picture.png")
        defer { unlink(svgPath); unlink(pngPath); rmdir(dir) }

        let svg = SVGRenderer.render(picture(basicElements), scale: 0.75)
        let out = try #require(fopen(svgPath, "w"))
        let bytes = Array(svg.utf8)
        #expect(fwrite(bytes, 1, bytes.count, out) == bytes.count)
        fclose(out)

        #expect(system("rsvg-convert -o '\(pngPath)' '\(svgPath)' 2>/dev/null") == 0)
        let png = try #require(fopen(pngPath, "r"))
        defer { fclose(png) }
        var header = [UInt8](repeating: 0, count: 24)
        #expect(fread(&header, 1, 24, png) == 24)
        #expect(Array(header.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // IHDR: the PNG is as wide as the SVG says it is.
        let width = header[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let root = try #require(try parseSVG(svg).find(name: "svg").first)
        #expect(Double(width) == root.number("width"))
    }
}

private let rsvgConvertAvailable = system("command -v rsvg-convert >/dev/null 2>&1") == 0
