import Synchronization

/// Remembers verified web auth tokens and the sessions they name, so that a signed-in request costs
/// neither a storage read nor a signature check.
///
/// Only tokens whose signature was checked enter the cache. A sign-out reaches it as a store event
/// (``Authenticator``); entries are also re-checked against storage after ``timeToLive``.
final class SessionCache: Sendable {
    struct Entry: Sendable {
        var sessionID: String
        var userRecordName: String
        /// Milliseconds since 1970.
        var expiresAt: Int64
        var checkedAt: ContinuousClock.Instant
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// The cached tokens of each session, so that a sign-out finds them without a scan.
        var tokensBySession: [String: [String]] = [:]
        /// Bumped by every forget, so that a session read before a sign-out is not remembered after it.
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let timeToLive: Duration
    private let capacity: Int

    init(timeToLive: Duration = .seconds(60), capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The user a token was verified for, if it was seen alive recently and has not expired.
    func userRecordName(ofToken token: String, now: Int64) -> String? {
        entry(ofToken: token, now: now)?.userRecordName
    }

    /// The session and user a token was verified for, if it was seen alive recently and has not expired.
    func entry(ofToken token: String, now: Int64) -> Entry? {
        let instant = ContinuousClock.now
        return state.withLock { state in
            guard let entry = state.entries[token] else { return nil }
            guard instant - entry.checkedAt < timeToLive, entry.expiresAt > now else {
                state.entries[token] = nil
                state.tokensBySession[entry.sessionID]?.removeAll { $0 == token }
                return nil
            }
            return entry
        }
    }

    /// Where forgets stand now; pass it to ``remember(token:sessionID:userRecordName:expiresAt:readAt:)`` for a
    /// session read from storage after this.
    var generation: UInt64 { state.withLock { $0.generation } }

    /// Remembers a verified token, unless something was forgotten since `readAt` (a ``generation``): the
    /// session read may have ended since.
    func remember(token: String, sessionID: String, userRecordName: String, expiresAt: Int64, readAt: UInt64? = nil) {
        state.withLock { state in
            if let readAt, readAt != state.generation { return }
            if state.entries.count >= capacity {
                state.entries.removeAll(keepingCapacity: true)
                state.tokensBySession.removeAll(keepingCapacity: true)
            }
            if state.entries.updateValue(
                Entry(sessionID: sessionID, userRecordName: userRecordName, expiresAt: expiresAt, checkedAt: .now), forKey: token
            ) == nil {
                state.tokensBySession[sessionID, default: []].append(token)
            }
        }
    }

    /// Forgets every token.
    func forgetAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.tokensBySession.removeAll()
            state.generation &+= 1
        }
    }

    /// Forgets every token of a session.
    func forget(session id: String) {
        state.withLock { state in
            state.generation &+= 1
            for token in state.tokensBySession.removeValue(forKey: id) ?? [] {
                state.entries[token] = nil
            }
        }
    }
}
