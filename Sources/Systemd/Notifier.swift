import CSystemd
import Dispatch
import Glibc

/// The service manager's notification socket (`Type=notify`): READY, STATUS, RELOADING,
/// STOPPING and WATCHDOG messages. Every call is a no-op without NOTIFY_SOCKET.
public struct Notifier: Sendable {
    public let isEnabled: Bool

    public init() {
        isEnabled = getenv("NOTIFY_SOCKET") != nil
    }

    /// Messages go out in order from a queue of their own: sd_notify blocks while the
    /// receiver's queue is full, and that must never stall the daemon (or its shutdown). The
    /// fd store's messages (Notifier+FileDescriptorStore.swift) share it, so they keep their
    /// place among the others.
    static let queue = DispatchQueue(label: "layoutd.notify")

    /// Queues `lines` as one datagram.
    public func send(_ lines: [String]) {
        guard isEnabled else { return }
        let message = lines.joined(separator: "\n")
        Self.queue.async { Self.record(sd_notify(0, message), call: "sd_notify") }
    }

    /// Waits up to `timeout` seconds for queued messages to go out (before the process exits).
    public func flush(timeout: Double) {
        guard isEnabled else { return }
        let done = DispatchSemaphore(value: 0)
        Self.queue.async { done.signal() }
        _ = done.wait(timeout: .now() + timeout)
    }

    public func ready(status: String) { send(["READY=1", "STATUS=\(Self.clean(status))"]) }
    public func status(_ text: String) { send(["STATUS=\(Self.clean(text))"]) }
    public func stopping(status: String) { send(["STOPPING=1", "STATUS=\(Self.clean(status))"]) }
    public func watchdog() { send(["WATCHDOG=1"]) }

    /// RELOADING=1 with the monotonic clock in µs, as systemd expects before a reload; then
    /// `ready(status:)` when it is done.
    public func reloading() {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let microseconds = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        send(["RELOADING=1", "MONOTONIC_USEC=\(microseconds)"])
    }

    /// The watchdog interval when systemd (WATCHDOG_USEC, WATCHDOG_PID) asks for pings.
    public static func watchdogInterval() -> Double? {
        var microseconds: UInt64 = 0
        guard sd_watchdog_enabled(0, &microseconds) > 0, microseconds > 0 else { return nil }
        return Double(microseconds) / 1e6
    }

    /// A notification line cannot contain a newline.
    private static func clean(_ text: String) -> String {
        text.replacingNewlines()
    }
}

extension String {
    func replacingNewlines() -> String {
        String(map { $0.isNewline ? " " : $0 })
    }
}
