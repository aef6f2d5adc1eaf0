import GRDB
import Synchronization

/// The numbers that order every change (records, zones, participants) by commit, kept in the file.
///
/// SQLite lets one transaction write at a time, across every process that opens the file, so the number is
/// read when a write transaction begins (under its lock), advanced in memory by its jobs and stored before it
/// commits. Each commit's changes therefore come after every change committed before it, whichever process
/// wrote them, and a reader that has seen number N has seen every change up to N: change feeds neither skip
/// nor repeat. No counter row is contended: SQLite's write lock serializes these writers already.
final class ChangeSequence: Sendable {
    /// The last number handed out in the current transaction.
    private let last = Mutex<Int64>(0)
    /// The `meta` key that holds the last number committed.
    static let metaKey = "change_seq"

    /// Continues from the number stored in the file. Called at the start of each write transaction.
    func resume(_ db: Database) throws {
        let stored = try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [Self.metaKey]) ?? 0
        last.withLock { $0 = stored }
    }

    /// The next number.
    func next() -> Int64 {
        last.withLock { value in
            value += 1
            return value
        }
    }

    /// The number ``next()`` would hand out, for a plan that takes several at once (see ``advance(by:)``).
    func upcoming() -> Int64 {
        last.withLock { $0 + 1 }
    }

    /// Hands out `count` numbers at once, from ``upcoming()``.
    func advance(by count: Int64) {
        last.withLock { $0 += count }
    }

    /// Stores the last number handed out, in the transaction about to commit.
    func persist(_ db: Database) throws {
        // Cached: every group commit runs it, and parsing it each time cost as much as running it.
        try db.cachedStatement(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            .execute(arguments: [Self.metaKey, last.withLock { $0 }])
    }
}
