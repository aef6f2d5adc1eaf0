import Synchronization

/// Remembers verified web auth tokens and the sessions they name, so that a signed-in request costs
/// neither a storage read nor a signature check.
///
/// Only tokens whose signature was checked enter the cache. A sign-out reaches it as a store event
/// (``Authenticator``); entries are also re-checked against storage after ``timeToLive``.
package final class SessionCache: Sendable {
    package struct Entry: Sendable {
        package var sessionID: String
        package var userRecordName: String
        /// Milliseconds since 1970.
        package var expiresAt: Int64
        package var checkedAt: ContinuousClock.Instant
    }

    private struct State {
        package var entries: [String: Entry] = [:]
        /// The cached tokens of each session, so that a sign-out finds them without a scan.
        package var tokensBySession: [String: [String]] = [:]
        /// Bumped by every forget, so that a session read before a sign-out is not remembered after it.
        package var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let timeToLive: Duration
    private let capacity: Int

    package init(timeToLive: Duration = .seconds(60), capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The user a token was verified for, if it was seen alive recently and has not expired.
    package func userRecordName(ofToken token: String, now: Int64) -> String? {
        entry(ofToken: token, now: now)?.userRecordName
    }

    /// The session and user a token was verified for, if it was seen alive recently and has not expired.
    package func entry(ofToken token: String, now: Int64) -> Entry? {
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
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// Remembers a verified token, unless something was forgotten since `readAt` (a ``generation``): the
    /// session read may have ended since.
    package func remember(token: String, sessionID: String, userRecordName: String, expiresAt: Int64, readAt: UInt64? = nil) {
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
    package func forgetAll() {
        state.withLock { state in
            state.entries.removeAll()
            state.tokensBySession.removeAll()
            state.generation &+= 1
        }
    }

    /// Forgets every token of a session.
    package func forget(session id: String) {
        state.withLock { state in
            state.generation &+= 1
            for token in state.tokensBySession.removeValue(forKey: id) ?? [] {
                state.entries[token] = nil
            }
        }
    }
}
