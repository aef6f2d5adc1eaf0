import Synchronization

/// Slows down guessing: after a few wrong passwords for one account, sign-in is refused with
/// `THROTTLED` for a time that doubles with each further failure.
final class SignInThrottle: Sendable {
    private struct Failures {
        var count: Int
        var last: ContinuousClock.Instant
    }

    /// Failures allowed before the first pause.
    let allowedFailures: Int
    /// Failures older than this are forgotten.
    let window: Duration
    private let failures = Mutex<[String: Failures]>([:])

    init(allowedFailures: Int = 5, window: Duration = .seconds(900)) {
        self.allowedFailures = allowedFailures
        self.window = window
    }

    /// Seconds the caller must wait before trying `key` again, or `nil` when it may try now.
    func retryAfter(for key: String, now: ContinuousClock.Instant = .now) -> Int? {
        failures.withLock { failures in
            guard let entry = failures[key] else { return nil }
            if now - entry.last > window {
                failures[key] = nil
                return nil
            }
            guard entry.count >= allowedFailures else { return nil }
            let pause = Self.pause(afterFailures: entry.count, allowed: allowedFailures)
            let elapsed = now - entry.last
            guard elapsed < pause else { return nil }
            let remaining = pause - elapsed
            return max(1, Int(remaining.components.seconds) + (remaining.components.attoseconds > 0 ? 1 : 0))
        }
    }

    func recordFailure(for key: String, now: ContinuousClock.Instant = .now) {
        failures.withLock { failures in
            var entry = failures[key] ?? Failures(count: 0, last: now)
            if now - entry.last > window { entry.count = 0 }
            entry.count += 1
            entry.last = now
            failures[key] = entry
            if failures.count > 100_000 { failures = failures.filter { now - $0.value.last <= window } }
        }
    }

    func recordSuccess(for key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    /// 1 s after the allowed failures, doubling up to 15 minutes.
    static func pause(afterFailures count: Int, allowed: Int) -> Duration {
        let exponent = min(max(0, count - allowed), 10)
        return .seconds(min(1 << exponent, 900))
    }
}
