import Synchronization

/// Remembers verified web auth tokens and the sessions they name, so that a signed-in request costs
/// neither a storage read nor a signature check.
///
/// Only tokens whose signature was checked enter the cache. Entries are re-checked against storage
/// after ``timeToLive``, so a sign-out on another server node takes effect here within that time; on
/// this node it takes effect at once.
final class SessionCache: Sendable {
    struct Entry: Sendable {
        var sessionID: String
        var userRecordName: String
        /// Milliseconds since 1970.
        var expiresAt: Int64
        var checkedAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let timeToLive: Duration
    private let capacity: Int

    init(timeToLive: Duration = .seconds(60), capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The user a token was verified for, if it was seen alive recently and has not expired.
    func userRecordName(ofToken token: String, now: Int64) -> String? {
        let instant = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[token] else { return nil }
            guard instant - entry.checkedAt < timeToLive, entry.expiresAt > now else {
                entries[token] = nil
                return nil
            }
            return entry.userRecordName
        }
    }

    func remember(token: String, sessionID: String, userRecordName: String, expiresAt: Int64) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[token] = Entry(sessionID: sessionID, userRecordName: userRecordName, expiresAt: expiresAt, checkedAt: .now)
        }
    }

    /// Forgets every token of a session.
    func forget(session id: String) {
        entries.withLock { entries in
            entries = entries.filter { $0.value.sessionID != id }
        }
    }
}
