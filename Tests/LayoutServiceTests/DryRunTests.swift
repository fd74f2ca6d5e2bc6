import LayoutProtocol
import LayoutService
import Testing

/// `"dryRun": true`: the reply is the real call's reply plus the marker, byte for byte, and the
/// view is untouched. Each strategy runs a chain of every mutation, so every dry run starts from
/// a state that earlier incremental updates built (what `LayoutStrategy.copy(model:)` copies).
@Suite("dry runs")
struct DryRunTests {
    static let strategies = [
        #""strategy": "flow", "params": {"itemSize": {"width": 100, "height": 100}, "headerReferenceSize": {"width": 375, "height": 30}}"#,
        #""strategy": "collapsible", "params": {"itemSize": {"width": 90, "height": 90}}"#,
        #""strategy": "display", "params": {"mode": "grid"}"#,
        #""strategy": "ultravisual""#,
    ]

    /// Every mutating method, in an order where each changes something.
    static let chain = [
        #""method": "view.scroll", "params": {"view": "v", "offset": {"x": 0, "y": 260}}"#,
        #""method": "view.select", "params": {"view": "v", "ids": ["i11", "i12", "i13"], "animated": true}"#,
        #""method": "view.measure", "params": {"view": "v", "sizes": [{"id": "i9", "size": {"width": 100, "height": 170}}], "animated": true}"#,
        #""method": "view.update", "params": {"view": "v", "animated": true, "updates": [{"op": "insertItems", "section": "s", "at": 2, "items": [{"id": "n"}]}, {"op": "deleteItems", "ids": ["i5"]}, {"op": "moveItem", "id": "i40", "section": "s", "at": 8}]}"#,
        #""method": "view.scrollEnd", "params": {"view": "v", "proposed": {"x": 0, "y": 430}, "velocity": {"x": 0, "y": 700}}"#,
        #""method": "view.resize", "params": {"view": "v", "size": {"width": 500, "height": 640}, "animated": true}"#,
        #""method": "view.setWindowMargin", "params": {"view": "v", "margin": 300}"#,
        #""method": "view.setData", "params": {"view": "v", "animated": true, "sections": [{"id": "s", "items": [{"id": "i12"}, {"id": "i1"}, {"id": "i11"}, {"id": "i13"}, {"id": "z"}, {"id": "i2"}, {"id": "i3"}, {"id": "i4"}, {"id": "i6"}, {"id": "i7"}, {"id": "i8"}, {"id": "i9"}, {"id": "i10"}, {"id": "i14"}, {"id": "i15"}, {"id": "i16"}]}]}"#,
        #""method": "view.setStrategy", "params": {"view": "v", "strategy": "collapsible", "params": {"itemSize": {"width": 80, "height": 80}}, "animated": true}"#,
        #""method": "view.configure", "params": {"view": "v", "params": {"collapsed": true}, "animated": true}"#,
    ]

    static func line(_ service: LayoutService, _ text: String) -> (reply: String, events: Int) {
        let deliveries = service.handle(line: Array(text.utf8), from: 1)
        let lines = deliveries.map { String(decoding: $0.line.dropLast(), as: UTF8.self) }
        return (lines.first ?? "", lines.count - 1)
    }

    @Test("every mutation's dry run is its real result plus the marker, and changes nothing", arguments: strategies)
    func chainOfMutations(strategy: String) throws {
        let service = LayoutService()
        let items = (0..<60).map { #"{"id": "i\#($0)"}"# }.joined(separator: ",")
        let created = Self.line(
            service,
            #"{"id": 1, "method": "view.create", "params": {"view": "v", \#(strategy), "viewport": {"width": 375, "height": 667}, "windowMargin": 50, "sections": [{"id": "s", "items": [\#(items)]}]}}"#)
        #expect(created.reply.contains(#""result""#))
        #expect(Self.line(service, #"{"id": 2, "method": "view.subscribe", "params": {"view": "v"}}"#).reply.contains(#""subscription""#))
        for request in Self.chain {
            let before = Self.line(service, #"{"id": 3, "method": "view.get", "params": {"view": "v"}}"#).reply
            let everything = #"{"id": 4, "method": "view.query", "params": {"view": "v", "rect": {"x": -1000, "y": -1000, "width": 9000, "height": 9000}}}"#
            let elementsBefore = Self.line(service, everything).reply
            let dry = Self.line(service, #"{"id": 9, \#(request.dropLast()), "dryRun": true}}"#)
            #expect(dry.events == 0, "a dry run sends no event: \(request)")
            #expect(Self.line(service, #"{"id": 3, "method": "view.get", "params": {"view": "v"}}"#).reply == before, "\(request)")
            #expect(Self.line(service, everything).reply == elementsBefore, "\(request)")
            let real = Self.line(service, #"{"id": 9, \#(request)}"#)
            #expect(real.events == 1)
            #expect(real.reply.contains(#""result""#), "\(real.reply.prefix(300))")
            #expect(dry.reply == real.reply.dropLast(2) + #","dryRun":true}}"#, "\(request)")
        }
    }
}
