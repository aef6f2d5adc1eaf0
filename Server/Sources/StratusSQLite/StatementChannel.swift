import Foundation
import GRDB
import StratusModel
import StratusStore

/// Carries the statements of a body that drives a transaction or a read (``SQLTables/transaction(_:)``,
/// ``SQLTables/snapshot(_:)``) to the thread that holds the connection, which runs them in its transaction, and
/// their rows back.
///
/// The body runs in the caller's task; the connection's job waits on the channel, runs each step as it comes,
/// and ends when the body does. A failed statement ends the transaction: later statements fail with the same
/// error, and the job rolls back.
final class StatementChannel: @unchecked Sendable {
    /// Work waiting for the connection: runs on its thread (with the group commit's batch when it is the
    /// writer's) and answers the body; or fails without running.
    struct Request {
        var run: (Database, WriteBatch?) -> Void
        var fail: (any Error) -> Void
    }

    /// What the connection's job does next.
    enum Step {
        case run(Request)
        /// The body returned: store these events and commit.
        case commit([StoreEvent])
        /// The body threw, or a statement failed: roll back.
        case rollBack(any Error)
    }

    private let condition = NSCondition()
    private var requests: [Request] = []
    private var events: [StoreEvent] = []
    private var ended: Result<Void, any Error>?
    /// Set once the job is gone (committed, rolled back, or never started): statements fail with it.
    private var closed: (any Error)?
    /// The first statement that failed.
    private var failure: StorageError?

    /// Sends a statement to the connection and waits for its rows.
    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await perform { db, _ in try db.rows(statement) }
    }

    /// Runs `work` on the connection's thread, in its transaction, and waits for its value. Its error, as a
    /// ``StorageError``, ends the transaction.
    func perform<T: Sendable>(_ work: @escaping (Database, WriteBatch?) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let request = Request(
                run: { [self] db, batch in
                    do {
                        continuation.resume(returning: try work(db, batch))
                    } catch {
                        let translated = StorageError.translating(error)
                        // Recorded before the body hears of it, so that nothing it sends next runs.
                        condition.withLock { if failure == nil { failure = translated } }
                        continuation.resume(throwing: translated)
                    }
                },
                fail: { continuation.resume(throwing: $0) }
            )
            condition.lock()
            defer { condition.unlock() }
            if let error = closed ?? failure {
                request.fail(error)
                return
            }
            requests.append(request)
            condition.signal()
        }
    }

    func emit(_ event: StoreEvent) {
        condition.withLock { events.append(event) }
    }

    /// The body is done: `error` when it threw.
    func end(_ error: (any Error)?) {
        condition.withLock {
            ended = error.map { .failure($0) } ?? .success(())
            condition.signal()
        }
    }

    /// On the connection's thread: waits for the next step, or for the body's end.
    func next() -> Step {
        condition.lock()
        defer { condition.unlock() }
        while requests.isEmpty && ended == nil { condition.wait() }
        if !requests.isEmpty { return .run(requests.removeFirst()) }
        switch ended {
        case .failure(let error)?: return .rollBack(error)
        default: return failure.map { .rollBack($0) } ?? .commit(events)
        }
    }

    /// Runs the connection's side until the body ends: each step, then the body's outcome.
    /// - Parameter batch: the group commit's batch, on the writer.
    /// - Returns: the events to store with the commit.
    /// - Throws: the body's error, or the first failed statement's.
    func serve(_ db: Database, batch: WriteBatch? = nil) throws -> [StoreEvent] {
        while true {
            switch next() {
            case .run(let request): request.run(db, batch)
            case .commit(let events): return events
            case .rollBack(let error): throw error
            }
        }
    }

    /// The job is gone: statements sent from now on, and any still waiting, fail with `error`.
    func close(_ error: any Error) {
        let waiting = condition.withLock {
            closed = error
            defer { requests = [] }
            return requests
        }
        for request in waiting { request.fail(error) }
    }

    /// Runs `body` in the caller's task while `job` serves the channel on the connection's thread (passing it
    /// to ``serve(_:)``), and returns the body's value once the job has returned.
    static func drive<T: Sendable>(
        _ body: @escaping @Sendable (StatementChannel) async throws -> T,
        job: (StatementChannel) async throws -> Void
    ) async throws -> T {
        let channel = StatementChannel()
        async let value: T = {
            do {
                let value = try await body(channel)
                channel.end(nil)
                return value
            } catch {
                channel.end(error)
                throw error
            }
        }()
        do {
            try await job(channel)
        } catch {
            channel.close(error)
            _ = try? await value
            throw error
        }
        channel.close(StorageError(.internalFailure, "the transaction has ended"))
        return try await value
    }
}

/// The transaction a body drives on SQLite, through a ``StatementChannel`` to the group-commit writer's job.
struct SQLiteTransaction: SQLTransaction {
    let channel: StatementChannel
    let sequence: ChangeSequence

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await channel.rows(statement)
    }

    func emit(_ event: StoreEvent) {
        channel.emit(event)
    }

    /// Taken on the writer's thread, inside its transaction, where the change sequence is current.
    func positions(_ count: Int64) async throws -> Int64 {
        let sequence = sequence
        return try await channel.perform { _, _ in
            let first = sequence.upcoming()
            sequence.advance(by: count)
            return first
        }
    }

    func afterCommit(_ action: @escaping @Sendable () -> Void) async throws {
        try await channel.perform { _, batch in try Self.writing(batch).afterCommit.append(action) }
    }

    func schema(_ key: SchemaKey) async throws -> Schema {
        try await channel.perform { _, batch in try Self.writing(batch).schema(key) }
    }

    /// Published once the group commit has committed, like a record write's.
    func setSchema(_ schema: Schema, for key: SchemaKey) async throws {
        try await channel.perform { _, batch in try Self.writing(batch).schemas[key] = schema }
    }

    func insertIndexEntries(_ rows: [IndexEntryRow]) async throws {
        guard !rows.isEmpty else { return }
        try await channel.perform { db, _ in
            let insert = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO field_index (zone_id, type, field, kind, value, extra, record_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
            )
            for row in rows {
                let entry = row.entry
                try insert.execute(arguments: [
                    row.zoneID, row.recordType, entry.field, entry.kind.rawValue, entry.key.databaseValue, entry.extra, row.recordID,
                ])
            }
        }
    }

    func applyPlan(_ plan: WritePlan, in zone: ZoneRow, caller: Caller) async throws {
        try await channel.perform { db, batch in
            var applier = PlanApplier(db: db, loader: SnapshotLoader(db: db, zone: zone, caller: caller))
            try applier.apply(plan)
            if let schema = plan.schema {
                try Self.writing(batch).schemas[SchemaKey(containerID: zone.zone.database.containerID, environment: zone.zone.database.environment)] = schema
            }
        }
    }

    /// The group commit's batch, which a transaction's steps always have.
    private static func writing(_ batch: WriteBatch?) throws -> WriteBatch {
        guard let batch else { throw StorageError(.internalFailure, "a transaction step ran outside the writer") }
        return batch
    }
}

/// A read a body drives on SQLite, through a ``StatementChannel`` to a reader connection's read transaction.
struct SQLiteReading: SQLReading {
    let channel: StatementChannel

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await channel.rows(statement)
    }
}
