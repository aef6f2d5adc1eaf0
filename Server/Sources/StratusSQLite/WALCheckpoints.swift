import GRDB
import GRDBSQLite
import Synchronization

/// Copies the write-ahead log back into the database file on the writer connection, between group commits, once
/// the log has grown past ``pages`` pages.
///
/// A checkpoint that runs beside the writer (from another connection) can never finish under steady writes:
/// frames keep arriving while it copies, so SQLite never starts the log over and the file grows for as long as the
/// writes go on. Writing to new blocks of a growing file makes ext4 (data=ordered) flush them at each journal
/// commit, and the writer waits on that I/O now and then: creates' p99 was 24 ms against 6 ms on tmpfs
/// (docs/benchmarks.md#creates-tail-latency-2026-11-27). Run on the writer, between commits, the checkpoint copies every frame
/// (nothing is appended meanwhile), so the next commit starts the log over and rewrites the same blocks. It runs
/// after the batch's callers are answered, so none of them waits for it.
final class WALCheckpoints: Sendable {
    /// The log's size, in pages, past which it is copied back: about 4 MB.
    static let pages = 1024

    /// Frames in the log after the latest commit, as SQLite reports them.
    private let frames = Atomic<Int>(0)
    /// The size at which the next checkpoint runs: past ``pages`` again after one that left frames behind
    /// (a reader still on an old snapshot), so that such a log is not checkpointed after every commit.
    private let nextAt = Atomic<Int>(WALCheckpoints.pages)

    /// Takes over the writer connection's commit hook, replacing SQLite's automatic checkpoint on it (its other
    /// connections never write, and keep theirs as a safety net).
    func install(on db: Database) {
        sqlite3_wal_hook(db.sqliteConnection, { context, _, _, frames in
            Unmanaged<WALCheckpoints>.fromOpaque(context!).takeUnretainedValue().frames.store(Int(frames), ordering: .relaxed)
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Checkpoints when the log has grown past the next size; called on the writer connection after a commit.
    func checkpointIfDue(_ db: Database) {
        let logged = frames.load(ordering: .relaxed)
        guard logged >= nextAt.load(ordering: .relaxed) else { return }
        guard let (log, copied) = try? db.checkpoint(.passive) else { return }
        nextAt.store(copied >= log ? Self.pages : logged + Self.pages, ordering: .relaxed)
    }
}
