// Who may hold the bridge's connection slots. Loopback TCP is open to every local user, and a
// connection holds a slot (and a thread) from accept on, before its head says whether it knows
// the token. So the slots are shared by the peer's uid (LoopbackPeer), decided at accept:
//
// - the owner (the uid running `layoutctl web`) may use every slot (`total`);
// - strangers (any other uid, or one not found: a peer of a non-loopback listen address)
//   together hold at most `strangers`, so `total - strangers` slots are always the owner's,
//   however many strangers connect;
// - each stranger uid (the unknown ones counted as one) has at most
//   `pendingHeadsPerStranger` connections still sending their request head, so one local user
//   cannot take the strangers' share for the whole head deadline on its own.
//
// The owner has no pending-head cap: only its own connections can crowd it out.
import Glibc

struct WebAdmissionLimits: Sendable {
    /// Connections at once, all peers together.
    var total = 64
    /// Connections other uids may hold together: the owner keeps `total - strangers`.
    var strangers = 48
    /// Connections one stranger uid may have still sending their request head.
    var pendingHeadsPerStranger = 8
}

/// The slot counts behind `WebAdmission`: no locking, no I/O.
struct WebAdmissionCounts {
    enum Peer: Hashable, CustomStringConvertible {
        case owner
        /// Another uid; nil when it was not found (counted together).
        case stranger(UInt32?)

        var description: String {
            switch self {
            case .owner: return "the owner"
            case .stranger(let uid?): return "uid \(uid)"
            case .stranger(nil): return "peers of unknown uid"
            }
        }
    }

    /// Why a connection was not admitted: the 503's message.
    enum Refusal: Equatable {
        case full(Int)
        case strangersFull(Int)
        case pendingHeads(Peer, Int)

        var message: String {
            switch self {
            case .full(let total): return "too many connections to layoutctl web (\(total))"
            case .strangersFull(let share): return "too many connections to layoutctl web from other users (\(share))"
            case .pendingHeads(let peer, let cap): return "too many connections from \(peer) still sending their request (\(cap))"
            }
        }
    }

    let limits: WebAdmissionLimits
    private(set) var connections = 0
    private(set) var strangerConnections = 0
    private(set) var pendingHeads: [Peer: Int] = [:]

    init(limits: WebAdmissionLimits) {
        self.limits = limits
    }

    /// Takes a slot for a new connection (its head still to come), or says why not.
    mutating func admit(_ peer: Peer) -> Refusal? {
        guard connections < limits.total else { return .full(limits.total) }
        if peer != .owner {
            guard strangerConnections < limits.strangers else { return .strangersFull(limits.strangers) }
            guard pendingHeads[peer, default: 0] < limits.pendingHeadsPerStranger else { return .pendingHeads(peer, limits.pendingHeadsPerStranger) }
            strangerConnections += 1
        }
        connections += 1
        pendingHeads[peer, default: 0] += 1
        return nil
    }

    /// The connection's head is complete (or it ended before): it no longer counts as pending.
    mutating func headDone(_ peer: Peer) {
        pendingHeads[peer, default: 1] -= 1
        if pendingHeads[peer] == 0 { pendingHeads[peer] = nil }
    }

    /// The connection closed (after `headDone`).
    mutating func release(_ peer: Peer) {
        connections -= 1
        if peer != .owner { strangerConnections -= 1 }
    }
}

/// `WebAdmissionCounts` shared by the accepting thread and the connections' threads.
final class WebAdmission: @unchecked Sendable {
    /// One admitted connection's hold on its slot.
    final class Ticket: @unchecked Sendable {
        let peer: WebAdmissionCounts.Peer
        fileprivate var pending = true
        fileprivate init(peer: WebAdmissionCounts.Peer) { self.peer = peer }
    }

    private var counts: WebAdmissionCounts
    private var lock = pthread_mutex_t()

    init(limits: WebAdmissionLimits) {
        counts = WebAdmissionCounts(limits: limits)
        pthread_mutex_init(&lock, nil)
    }

    func admit(_ peer: WebAdmissionCounts.Peer) -> Result<Ticket, WebAdmissionRefused> {
        locked {
            if let refusal = counts.admit(peer) { return .failure(WebAdmissionRefused(refusal: refusal)) }
            return .success(Ticket(peer: peer))
        }
    }

    /// The ticket's head is complete: its pending-head count frees (once).
    func headDone(_ ticket: Ticket) {
        locked {
            guard ticket.pending else { return }
            ticket.pending = false
            counts.headDone(ticket.peer)
        }
    }

    func release(_ ticket: Ticket) {
        headDone(ticket)
        locked { counts.release(ticket.peer) }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return body()
    }
}

struct WebAdmissionRefused: Error {
    var refusal: WebAdmissionCounts.Refusal
}
