import StratusStore

/// Slows down password guessing without letting anyone lock an account out.
///
/// Failures are counted per account *and client address*: after a few wrong passwords from one address,
/// that address waits before trying the account again, for a time that doubles with each further failure,
/// while the account's owner signs in from anywhere else as usual. Failures are also counted per address
/// across every account, so one address cannot try a common password on many accounts (spraying).
///
/// The counts live in the store, so every server node sharing it counts the same attempts: an attacker
/// spreading guesses over N nodes gets no more of them than against one.
package struct SignInThrottle: Sendable {
    package let store: any AccountStore
    /// Wrong passwords one address may send for one account before it waits.
    package var allowedFailuresPerAccount: Int = 5
    /// Wrong passwords one address may send across all accounts before it waits.
    package var allowedFailuresPerAddress: Int = 30
    /// Failures further apart than this (milliseconds) start the count again.
    package var window: Int64 = 900_000
    /// The first pause (milliseconds), after the allowed failures; each further failure doubles it, up to 15 minutes.
    package var firstPause: Int64 = 5_000

    /// Seconds `address` must wait before trying `account` again, or `nil` when it may try now.
    package func retryAfter(account: String, address: String, now: Int64 = ServerClock.now()) async throws -> Int? {
        let keys = Self.keys(account: account, address: address)
        let failures = try await store.signInFailures(keys: [keys.account, keys.address], now: now, window: window)
        return [
            wait(after: failures[keys.account], allowed: allowedFailuresPerAccount, now: now),
            wait(after: failures[keys.address], allowed: allowedFailuresPerAddress, now: now),
        ].compactMap { $0 }.max()
    }

    package func recordFailure(account: String, address: String, now: Int64 = ServerClock.now()) async throws {
        let keys = Self.keys(account: account, address: address)
        try await store.recordSignInFailures(keys: [keys.account, keys.address], now: now, window: window)
    }

    /// Forgets the failures of this address on this account; its failures elsewhere still count.
    package func recordSuccess(account: String, address: String) async throws {
        try await store.forgetSignInFailures(key: Self.keys(account: account, address: address).account)
    }

    private static func keys(account: String, address: String) -> (account: String, address: String) {
        ("account:" + account + "|" + address, "address:" + address)
    }

    /// Whole seconds left of the pause `failures` earned, or `nil` when there is none.
    private func wait(after failures: SignInFailures?, allowed: Int, now: Int64) -> Int? {
        guard let failures, failures.count >= allowed else { return nil }
        let remaining = failures.lastAt + pause(afterFailures: failures.count, allowed: allowed) - now
        guard remaining > 0 else { return nil }
        return Int((remaining + 999) / 1000)
    }

    /// Milliseconds: `firstPause` after the allowed failures, doubling up to 15 minutes (or `firstPause`, if longer).
    package func pause(afterFailures count: Int, allowed: Int) -> Int64 {
        let exponent = Int64(min(max(0, count - allowed), 16))
        return max(firstPause, min(firstPause << exponent, 900_000))
    }

    package init(store: any AccountStore, allowedFailuresPerAccount: Int = 5, allowedFailuresPerAddress: Int = 30, window: Int64 = 900_000, firstPause: Int64 = 5_000) {
        self.store = store
        self.allowedFailuresPerAccount = allowedFailuresPerAccount
        self.allowedFailuresPerAddress = allowedFailuresPerAddress
        self.window = window
        self.firstPause = firstPause
    }
}
