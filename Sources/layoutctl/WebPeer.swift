// Who is at the other end of an accepted loopback TCP connection. TCP has no SO_PEERCRED, but
// on loopback the other end is a socket of this machine, with the uid that owns it: the socket
// whose local address is our peer's and whose remote address is ours. The kernel finds it by
// that 4-tuple through sock_diag (NETLINK_SOCK_DIAG, one request, a hash lookup); where that is
// missing, the same row is looked for in /proc/net/tcp (or tcp6). The table is the fallback, not
// the way: it lists every TCP socket of the machine (TIME_WAIT ones too), so reading it once per
// accept took 9 ms with 700 rows, and strangers connecting faster than that would fill the
// listen backlog ahead of the owner. The bridge uses the uid only to share its connection slots
// (WebAdmission); the token stays the one guard of what a connection may do.
import Glibc

enum LoopbackPeer {
    /// The uid owning the other end of the accepted TCP connection `fd`, or nil when it is not
    /// found: not a local socket (a listen address other than loopback), or already gone.
    static func uid(of fd: Int32) -> UInt32? {
        guard let peer = endpoint(fd, getpeername), let local = endpoint(fd, getsockname) else { return nil }
        switch diagnose(peer: peer, local: local) {
        case .found(let uid): return uid
        case .notFound: return nil
        case .unavailable: break
        }
        // The other end is an IPv4 socket (in tcp) or an IPv6 one (in tcp6, where an IPv4 peer is
        // spelled as ::ffff:a.b.c.d), whatever the family of our listening socket.
        if let peerV4 = peer.v4, let localV4 = local.v4,
            let uid = readTable("/proc/net/tcp").flatMap({ owner(in: $0, local: procForm(peerV4, peer.port), remote: procForm(localV4, local.port)) })
        {
            return uid
        }
        return readTable("/proc/net/tcp6").flatMap { owner(in: $0, local: procForm(peer.v6, peer.port), remote: procForm(local.v6, local.port)) }
    }

    /// The uid of the row whose local and remote addresses are these (the kernel's spelling,
    /// `procForm`), among the states a connecting socket can be in while we serve it:
    /// ESTABLISHED, and FIN_WAIT1/2 after it half-closed. TIME_WAIT rows are skipped: they no
    /// longer have an owner and show uid 0.
    /// - Complexity: O(size of the table), in bytes: a busy machine's table has thousands of
    ///   rows, and the accepting thread reads it once per connection.
    static func owner(in table: [UInt8], local: String, remote: String) -> UInt32? {
        let local = Array(local.utf8), remote = Array(remote.utf8)
        var lineStart = table.firstIndex(of: 10).map { $0 + 1 } ?? table.count  // past the header
        while lineStart < table.count {
            let lineEnd = table[lineStart...].firstIndex(of: 10) ?? table.count
            // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid ...
            var fields: [ArraySlice<UInt8>] = []
            var i = lineStart
            while i < lineEnd, fields.count < 8 {
                while i < lineEnd, table[i] == 32 { i += 1 }
                let start = i
                while i < lineEnd, table[i] != 32 { i += 1 }
                if i > start { fields.append(table[start..<i]) }
                // Most rows differ in their local address: stop reading them there.
                if fields.count == 2, !fields[1].elementsEqual(local) { break }
            }
            if fields.count == 8, fields[2].elementsEqual(remote), ["01", "04", "05"].contains(where: { fields[3].elementsEqual($0.utf8) }),
                let uid = UInt32(String(decoding: fields[7], as: UTF8.self))
            {
                return uid
            }
            lineStart = lineEnd + 1
        }
        return nil
    }

    /// An address and port as /proc/net/tcp{,6} print them: each 32-bit word of the address
    /// (network order in memory) printed as the host reads it, `%08X`, then `:%04X` of the port.
    static func procForm(_ address: [UInt8], _ port: UInt16) -> String {
        var text = ""
        for start in stride(from: 0, to: address.count, by: 4) {
            var word: UInt32 = 0
            withUnsafeMutableBytes(of: &word) { $0.copyBytes(from: address[start..<start + 4]) }
            text += hex(UInt64(word), digits: 8)
        }
        return text + ":" + hex(UInt64(port), digits: 4)
    }

    // MARK: Private helpers

    private enum Diagnosis {
        case found(UInt32)
        case notFound
        /// No sock_diag here (no netlink, no inet_diag): read the table instead.
        case unavailable
    }

