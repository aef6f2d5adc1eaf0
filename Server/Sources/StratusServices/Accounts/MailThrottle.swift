import StratusStore

/// Limits the mail one address receives and the mail one client asks for, so that nobody floods a mailbox or
/// the SMTP server's reputation: at most ``perRecipient`` messages to an address and ``perClient`` requests from
/// a client address within ``window``. Counted in the store, so every node counts the same requests; a request
/// counts whether or not the address has an account, so the limits tell nothing either.
package struct MailThrottle: Sendable {
    package let store: any AccountStore
    package var perRecipient: Int = 5
    package var perClient: Int = 30
    /// Milliseconds: an hour.
    package var window: Int64 = 3_600_000

    /// Counts a request for mail to `recipient` from `client`, or refuses it with the seconds to wait.
    /// - Throws: `THROTTLED` with `retryAfter` when a limit is reached.
    package func admit(recipient: String, client: String, now: Int64 = ServerClock.now()) async throws {
        try await Self.admit(
            [("mail-to:" + recipient, perRecipient), ("mail-from:" + client, perClient)], window: window, store: store, now: now,
            refusal: "too many messages were asked for; try again later"
        )
    }

    /// Counts a request under each key, or refuses it with the seconds to wait when a key has reached its limit
    /// within `window` (counted in the store, for every node).
    /// - Throws: `THROTTLED` with `retryAfter` and `refusal` as the reason.
    package static func admit(_ limits: [(key: String, limit: Int)], window: Int64, store: any AccountStore, now: Int64, refusal: String) async throws {
        let keys = limits.map(\.key)
        let counted = try await store.signInFailures(keys: keys, now: now, window: window)
        for (key, limit) in limits {
            guard let count = counted[key], count.count >= limit else { continue }
            // Counts restart once a whole window passes without a request.
            let wait = max(1, Int((count.lastAt + window - now + 999) / 1000))
            throw ServiceError(.throttled, refusal, retryAfter: wait)
        }
        try await store.recordSignInFailures(keys: keys, now: now, window: window)
    }

    package init(store: any AccountStore, perRecipient: Int = 5, perClient: Int = 30, window: Int64 = 3_600_000) {
        self.store = store
        self.perRecipient = perRecipient
        self.perClient = perClient
        self.window = window
    }
}
