import Synchronization

/// Remembers which sessions exist, so that a signed-in request costs no storage read.
///
/// Entries are re-checked against storage after ``timeToLive`` seconds, so a sign-out on another
/// server node takes effect here within that time; on this node it takes effect at once.
final class SessionCache: Sendable {
    private struct Entry {
        var userRecordName: String
        var checkedAt: ContinuousClock.Instant
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let timeToLive: Duration
    private let capacity: Int

    init(timeToLive: Duration = .seconds(60), capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    /// The session's user, if the session was seen alive recently.
    func userRecordName(ofSession id: String) -> String? {
        let now = ContinuousClock.now
        return entries.withLock { entries in
            guard let entry = entries[id] else { return nil }
            guard now - entry.checkedAt < timeToLive else {
                entries[id] = nil
                return nil
            }
            return entry.userRecordName
        }
    }

    func remember(session id: String, userRecordName: String) {
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[id] = Entry(userRecordName: userRecordName, checkedAt: .now)
        }
    }

    func forget(session id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
