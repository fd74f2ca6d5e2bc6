import CSystemd
import Dispatch
import Glibc
import Synchronization

/// The service manager's file descriptor store (`FileDescriptorStoreMax=` in the unit): fds
/// sent with `FDSTORE=1` are kept by the manager and passed back, with their names, at the
/// service's next start (`ListenSockets.passed()`). systemd 252 keeps the store across a
/// restart job (`systemctl restart`, `try-restart`) and an automatic `Restart=` restart, and
/// closes it when the unit stops with no job queued (systemd.service(5), FileDescriptorStoreMax=).
///
/// Store messages are queued behind every earlier notification, as `send(_:)` queues, and go
/// out in order. `barrier(timeout:)` waits until the manager has processed all of them: call it
/// after the last `store` before exiting, or the manager may see the exit first.
extension Notifier {
    /// A store request refused before anything was queued; nothing changed.
    public enum StoreFailure: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not a name systemd accepts (`isValidStoreName`). systemd would store the fds as
        /// "stored" instead, where nobody would find them.
        case invalidName(String)
        /// One message carries 1 … `maximumDescriptorsPerMessage` fds.
        case descriptorCount(Int)
        /// Duplicating an fd for the queue failed (errno; EBADF for an fd that is not open).
        case system(call: String, code: Int32)

        public var description: String {
            switch self {
            case .invalidName(let name):
                "'\(name)' is not a file descriptor name systemd accepts: 1 … \(Notifier.maximumStoreNameLength) printable ASCII characters, no ':'"
            case .descriptorCount(let count):
                "\(count) file descriptors in one message; 1 … \(Notifier.maximumDescriptorsPerMessage) are allowed"
            case .system(let call, let code): "\(call): \(String(cString: strerror(code)))"
            }
        }
    }

    /// What `barrier(timeout:)` learned about the messages queued before it.
    public enum Delivery: Equatable, Sendable {
        /// No NOTIFY_SOCKET: nothing was sent, nothing to wait for.
        case disabled
        /// The manager processed every earlier message (it closed the barrier's fd).
        case confirmed
        /// `count` earlier messages could not be sent (the first failure's errno); the rest
        /// were processed.
        case failed(count: Int, call: String, code: Int32)
        /// The manager did not answer within the timeout.
        case timedOut
    }

    /// FDNAME's limit (sd_notify(3), systemd 252: longer names are ignored).
    public static let maximumStoreNameLength = 255
    /// SCM_MAX_FD: the kernel refuses a message with more fds (sendmsg fails with EINVAL).
    public static let maximumDescriptorsPerMessage = 253

    /// Whether systemd keeps `name` for stored fds. systemd 252 (sd_notify(3),
    /// `fdname_is_valid`) accepts up to 255 ASCII characters without control characters or
    /// ':' (LISTEN_FDNAMES' separator). The empty name is refused here too, though systemd
    /// takes it: "a::b" in LISTEN_FDNAMES would not split back into three names.
    public static func isValidStoreName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        return !bytes.isEmpty && bytes.count <= maximumStoreNameLength
            && bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: ":") }
    }

    /// Queues `FDSTORE=1` and `FDNAME=name` with `fds` (SCM_RIGHTS): the manager keeps a
    /// duplicate of each under `name` (names need not be unique). The caller keeps its fds and
    /// may close them at once: the queue sends duplicates of its own. With `poll` false
    /// (`FDPOLL=0`) the manager keeps an fd even after POLLHUP or POLLERR, which it otherwise
    /// drops (a connection whose peer hung up). A no-op without NOTIFY_SOCKET, after validation.
    ///
    /// The manager silently closes fds beyond `FileDescriptorStoreMax=` and fds it already
    /// holds (the same open file) are not stored twice; store what matters most first.
    public func store(_ fds: [Int32], name: String, poll: Bool = true) throws(StoreFailure) {
        guard Self.isValidStoreName(name) else { throw .invalidName(name) }
        guard (1...Self.maximumDescriptorsPerMessage).contains(fds.count) else { throw .descriptorCount(fds.count) }
        guard isEnabled else { return }
        var duplicates = [Int32]()
        for fd in fds {
            let copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)
            guard copy >= 0 else {
                let code = errno
                for copy in duplicates { close(copy) }
                throw .system(call: "fcntl(F_DUPFD_CLOEXEC)", code: code)
            }
            duplicates.append(copy)
        }
        let copies = duplicates
        let message = ["FDSTORE=1", "FDNAME=\(name)"] + (poll ? [] : ["FDPOLL=0"])
        Self.queue.async {
            let sent = copies.withUnsafeBufferPointer { buffer in
                sd_pid_notify_with_fds(0, 0, message.joined(separator: "\n"), buffer.baseAddress, UInt32(buffer.count))
            }
            Self.record(sent, call: "sd_pid_notify_with_fds")
            for copy in copies { close(copy) }
        }
    }

    /// Queues `FDSTOREREMOVE=1` and `FDNAME=name`: the manager closes every stored fd with that
    /// name. Needed when the service closes a stored connection: the manager's duplicate would
    /// otherwise keep it open, and its peer would never see the end of the stream.
    public func removeStored(named name: String) throws(StoreFailure) {
        guard Self.isValidStoreName(name) else { throw .invalidName(name) }
        send(["FDSTOREREMOVE=1", "FDNAME=\(name)"])
    }

    /// Waits until the manager has processed every message queued so far (`BARRIER=1`,
    /// sd_notify_barrier(3)), at most `timeout` seconds in all (earlier messages may still be
    /// waiting for room in the manager's queue). Reports send failures since the last barrier.
    public func barrier(timeout: Double) -> Delivery {
        guard isEnabled else { return .disabled }
        let deadline = DispatchTime.now() + max(0, timeout)
        let outcome = Outcome()
        Self.queue.async {
            let remaining = deadline.uptimeNanoseconds.subtractingReportingOverflow(DispatchTime.now().uptimeNanoseconds)
            let answered = remaining.overflow || remaining.partialValue == 0
                ? -ETIMEDOUT : sd_notify_barrier(0, remaining.partialValue / 1000)
            let failures = Self.failures.withLock { failures in
                defer { failures = SendFailures() }
                return failures
            }
            let delivery: Delivery =
                if answered < 0 {
                    -answered == ETIMEDOUT ? .timedOut : .failed(count: failures.count + 1, call: "sd_notify_barrier", code: -answered)
                } else if let first = failures.first {
                    .failed(count: failures.count, call: first.call, code: first.code)
                } else {
                    .confirmed
                }
            outcome.delivery.withLock { $0 = delivery }
            outcome.done.signal()
        }
        guard outcome.done.wait(timeout: deadline) == .success else { return .timedOut }
        return outcome.delivery.withLock { $0 } ?? .timedOut
    }

    // MARK: Internals

    /// Send failures since the last barrier: the first one's call and errno, and how many.
    struct SendFailures {
        var count = 0
        var first: (call: String, code: Int32)?
    }

    static let failures = Mutex(SendFailures())

    /// A barrier's answer, handed from the queue to the waiting caller.
    private final class Outcome: Sendable {
        let delivery = Mutex<Delivery?>(nil)
        let done = DispatchSemaphore(value: 0)
    }

    /// Called on `queue` with what an sd_* call returned (a negative errno on failure).
    static func record(_ result: Int32, call: String) {
        guard result < 0 else { return }
        failures.withLock { failures in
            failures.count += 1
            if failures.first == nil { failures.first = (call, -result) }
        }
    }
}
