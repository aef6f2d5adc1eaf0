import StratusStore

/// Limits the mail one address receives and the mail one client asks for, so that nobody floods a mailbox or
/// the SMTP server's reputation: at most ``perRecipient`` messages to an address and ``perClient`` requests from
/// a client address within ``window``. Counted in the store, so every node counts the same requests; a request
/// counts whether or not the address has an account, so the limits tell nothing either.
struct MailThrottle: Sendable {
    let store: any AccountStore
    var perRecipient = 5
    var perClient = 30
    /// Milliseconds: an hour.
    var window: Int64 = 3_600_000

    /// Counts a request for mail to `recipient` from `client`, or refuses it with the seconds to wait.
    /// - Throws: `THROTTLED` with `retryAfter` when a limit is reached.
    func admit(recipient: String, client: String, now: Int64 = Authenticator.now()) async throws {
        let keys = ["mail-to:" + recipient, "mail-from:" + client]
        let counted = try await store.signInFailures(keys: keys, now: now, window: window)
        for (key, limit) in zip(keys, [perRecipient, perClient]) {
            guard let count = counted[key], count.count >= limit else { continue }
            // Counts restart once a whole window passes without a request.
            let wait = max(1, Int((count.lastAt + window - now + 999) / 1000))
            throw APIError(.throttled, "too many messages were asked for; try again later", retryAfter: wait)
        }
        try await store.recordSignInFailures(keys: keys, now: now, window: window)
    }
}
