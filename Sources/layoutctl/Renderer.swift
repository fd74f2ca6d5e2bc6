import Glibc
import LayoutctlKit
import LayoutdClient
import LayoutGeometry
import LayoutProtocol

/// `layoutctl render`: a picture of a view's region, or of a transition's from and to, as SVG
/// (`--svg`) or PNG (`--png`, through librsvg at run time: `PNGWriter`). Never changes the view:
/// a transition is previewed with `"dryRun": true`.
enum Renderer {
    static func render(view: String) {
        let svgPath = invocation.value("--svg"), pngPath = invocation.value("--png")
        guard svgPath != nil || pngPath != nil else { usageError("render needs --svg FILE or --png FILE", command: command) }
        if pngPath == "-" { usageError("--png needs a file name", command: command) }
        let scale = invocation.number("--scale") ?? 1
        let client = connect()
        let before = call(client, "view.get", ["view": .string(view)])
        let region: Rect
        if let text = invocation.value("--rect") {
            guard let rect = ValueText.rect(text)?.rectValue else { usageError("--rect takes X,Y,W,H", command: command) }
            region = rect
        } else {
            region = before["window"]?.rectValue ?? Rect(x: 0, y: 0, width: 0, height: 0)
        }
        let svg: String
        if let text = invocation.value("--progress") {
            guard let progress = ValueText.number(text) else { usageError("--progress takes a number from 0 to 1", command: command) }
            if invocation.has("--transition") || invocation.values["--select"] != nil {
                usageError("--progress draws an interactive transition: with --configure or --switch, without --transition", command: command)
            }
            svg = interactive(view: view, before: before, progress: progress, region: invocation.value("--rect") == nil ? nil : region, scale: scale, client)
        } else if let moving = invocation.value("--move") {
            guard let text = invocation.value("--to"), let to = ValueText.point(text) else { usageError("--move needs --to X,Y", command: command) }
            // A dry run: the drag state as the view would show it, the view left as it is.
            let result = call(client, "view.beginMove", [
                "view": .string(view), "id": .string(moving), "point": .object(["x": .number(to.x), "y": .number(to.y)]),
                "dryRun": .bool(true), "ifEpoch": before["epoch"] ?? .null,
            ])
            let query = queryAll(client, view: view, rect: .rect(region))
            let selected = Set((query["selected"]?.arrayValue ?? []).compactMap(\.stringValue))
            let target = result["target"].map { "[\(formatNumber($0["section"])), \(formatNumber($0["item"]))]" } ?? "-"
            let speed = result["autoScroll"].map { "\(formatNumber($0["x"])), \(formatNumber($0["y"]))" } ?? "-"
            var drawn = picture(
                before, elements: windowAfter(before["elements"]?.arrayValue ?? [], result), region: region, selected: selected,
                title: "\(view) dragging \(moving) (preview): target \(target), autoScroll \(speed) pt/s")
            for index in drawn.elements.indices where drawn.elements[index].kind == "cell" && drawn.elements[index].id == moving {
                drawn.elements[index].moving = true
            }
            drawn.finger = Point(x: drawn.viewport.minX + to.x, y: drawn.viewport.minY + to.y)
            svg = SVGRenderer.render(drawn, scale: scale)
        } else if invocation.has("--transition") {
            // A dry run: the result the change would have, the view left as it is.
            var params: JSONObject = ["view": .string(view), "animated": .bool(true), "dryRun": .bool(true)]
            let method: String
            if let strategy = invocation.value("--switch") {
                method = "view.setStrategy"
                params["strategy"] = .string(strategy)
                params["params"] = .object(parameters(invocation.values["--configure"] ?? []))
            } else if let changes = invocation.values["--configure"] {
                method = "view.configure"
                params["params"] = .object(parameters(changes))
            } else if let ids = invocation.values["--select"] {
                method = "view.select"
                params["ids"] = .array(ids.map { .string($0) })
            } else {
                usageError("--transition needs --configure, --switch or --select", command: command)
            }
            // Before: the region as it is. After: the window's elements with the dry run's delta
            // applied (left removed, entered and changed put in), which is exactly the window
            // after the change; the transition's segments say what moves between them.
            params["ifEpoch"] = before["epoch"]
            let queryBefore = queryAll(client, view: view, rect: .rect(region))
            let result = call(client, method, params)
            let moved = result["transition"]?["segments"]?.arrayValue?.count ?? 0
            func selected(_ query: JSONValue) -> Set<String> { Set((query["selected"]?.arrayValue ?? []).compactMap(\.stringValue)) }
            let selectedBefore = selected(queryBefore)
            var after = before
            if case .object(var object) = before {
                object["contentSize"] = result["contentSize"]
                if case .object(var viewport) = before["viewport"] {
                    viewport["offset"] = result["contentOffset"]
                    object["viewport"] = .object(viewport)
                }
                after = .object(object)
            }
            let selectedAfter = method == "view.select" ? Set((params["ids"]?.arrayValue ?? []).compactMap(\.stringValue)) : selectedBefore
            let from = picture(
                before, elements: queryBefore["elements"]?.arrayValue ?? [], region: region, selected: selectedBefore,
                title: "\(view) before: epoch \(formatNumber(before["epoch"]))")
            let to = picture(
                after, elements: windowAfter(before["elements"]?.arrayValue ?? [], result), region: region, selected: selectedAfter,
                title: "\(view) after \(method) (preview): epoch \(formatNumber(result["epoch"])), \(moved) moving")
            svg = SVGRenderer.renderSideBySide(from, to, fromLabel: "from", toLabel: "to", scale: scale)
        } else {
            let query = queryAll(client, view: view, rect: .rect(region))
            let selected = Set((query["selected"]?.arrayValue ?? []).compactMap(\.stringValue))
            svg = SVGRenderer.render(
                picture(before, elements: query["elements"]?.arrayValue ?? [], region: region, selected: selected,
                        title: "\(view) (\(before["strategy"]?.stringValue ?? "")) epoch \(formatNumber(before["epoch"]))"),
                scale: scale)
        }
        if let svgPath {
            if svgPath == "-" {
                writeOut(svg)
            } else {
                let fd = open(svgPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
                guard fd >= 0 else {
                    writeError("layoutctl: cannot write \(svgPath): \(String(cString: strerror(errno)))\n")
                    exit(1)
                }
                let bytes = Array(svg.utf8)
                _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                close(fd)
                if !invocation.quiet { writeError("wrote \(svgPath)\n") }
            }
        }
        if let pngPath {
            do {
                let (width, height) = try PNGWriter.write(svg: svg, to: pngPath)
                if !invocation.quiet { writeError("wrote \(pngPath) (\(width) × \(height))\n") }
            } catch {
                writeError("layoutctl: cannot write \(pngPath): \(error.message)\n")
                exit(1)
            }
        }
    }

    /// `--progress`: the change drawn as an interactive transition at `progress`, the one
    /// picture a gesture shows then: begun (`ifEpoch`: nothing changed since `view.get`),
    /// scrubbed to `progress`, drawn with every pair's attributes and the blended offset and
    /// content size, then ended back, so the view is as it was (one epoch on: the revert is a
    /// mutation). Without `--rect`, the region is the window moved with the blended offset.
    static func interactive(view: String, before: JSONValue, progress: Double, region given: Rect?, scale: Double, _ client: BlockingConnection) -> String {
        var params: JSONObject = ["view": .string(view), "ifEpoch": before["epoch"] ?? .null]
        let target: String
        if let strategy = invocation.value("--switch") {
            target = strategy
            params["strategy"] = .string(strategy)
            params["params"] = .object(parameters(invocation.values["--configure"] ?? [], types: parameterTypes(client, strategy: strategy)))
        } else if let changes = invocation.values["--configure"] {
            target = before["strategy"]?.stringValue ?? ""
            params["params"] = .object(parameters(changes, types: parameterTypes(client, strategy: target)))
        } else {
            usageError("--progress needs --configure or --switch", command: command)
        }
        let selected = Set((queryAll(client, view: view, rect: before["window"] ?? .null)["selected"]?.arrayValue ?? []).compactMap(\.stringValue))
        _ = call(client, "view.beginTransition", params)
        let reply: JSONValue
        do {
            reply = try client.call("view.updateTransition", ["view": .string(view), "progress": .number(progress)])
        } catch {
            // A refused progress: end the transition this command began before failing.
            _ = try? client.call("view.endTransition", ["view": .string(view), "commit": .bool(false)])
            fail(error)
        }
        _ = call(client, "view.endTransition", ["view": .string(view), "commit": .bool(false)])
        let offset = reply["contentOffset"]
        var shown = before
        if case .object(var object) = before {
            object["contentSize"] = reply["contentSize"]
            if case .object(var viewport) = before["viewport"] {
                viewport["offset"] = offset
                object["viewport"] = .object(viewport)
            }
            shown = .object(object)
        }
        var region = given ?? before["window"]?.rectValue ?? Rect(x: 0, y: 0, width: 0, height: 0)
        if given == nil {
            region.origin.x += (offset?["x"]?.numberValue ?? 0) - (before["viewport"]?["offset"]?["x"]?.numberValue ?? 0)
            region.origin.y += (offset?["y"]?.numberValue ?? 0) - (before["viewport"]?["offset"]?["y"]?.numberValue ?? 0)
        }
        return SVGRenderer.render(
            picture(shown, elements: reply["elements"]?.arrayValue ?? [], region: region, selected: selected,
                    title: "\(view) (\(before["strategy"]?.stringValue ?? "") to \(target)) at \(formatNumber(progress)) of the transition, epoch \(formatNumber(before["epoch"]))"),
            scale: scale)
    }

    /// The window's elements after a change: `elements` (the window before) with the
    /// invalidation's delta applied, in key order.
    static func windowAfter(_ elements: [JSONValue], _ invalidation: JSONValue) -> [JSONValue] {
        func key(_ element: JSONValue) -> String { "\(element["kind"]?.stringValue ?? "")/\(element["id"]?.stringValue ?? "")" }
        var held = [String: JSONValue]()
        for element in elements { held[key(element)] = element }
        for gone in invalidation["left"]?.arrayValue ?? [] { held[key(gone)] = nil }
        for element in (invalidation["entered"]?.arrayValue ?? []) + (invalidation["changed"]?.arrayValue ?? []) { held[key(element)] = element }
        return held.keys.sorted().map { held[$0]! }
    }

    static func picture(_ snapshot: JSONValue, elements: [JSONValue], region: Rect, selected: Set<String>, title: String) -> LayoutPicture {
        let viewport = snapshot["viewport"]
        let visible = Rect(
            x: viewport?["offset"]?["x"]?.numberValue ?? 0, y: viewport?["offset"]?["y"]?.numberValue ?? 0,
            width: viewport?["width"]?.numberValue ?? 0, height: viewport?["height"]?.numberValue ?? 0)
        return LayoutPicture(
            title: title,
            contentSize: Size(width: snapshot["contentSize"]?["width"]?.numberValue ?? 0, height: snapshot["contentSize"]?["height"]?.numberValue ?? 0),
            viewport: visible, region: region,
            elements: elements.compactMap { element in
                guard let id = element["id"]?.stringValue, let frame = element["frame"]?.rectValue else { return nil }
                return LayoutPicture.Element(
                    id: id, kind: element["kind"]?.stringValue ?? "cell", frame: frame, zIndex: element["zIndex"]?.integerValue ?? 0,
                    alpha: element["alpha"]?.numberValue ?? 1, hidden: element["hidden"] == .bool(true), selected: selected.contains(id),
                    transform: transform(element["transform"]),
                    effects: (element["effects"]?.objectValue?.pairs ?? []).reduce(into: [:]) { $0[$1.0] = $1.1.numberValue })
            })
    }

    /// `{"a","b","c","d","tx","ty"}`, the identity when absent or incomplete.
    static func transform(_ value: JSONValue?) -> Transform2D {
        guard let value, let a = value["a"]?.numberValue, let b = value["b"]?.numberValue, let c = value["c"]?.numberValue,
              let d = value["d"]?.numberValue, let tx = value["tx"]?.numberValue, let ty = value["ty"]?.numberValue
        else { return .identity }
        return Transform2D(a: a, b: b, c: c, d: d, tx: tx, ty: ty)
    }
}
