import Foundation
import GRDB
import StratusStore

/// Carries the statements of a transaction body (``SQLTables/transaction(_:)``) to the writer's thread, which runs
/// them in its transaction, and their rows back.
///
/// The body runs in the caller's task; the writer's job waits on the channel, runs each statement as it comes,
/// and ends when the body does. A failed statement ends the transaction: later statements fail with the same
/// error, and the job rolls back.
final class WriterChannel: @unchecked Sendable {
    /// A statement waiting for the writer, and where its rows go.
    struct Request {
        var sql: String
        var values: [SQLValue]
        var answer: CheckedContinuation<[SQLRow], any Error>
    }

    /// What the writer does next.
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
    /// Set once the writer is gone (committed, rolled back, or never started): statements fail with it.
    private var closed: (any Error)?
    /// The first statement that failed.
    private var failure: (any Error)?

    /// Sends a statement to the writer and waits for its rows.
    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        let (sql, values) = statement.rendered(in: SQLiteDialect())
        return try await withCheckedThrowingContinuation { continuation in
            condition.lock()
            defer { condition.unlock() }
            if let error = closed ?? failure {
                continuation.resume(throwing: error)
                return
            }
            requests.append(Request(sql: sql, values: values, answer: continuation))
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

    /// On the writer's thread: waits for the next statement, or for the body's end.
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

    /// On the writer's thread: runs one statement and answers it.
    func run(_ request: Request, db: Database) {
        do {
            let rows = try Row.fetchAll(db.cachedStatement(sql: request.sql), arguments: StatementArguments(request.values))
            request.answer.resume(returning: rows.map(SQLRow.init))
        } catch {
            condition.withLock { if failure == nil { failure = error } }
            request.answer.resume(throwing: error)
        }
    }

    /// The writer is gone: statements sent from now on, and any still waiting, fail with `error`.
    func close(_ error: any Error) {
        let waiting = condition.withLock {
            closed = error
            defer { requests = [] }
            return requests
        }
        for request in waiting { request.answer.resume(throwing: error) }
    }
}

/// The transaction a body drives on SQLite, through a ``WriterChannel``.
struct SQLiteTransaction: SQLTransaction {
    let channel: WriterChannel

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await channel.rows(statement)
    }

    func emit(_ event: StoreEvent) {
        channel.emit(event)
    }
}
