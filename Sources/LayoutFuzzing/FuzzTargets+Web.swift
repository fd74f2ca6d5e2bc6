import LayoutctlKit

extension FuzzTargets {
    /// `layoutctl web`'s readers on anything a network peer could send. The first byte picks the
    /// message limit (16...4096) and the next four how the rest is cut into reads. The WebSocket
    /// decoder must give the same events however the stream is cut, never a text message over
    /// the limit or not UTF-8, and nothing after a failure or a close. The HTTP head parser,
    /// on the same bytes, must never trap, must refuse a head only for a reason it names, and
    /// must read the same head from the bytes plus anything after them.
    @Sendable public static func web(_ data: [UInt8]) -> [String] {
        var source = FuzzBytes(data)
        let limit = 16 + Int(source.byte()) * 16
        let cuts = (0..<4).map { _ in Int(source.byte() % 64) + 1 }
        let stream = Array(source.rest())
        var failures = [String]()

        func decode(_ pieces: [ArraySlice<UInt8>]) -> [WebSocketDecoder.Event] {
            var decoder = WebSocketDecoder(maximumMessageLength: limit)
            var events = [WebSocketDecoder.Event]()
            for piece in pieces {
                decoder.feed(piece)
                while let event = decoder.next() { events.append(event) }
            }
            return events
        }
        var pieces = [ArraySlice<UInt8>]()
        var start = 0
        var cut = 0
        while start < stream.count {
            let end = min(stream.count, start + cuts[cut % cuts.count])
            pieces.append(stream[start..<end])
            cut += 1
            start = end
        }
        let whole = decode([stream[...]])
        let chunked = decode(pieces)
        if whole != chunked { failures.append("events depend on how the bytes were cut: \(whole) vs \(chunked)") }
        for (index, event) in whole.enumerated() {
            switch event {
            case .text(let message):
                if message.count > limit { failures.append("a text message of \(message.count) bytes over the limit \(limit)") }
                if String(validating: message, as: UTF8.self) == nil { failures.append("a text message that is not UTF-8") }
            case .failure, .close:
                if index != whole.count - 1 { failures.append("events after \(event)") }
            case .ping(let payload):
                if payload.count > 125 { failures.append("a ping of \(payload.count) bytes") }
            case .pong:
                break
            }
        }

        switch HTTPRequest.parse(stream) {
        case .incomplete:
            if stream.count > HTTPRequest.maximumHeadLength { failures.append("\(stream.count) bytes still incomplete") }
        case .invalid(let status, let reason):
            if reason.isEmpty || ![400, 431, 505].contains(status) { failures.append("refused with \(status) '\(reason)'") }
        case .request(let request, let consumed):
            if consumed > stream.count || !request.target.hasPrefix("/") { failures.append("a head of \(consumed) bytes, target \(request.target)") }
            if case .request(let again, let consumedAgain) = HTTPRequest.parse(stream + Array("GET / HTTP/1.1\r\n\r\n".utf8)) {
                if again != request || consumedAgain != consumed { failures.append("the head changed with bytes after it") }
            } else {
                failures.append("the head was lost with bytes after it")
            }
        }
        return failures
    }
}
