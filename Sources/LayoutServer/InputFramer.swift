import Glibc

/// `LineFramer`'s rules (lines end in `\n`, `\r\n` tolerated, blank lines skipped, a line over
/// `maximumLineLength` fails the stream) for an I/O thread: it frames straight from the
/// thread's read buffer with `memchr` and copies each byte once, so taking in a client's 1 MiB
/// line costs the thread tens of microseconds, not milliseconds (its other connections wait
/// meanwhile).
struct InputFramer {
    var maximumLineLength: Int
    private var pending: [UInt8] = []
    private(set) var failed = false

    init(maximumLineLength: Int) {
        self.maximumLineLength = maximumLineLength
    }

    var hasPartialLine: Bool { !pending.isEmpty }

    /// Feeds `chunk`; calls `line` with every line it completes, without the terminator.
    mutating func append(_ chunk: UnsafeRawBufferPointer, _ line: ([UInt8]) -> Void) {
        guard !failed, let base = chunk.baseAddress else { return }
        var start = 0
        while start < chunk.count {
            guard let found = memchr(base + start, 0x0A, chunk.count - start) else {
                pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: chunk.count - start))
                // A carriage return may still be waiting for its newline.
                let content = pending.last == 0x0D ? pending.count - 1 : pending.count
                if content > maximumLineLength { fail() }
                return
            }
            let newline = UnsafeRawPointer(found) - base
            pending.append(contentsOf: UnsafeRawBufferPointer(start: base + start, count: newline - start))
            if pending.last == 0x0D { pending.removeLast() }
            if pending.count > maximumLineLength { return fail() }
            if pending.contains(where: { $0 != 0x20 && $0 != 0x09 }) { line(pending) }
            pending.removeAll(keepingCapacity: pending.capacity <= 1 << 16)
            start = newline + 1
        }
    }

    private mutating func fail() {
        failed = true
        pending = []
    }
}
