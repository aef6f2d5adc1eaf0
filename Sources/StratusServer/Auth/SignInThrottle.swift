import Synchronization

/// Slows down password guessing without letting anyone lock an account out.
///
/// Failures are counted per account *and client address*: after a few wrong passwords from one address,
/// that address waits before trying the account again, for a time that doubles with each further failure,
/// while the account's owner signs in from anywhere else as usual. Failures are also counted per address
/// across every account, so one address cannot try a common password on many accounts (spraying).
final class SignInThrottle: Sendable {
    /// Wrong passwords one address may send for one account before it waits.
    let allowedFailuresPerAccount: Int
    /// Wrong passwords one address may send across all accounts before it waits.
    let allowedFailuresPerAddress: Int
    private let perAccount: FailureCounter
    private let perAddress: FailureCounter

    init(allowedFailuresPerAccount: Int = 5, allowedFailuresPerAddress: Int = 30, window: Duration = .seconds(900)) {
        self.allowedFailuresPerAccount = allowedFailuresPerAccount
        self.allowedFailuresPerAddress = allowedFailuresPerAddress
        perAccount = FailureCounter(allowedFailures: allowedFailuresPerAccount, window: window)
        perAddress = FailureCounter(allowedFailures: allowedFailuresPerAddress, window: window)
    }

    /// Seconds `address` must wait before trying `account` again, or `nil` when it may try now.
    func retryAfter(account: String, address: String, now: ContinuousClock.Instant = .now) -> Int? {
        let waits = [perAccount.retryAfter(for: account + "|" + address, now: now), perAddress.retryAfter(for: address, now: now)]
        return waits.compactMap { $0 }.max()
    }

    func recordFailure(account: String, address: String, now: ContinuousClock.Instant = .now) {
        perAccount.recordFailure(for: account + "|" + address, now: now)
        perAddress.recordFailure(for: address, now: now)
    }

    /// Forgets the failures of this address on this account; its failures elsewhere still count.
    func recordSuccess(account: String, address: String) {
        perAccount.forget(account + "|" + address)
    }
}

/// Failures by key in a sliding window, and the pause they have earned.
private final class FailureCounter: Sendable {
    private struct Failures {
        var count: Int
        var last: ContinuousClock.Instant
    }

    let allowedFailures: Int
    /// Failures older than this are forgotten.
    let window: Duration
    private let failures = Mutex<[String: Failures]>([:])

    init(allowedFailures: Int, window: Duration) {
        self.allowedFailures = allowedFailures
        self.window = window
    }

    func retryAfter(for key: String, now: ContinuousClock.Instant) -> Int? {
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

    func recordFailure(for key: String, now: ContinuousClock.Instant) {
        failures.withLock { failures in
            var entry = failures[key] ?? Failures(count: 0, last: now)
            if now - entry.last > window { entry.count = 0 }
            entry.count += 1
            entry.last = now
            failures[key] = entry
            if failures.count > 100_000 { failures = failures.filter { now - $0.value.last <= window } }
        }
    }

    func forget(_ key: String) {
        _ = failures.withLock { $0.removeValue(forKey: key) }
    }

    /// 5 s after the allowed failures, doubling up to 15 minutes.
    static func pause(afterFailures count: Int, allowed: Int) -> Duration {
        let exponent = min(max(0, count - allowed), 8)
        return .seconds(min(5 << exponent, 900))
    }
}
