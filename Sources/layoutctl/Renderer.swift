import Glibc
import LayoutClient
import LayoutGeometry
import LayoutProtocol

/// `layoutctl render`: a picture of a view's region, or of a transition's from and to.
enum Renderer {
    static func render(view: String) {
        guard let output = invocation.value("--svg") else { usageError("render needs --svg FILE", command: command) }
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
        if invocation.has("--transition") {
            var params: JSONObject = ["view": .string(view), "animated": .bool(true)]
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
            // The region before and after, each drawn whole; the transition's segments say
            // what moved between them.
            let queryBefore = queryAll(client, view: view, rect: .rect(region))
            let result = call(client, method, params)
            let moved = result["transition"]?["segments"]?.arrayValue?.count ?? 0
            let after = call(client, "view.get", ["view": .string(view)])
            let queryAfter = queryAll(client, view: view, rect: .rect(region))
            func selected(_ query: JSONValue) -> Set<String> { Set((query["selected"]?.arrayValue ?? []).compactMap(\.stringValue)) }
            let from = picture(
                before, elements: queryBefore["elements"]?.arrayValue ?? [], region: region, selected: selected(queryBefore),
                title: "\(view) before: epoch \(formatNumber(before["epoch"]))")
            let to = picture(
                after, elements: queryAfter["elements"]?.arrayValue ?? [], region: region, selected: selected(queryAfter),
                title: "\(view) after \(method): epoch \(formatNumber(after["epoch"])), \(moved) moving")
            svg = SVGRenderer.renderSideBySide(from, to, fromLabel: "from", toLabel: "to", scale: scale)
        } else {
            let query = queryAll(client, view: view, rect: .rect(region))
            let selected = Set((query["selected"]?.arrayValue ?? []).compactMap(\.stringValue))
            svg = SVGRenderer.render(
                picture(before, elements: query["elements"]?.arrayValue ?? [], region: region, selected: selected,
                        title: "\(view) (\(before["strategy"]?.stringValue ?? "")) epoch \(formatNumber(before["epoch"]))"),
                scale: scale)
        }
        if output == "-" {
            writeOut(svg)
        } else {
            let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                writeError("layoutctl: cannot write \(output): \(String(cString: strerror(errno)))\n")
                exit(1)
            }
            let bytes = Array(svg.utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
            if !invocation.quiet { writeError("wrote \(output)\n") }
        }
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
                    alpha: element["alpha"]?.numberValue ?? 1, hidden: element["hidden"] == .bool(true), selected: selected.contains(id))
            })
    }
}
