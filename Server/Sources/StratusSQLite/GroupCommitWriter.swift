import Foundation
import GRDB
import StratusModel
import StratusStore
import Synchronization

/// Runs write jobs through GRDB's single writer connection, many jobs per transaction.
///
/// Jobs that arrive while a transaction is being written wait and then share the next commit, so
/// concurrent writers pay for one commit (and, with ``SQLiteStore/Configuration/Durability/full``,
/// one fsync) between them instead of one each. Each job runs in its own savepoint: a job that throws
/// rolls back alone, and its caller gets its error.
final class GroupCommitWriter: Sendable {
    private struct Job: Sendable {
        /// Runs the job inside the batch transaction and keeps its outcome.
        let run: @Sendable (WriteBatch) -> Void
        /// Delivers the outcome once the batch has committed, or the commit error.
        let finish: @Sendable ((any Error)?) -> Void
    }

    private struct Queue {
        var pending: [Job] = []
        var flushScheduled = false
    }

    private let pool: DatabasePool
    private let schemas: SchemaCache
    private let sequence: ChangeSequence
    /// Called after a commit that wrote store events, so that they are delivered without waiting for a poll.
    private let eventsCommitted: @Sendable () -> Void
    private let queue = Mutex(Queue())
    private let checkpoints = WALCheckpoints()

    init(pool: DatabasePool, schemas: SchemaCache, sequence: ChangeSequence, eventsCommitted: @escaping @Sendable () -> Void) {
        self.pool = pool
        self.schemas = schemas
        self.sequence = sequence
        self.eventsCommitted = eventsCommitted
        let checkpoints = checkpoints
        try? pool.writeWithoutTransaction { db in checkpoints.install(on: db) }
    }

    /// Runs `body` in the next group commit and returns its result once that commit is durable.
    func write<T: Sendable>(_ body: @escaping @Sendable (WriteBatch) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let outcome = OutcomeBox<T>()
            let job = Job(
                run: { batch in
                    let schemaSnapshot = batch.schemas
                    let afterCommitCount = batch.afterCommit.count
                    let eventCount = batch.events.count
                    do {
                        var value: T?
                        try batch.db.withSavepoint(named: "job") {
                            value = try body(batch)
                            return true
                        }
                        outcome.result = value.map { .success($0) }
                    } catch {
                        batch.schemas = schemaSnapshot
                        batch.afterCommit.removeSubrange(afterCommitCount...)
                        batch.events.removeSubrange(eventCount...)
                        outcome.result = .failure(error)
                    }
                },
                finish: { commitError in
                    if let commitError {
                        continuation.resume(throwing: commitError)
                    } else if let result = outcome.result {
                        continuation.resume(with: result)
                    } else {
                        continuation.resume(throwing: StorageError(.internalFailure, "a write produced no result"))
                    }
                }
            )
            submit(job)
        }
    }

    private func submit(_ job: Job) {
        let mustSchedule = queue.withLock { queue in
            queue.pending.append(job)
            if queue.flushScheduled { return false }
            queue.flushScheduled = true
            return true
        }
        if mustSchedule {
            pool.asyncWriteWithoutTransaction { db in self.flush(db) }
        }
    }

    /// Runs every job that is waiting, in one transaction, on the writer connection.
    private func flush(_ db: Database) {
        let jobs = queue.withLock { queue in
            let jobs = queue.pending
            queue.pending = []
            queue.flushScheduled = false
            return jobs
        }
        guard !jobs.isEmpty else { return }
        let batch = WriteBatch(db: db, schemas: schemas)
        var commitError: (any Error)?
        do {
            var changedSchemas: [SchemaKey: Schema] = [:]
            var schemaVersion: Int64 = 0
            try db.inTransaction(.immediate) {
                // The write lock is held from here to the commit: no other process writes in between.
                try sequence.resume(db)
                schemaVersion = try schemas.synchronize(db: db)
                for job in jobs { job.run(batch) }
                changedSchemas = batch.changedSchemas()
                if !changedSchemas.isEmpty {
                    schemaVersion += 1
                    try batch.persist(changedSchemas, version: schemaVersion)
                }
                try batch.writeEvents()
                try sequence.persist(db)
                return .commit
            }
            if !changedSchemas.isEmpty { schemas.publish(changedSchemas, version: schemaVersion) }
            for action in batch.afterCommit { action() }
            if !batch.events.isEmpty { eventsCommitted() }
        } catch {
            commitError = StorageError.translating(error)
        }
        for job in jobs { job.finish(commitError) }
        checkpoints.checkpointIfDue(db)
    }
}

/// Holds one job's outcome between the writer running it and its caller resuming.
///
/// The writer sets `result` before it calls `finish`, and only `finish` reads it: the two never overlap.
private final class OutcomeBox<T: Sendable>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

/// What the jobs of one group commit share: the writer connection, the schemas as they grow, and the store
/// events the jobs emit.
///
/// Only the writer's queue touches it, one job after another.
final class WriteBatch: @unchecked Sendable {
    let db: Database
    /// Working copies of the schemas this batch has read or changed.
    var schemas: [SchemaKey: Schema] = [:]
    /// Work to do once the batch has committed (publishing in-memory state), dropped with a failed job.
    var afterCommit: [@Sendable () -> Void] = []
    /// Events to store with the commit (``emit(_:)``), dropped with a failed job.
    var events: [StoreEvent] = []
    private let published: SchemaCache

    init(db: Database, schemas: SchemaCache) {
        self.db = db
        self.published = schemas
    }

    /// The working schema of a container environment.
    func schema(_ key: SchemaKey) throws -> Schema {
        if let schema = schemas[key] { return schema }
        let schema = try published.schema(key, db: db)
        schemas[key] = schema
        return schema
    }

    /// The working schemas that differ from the published ones.
    func changedSchemas() -> [SchemaKey: Schema] {
        schemas.filter { key, schema in published.cached(key) != schema }
    }

    /// Stores changed schemas and the file's new schema version, and emits their events.
    func persist(_ changed: [SchemaKey: Schema], version: Int64) throws {
        for (key, schema) in changed {
            try SchemaCache.save(schema, for: key, db: db)
        }
        try db.execute(sql: "UPDATE meta SET value = ? WHERE key = 'schema_version'", arguments: [version])
        for containerID in Set(changed.keys.map(\.containerID)).sorted() {
            emit(.schemaChanged(containerID: containerID))
        }
    }

    /// Stores an event with this batch's commit; an event already emitted in the batch is not repeated.
    func emit(_ event: StoreEvent) {
        if !events.contains(event) { events.append(event) }
    }

    /// Writes the emitted events, in order, before the commit.
    func writeEvents() throws {
        guard !events.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let insert = try db.cachedStatement(sql: "INSERT INTO store_events (body, created_at) VALUES (?, ?)")
        for event in events {
            try insert.execute(arguments: [event.encoded, now])
        }
    }
}
