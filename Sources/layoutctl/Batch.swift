import Glibc
import LayoutctlKit
import LayoutProtocol

/// `layoutctl call --batch`: request lines from stdin, pipelined, and one reply line each on
/// stdout in order; events are not printed. Exit 2 when any reply was an error.
enum Batch {
    static func run() {
        let client = connect()
        let input = readAll("-")
        var sent = 0
        for line in input.split(separator: 0x0A) where !line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) {
            do {
                try client.sendLine(Array(line))
            } catch {
                fail(error)
            }
            sent += 1
        }
        var refused = false
        var replies = 0
        while replies < sent {
            let line: [UInt8]?
            do {
                line = try client.readLine()
            } catch {
                fail(error)
            }
            guard let line else {
                writeError("layoutctl: the daemon closed the connection after \(replies) of \(sent) replies\n")
                exit(1)
            }
            guard case .object(let message)? = try? JSONParser.parse(line) else { continue }
            if message["event"] != nil { continue }
            replies += 1
            if message["error"] != nil { refused = true }
            writeOut(String(decoding: line, as: UTF8.self) + "\n")
        }
        exit(refused ? 2 : 0)
    }
}
