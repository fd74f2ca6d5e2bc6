import Dispatch
import Synchronization

/// A kind of log line a client (or a flood of them) can repeat at will: what `LogThrottle`
/// counts. A fixed set, so the throttle's table cannot grow with client input; the raw value
/// names the kind in summary lines (`LAYOUTD_THROTTLED`).
public enum LogKind: String, Sendable, CustomStringConvertible {
    case refusedRequest = "refused request"
    case slowRequest = "slow request"
    case refusedConnection = "refused connection"
    case acceptFailed = "accept failed"
    case connectionClosed = "connection closed"
    case lineTooLong = "line too long"
    case partialLineStalled = "partial line stalled"
    case writeStalled = "write stalled"
    case subscriberBehind = "subscriber behind"

    public var description: String { rawValue }
}

/// Rate limits log lines per kind with a token bucket: a burst of `burst` lines, then one line
/// per `interval` seconds. Lines over the rate are dropped and counted; the next line of that
/// kind let through carries the count, and so does a summary the caller is asked to write
/// once the next line would be allowed (so a flood that stops is still accounted for). A
/// summary costs a line like any other, so a kind never logs more than
/// `burst + elapsed / interval + 1` lines.
///
/// Thread-safe: the daemon logs from every connection's and view's queue.
public final class LogThrottle: Sendable {
    public struct Policy: Sendable, Equatable {
        public var burst: Int
        public var interval: Double

        public init(burst: Int, interval: Double) {
            self.burst = burst
            self.interval = interval
        }

        /// 10 lines at once, then one a second, per kind.
        public static let standard = Policy(burst: 10, interval: 1)
    }

    /// What to do with one line.
    public enum Decision: Sendable, Equatable {
        /// Write it; `suppressed` lines of its kind were dropped over the `seconds` before it.
        case write(suppressed: Int, seconds: Double)
        /// Drop it. With a delay: the first drop since the last summary, so call `summary(for:)`
        /// after that many seconds.
        case drop(summaryAfter: Double?)
    }

    public let policy: Policy
    private let clock: @Sendable () -> Double
    private let buckets = Mutex<[LogKind: Bucket]>([:])

    private struct Bucket {
        var tokens: Double
        var updated: Double
        var suppressed = 0
        var suppressedSince = 0.0
        var summaryPending = false

        mutating func refill(at now: Double, _ policy: Policy) {
            tokens = min(Double(policy.burst), tokens + max(0, now - updated) / policy.interval)
            updated = now
        }

        mutating func takeSuppressed(at now: Double) -> (Int, Double) {
            defer { suppressed = 0 }
            return (suppressed, suppressed == 0 ? 0 : now - suppressedSince)
        }
    }

    /// - Parameter clock: seconds on a monotonic clock (injectable for tests).
    public init(policy: Policy = .standard, clock: @escaping @Sendable () -> Double = LogThrottle.monotonicSeconds) {
        self.policy = policy
        self.clock = clock
    }

    public static let monotonicSeconds: @Sendable () -> Double = { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    // MARK: Deciding

    /// Takes a line of `kind`: written while the bucket has a token, else dropped and counted.
    ///
    /// - Complexity: O(1).
    public func admit(_ kind: LogKind) -> Decision {
        let now = clock()
        let policy = self.policy
        return buckets.withLock { buckets in
            var bucket = buckets[kind] ?? Bucket(tokens: Double(policy.burst), updated: now)
            defer { buckets[kind] = bucket }
            bucket.refill(at: now, policy)
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                let (suppressed, seconds) = bucket.takeSuppressed(at: now)
                return .write(suppressed: suppressed, seconds: seconds)
            }
            if bucket.suppressed == 0 { bucket.suppressedSince = now }
            bucket.suppressed += 1
            guard !bucket.summaryPending else { return .drop(summaryAfter: nil) }
            bucket.summaryPending = true
            return .drop(summaryAfter: (1 - bucket.tokens) * policy.interval)
        }
    }

    /// The lines of `kind` dropped since the last one written, over how many seconds, to be
    /// written as a summary line (which takes a token); nil when there are none.
    public func summary(for kind: LogKind) -> (suppressed: Int, seconds: Double)? {
        let now = clock()
        let policy = self.policy
        return buckets.withLock { buckets in
            guard var bucket = buckets[kind] else { return nil }
            defer { buckets[kind] = bucket }
            bucket.summaryPending = false
            guard bucket.suppressed > 0 else { return nil }
            bucket.refill(at: now, policy)
            // May go below zero when a line took the token first: the next line then waits,
            // which keeps the rate.
            bucket.tokens -= 1
            let (suppressed, seconds) = bucket.takeSuppressed(at: now)
            return (suppressed, seconds)
        }
    }
}
