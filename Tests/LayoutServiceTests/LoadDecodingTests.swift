import Dispatch
import LayoutProtocol
import LayoutService
import Synchronization
import Testing

/// Loads (`view.create`, `view.setData`, `view.stage.append`) whose sections the byte decoder
/// reads (`LoadRequest`) are answered, byte for byte, as the general path answers them:
/// results, refusals (of the envelope, of a member, of the model), and the state they leave.
@Suite("loads decoded from their bytes")
struct LoadDecodingTests {
    /// The reply to `line`, submitted as the daemon submits it (`submit(line:)`: the byte
    /// decoders first) or through the general path alone (`Request.decode`, then the request).
    static func reply(_ service: LayoutService, _ line: String, general: Bool) -> [UInt8] {
        let box = Mutex<Outcome?>(nil)
        let done = DispatchSemaphore(value: 0)
        let completion: @Sendable (Outcome) -> Void = { outcome in
            box.withLock { $0 = outcome }
            done.signal()
        }
        let bytes = Array(line.utf8)
        if general {
            do {
                service.submit(try Request.decode(bytes), from: 1, completion: completion)
            } catch {
                service.refuse(error, completion: completion)
            }
        } else {
            service.submit(line: bytes, from: 1, completion: completion)
        }
        done.wait()
        return box.withLock { $0?.reply } ?? []
    }

    static let viewport = #""viewport":{"width":390,"height":844}"#

    /// Each line, then `view.get`, so a difference in what a load left behind shows too.
    static let lines: [String] = [
        #"{"id":1,"method":"view.create","params":{"view":"a","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x","size":{"width":50,"height":40.5}},{"id":"y\u00e9","estimatedSize":{"width":1e2,"height":3}},{"id":"z","selectedSize":null}],"headerSize":{"width":0,"height":20}},{"id":"t","items":[]}]}}"#,
        // The model refuses: a duplicate item id, an unknown strategy, a taken name.
        #"{"id":2,"method":"view.create","params":{"view":"b","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"},{"id":"x"}]}]}}"#,
        #"{"id":3,"method":"view.create","params":{"view":"b","strategy":"nope",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"}]}]}}"#,
        #"{"id":4,"method":"view.create","params":{"view":"a","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"}]}]}}"#,
        // A member refuses: unknown, of the wrong type, missing; sections before the others.
        #"{"id":5,"method":"view.create","params":{"sections":[{"id":"s","items":[{"id":"x"}]}],"view":"c","strategy":"flow",\#(viewport),"colour":1}}"#,
        #"{"id":6,"method":"view.create","params":{"sections":[{"id":"s","items":[{"id":"x"}]}],"view":"c","strategy":"flow","viewport":{"width":"wide","height":1}}}"#,
        #"{"id":7,"method":"view.create","params":{"view":"c","strategy":"flow","sections":[{"id":"s","items":[{"id":"x"}]}]}}"#,
        #"{"id":8,"method":"view.create","params":{"view":"","strategy":"flow",\#(viewport),"sections":[]}}"#,
        // Refused by the envelope or the parser, and sections the byte decoder leaves alone.
        #"{"id":9,"method":"view.create","params":{"view":"c","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x","id":"y"}]}]}}"#,
        #"{"id":10,"method":"view.create","params":{"view":"c","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x","size":{"width":1}}]}]}}"#,
        #"{"id":11,"method":"view.create","params":{"view":"c","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"}]}]},"jsonrpc":"2.0"}"#,
        #"{"id":12,"method":"view.create","params":{"view":"c","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"}]}],"view":"d"}}"#,
        #"{"method":"view.create","params":{"view":"c","strategy":"flow",\#(viewport),"sections":[{"id":"s","items":[{"id":"x"}]},]},"id":13}"#,
        #"{"id":14,"method":"view.create","params":{"view":"c","strategy":"flow","params":{"itemSize":{"width":10,"height":10}},\#(viewport),"windowMargin":100,"layoutDirection":"rtl","anchor":"end","sections":[{"id":"s","items":[{"id":"x"}]}]}}"#,
        // setData: replaced, then refused by the model and by a member.
        #"{"id":15,"method":"view.setData","params":{"view":"a","animated":true,"sections":[{"id":"u","items":[{"id":"q","size":{"width":5,"height":6}}]}]}}"#,
        #"{"id":16,"method":"view.setData","params":{"view":"a","sections":[{"id":"u","items":[{"id":"q"}]},{"id":"u","items":[]}]}}"#,
        #"{"id":17,"method":"view.setData","params":{"view":"a","ifEpoch":0,"sections":[{"id":"u","items":[]}]}}"#,
        #"{"id":18,"method":"view.setData","params":{"view":"nowhere","sections":[]}}"#,
        // A staged upload: its parts, a bad part, the commit.
        #"{"id":19,"method":"view.stage.begin","params":{"view":"c"}}"#,
        #"{"id":20,"method":"view.stage.append","params":{"upload":"UPLOAD","sections":[{"id":"m","items":[{"id":"m1"},{"id":"m2","size":{"width":3,"height":4}}]}]}}"#,
        #"{"id":21,"method":"view.stage.append","params":{"upload":"UPLOAD","sections":[{"id":"m","items":[{"id":"m3"}]}],"extra":true}}"#,
        #"{"id":22,"method":"view.stage.append","params":{"upload":"elsewhere","sections":[{"id":"m","items":[{"id":"m3"}]}]}}"#,
        #"{"id":23,"method":"view.stage.commit","params":{"upload":"UPLOAD"}}"#,
    ]

    @Test("every reply, and the views after each line, are the general path's to the byte")
    func sameReplies() throws {
        let decoded = LayoutService()
        let general = LayoutService()
        var upload = "UPLOAD"
        var refusedByModel = 0
        for template in Self.lines {
            let line = template.replacing("UPLOAD", with: upload)
            let fast = Self.reply(decoded, line, general: false)
            let expected = Self.reply(general, line, general: true)
            #expect(fast == expected, "\(line)\n decoded: \(String(decoding: fast, as: UTF8.self))\n general: \(String(decoding: expected, as: UTF8.self))")
            let reply = try JSONParser.parse(fast.dropLast())
            if let started = reply["result"]?["upload"]?.stringValue, line.contains("stage.begin") { upload = started }
            if reply["error"] != nil, LoadRequest.decode(Array(line.utf8)) != nil { refusedByModel += 1 }
            for view in ["a", "b", "c"] {
                let get = #"{"id":99,"method":"view.get","params":{"view":"\#(view)"}}"#
                #expect(Self.reply(decoded, get, general: false) == Self.reply(general, get, general: false), "view \(view) after \(line)")
            }
        }
        // The refusals after the byte decoder took the line: the model's and the members'.
        #expect(refusedByModel >= 10, "only \(refusedByModel) refusals came after the byte decoder")
    }
}