    /// Asks sock_diag for the socket at `peer` connected to `local`: IPv4 first when the peer
    /// is an IPv4 address (its socket may be IPv4, or IPv6 speaking to ::ffff:a.b.c.d).
    private static func diagnose(peer: Endpoint, local: Endpoint) -> Diagnosis {
        let netlink = socket(16 /* AF_NETLINK */, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 4 /* NETLINK_SOCK_DIAG */)
        guard netlink >= 0 else { return .unavailable }
        defer { close(netlink) }
        if let peerV4 = peer.v4, let localV4 = local.v4 {
            let answer = ask(netlink, family: AF_INET, peer: peerV4 + [UInt8](repeating: 0, count: 12), peerPort: peer.port, local: localV4 + [UInt8](repeating: 0, count: 12), localPort: local.port)
            if case .notFound = answer {} else { return answer }
        }
        return ask(netlink, family: AF_INET6, peer: peer.v6, peerPort: peer.port, local: local.v6, localPort: local.port)
    }

    /// One SOCK_DIAG_BY_FAMILY request for one socket (not a dump): its inet_diag_msg's uid,
    /// when it is in a state a connecting socket has while we serve it (see `owner(in:)`).
    private static func ask(_ netlink: Int32, family: Int32, peer: [UInt8], peerPort: UInt16, local: [UInt8], localPort: UInt16) -> Diagnosis {
        // struct nlmsghdr (16 bytes) + struct inet_diag_req_v2 (56 bytes), <linux/inet_diag.h>.
        var request = [UInt8](repeating: 0, count: 72)
        func put32(_ value: UInt32, at offset: Int) { withUnsafeBytes(of: value) { for i in 0..<4 { request[offset + i] = $0[i] } } }
        func put16(_ value: UInt16, at offset: Int) { withUnsafeBytes(of: value) { for i in 0..<2 { request[offset + i] = $0[i] } } }
        put32(72, at: 0)  // nlmsg_len
        put16(20, at: 4)  // nlmsg_type: SOCK_DIAG_BY_FAMILY
        put16(1, at: 6)  // nlmsg_flags: NLM_F_REQUEST
        request[16] = UInt8(family)  // sdiag_family
        request[17] = UInt8(IPPROTO_TCP)  // sdiag_protocol
        put32(0xFFFF_FFFF, at: 20)  // idiag_states: any
        // inet_diag_sockid at 24: the peer's socket is the one whose source is the peer.
        put16(peerPort.bigEndian, at: 24)
        put16(localPort.bigEndian, at: 26)
        for i in 0..<16 { request[28 + i] = peer[i] }
        for i in 0..<16 { request[44 + i] = local[i] }
        put32(0xFFFF_FFFF, at: 64)  // idiag_cookie: INET_DIAG_NOCOOKIE
        put32(0xFFFF_FFFF, at: 68)
        let sent = request.withUnsafeBytes { send(netlink, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { return .unavailable }
        // The kernel answers within the send: the reply is already queued.
        var reply = [UInt8](repeating: 0, count: 8192)
        let count = reply.withUnsafeMutableBytes { recv(netlink, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        guard count >= 16 else { return .unavailable }
        func get32(_ offset: Int) -> UInt32 { reply.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self) } }
        let type = reply.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: 4, as: UInt16.self) }
        if type == 2 /* NLMSG_ERROR */ {
            guard count >= 20 else { return .unavailable }
            let code = -Int32(bitPattern: get32(16))
            return code == ENOENT ? .notFound : .unavailable
        }
        // inet_diag_msg at 16: family, state, timer, retrans, id (48), expires, rqueue, wqueue, uid, inode.
        guard type == 20, count >= 88 else { return .unavailable }
        let state = reply[17]
        guard [1, 4, 5].contains(state), get32(84) != 0 else { return .notFound }
        return .found(get32(80))
    }

    private struct Endpoint {
        /// 16 bytes: IPv6, an IPv4 address mapped (::ffff:a.b.c.d).
        var v6: [UInt8]
        var port: UInt16
        /// The IPv4 address, when it is one.
        var v4: [UInt8]? { v6.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] ? Array(v6.suffix(4)) : nil }
    }

    private static func endpoint(_ fd: Int32, _ name: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> Endpoint? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        guard withUnsafeMutablePointer(to: &storage, { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { name(fd, $0, &length) } }) == 0 else { return nil }
        let family = Int32(storage.ss_family)
        return withUnsafePointer(to: &storage) { pointer -> Endpoint? in
            switch family {
            case AF_INET:
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { address in
                    var bytes: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF]
                    withUnsafeBytes(of: address.pointee.sin_addr) { bytes += $0 }
                    return Endpoint(v6: bytes, port: UInt16(bigEndian: address.pointee.sin_port))
                }
            case AF_INET6:
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { address in
                    Endpoint(v6: withUnsafeBytes(of: address.pointee.sin6_addr) { Array($0) }, port: UInt16(bigEndian: address.pointee.sin6_port))
                }
            default:
                return nil
            }
        }
    }

    private static func hex(_ value: UInt64, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }

    /// The whole file (procfs files have no size to stat), or nil when it cannot be read.
    private static func readTable(_ path: String) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
