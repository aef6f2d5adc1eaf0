import Foundation
import GRDB
import StratusStore

/// The plain tables the store writes once (``SQLTables``), over SQLite's readers and its group-commit writer.
extension SQLiteStore: SQLTables {
    public var statementsRunInProcess: Bool { true }

    public var sqlDialect: any SQLDialect { SQLiteDialect() }

    /// One writer at a time takes positions in its transaction and commits them in that order.
    public var commitsInPositionOrder: Bool { true }

    public func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await read(statement: statement.rendered(in: SQLiteDialect()).sql) { db in try db.rows(statement) }
    }

    /// Every statement of `read` on one reader connection, in one step.
    public func read<Value>(_ read: SQLRead<Value>) async throws -> Value {
        try await self.read { db in try db.read(read) }
    }

    public func transaction(
        taking positions: Int64, _ make: @escaping @Sendable (_ firstPosition: Int64) -> [SQLFragment],
        then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        try await write { batch in
            let first = self.sequence.upcoming()
            self.sequence.advance(by: positions)
            var results: [[SQLRow]] = []
            for statement in make(first) { results.append(try batch.db.rows(statement)) }
            for event in try decide(results) { batch.emit(event) }
            return results
        }
    }

    /// The body runs in the caller's task while a job of the next group commit runs its statements on the writer,
    /// so the writer waits for the body: it must only run statements.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        try await StatementChannel.drive({ channel in
            try await body(SQLiteTransaction(channel: channel, sequence: self.sequence))
        }, job: { channel in
            try await write { batch in
                for event in try channel.serve(batch.db, batch: batch) { batch.emit(event) }
            }
        })
    }

    /// On a reader connection of GRDB's pool (not the caller's thread, which the body needs), in one read
    /// transaction.
    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLReading) async throws -> T) async throws -> T {
        try await StoreSpans.sql("snapshot", system: "sqlite") { try await snapshotOnReader(body) }
    }

    private func snapshotOnReader<T: Sendable>(_ body: @escaping @Sendable (any SQLReading) async throws -> T) async throws -> T {
        try await StatementChannel.drive({ channel in
            try await body(SQLiteReading(channel: channel))
        }, job: { channel in
            do {
                try await connectionUse.call { connected in
                    connected()
                    try await self.pool.read { db in _ = try channel.serve(db) }
                }
            } catch {
                throw StorageError.translating(error)
            }
        })
    }

    /// One writer at a time commits positions in order, so every committed position is settled and the body runs
    /// once, each statement at the latest commit on the calling thread: a later statement sees only changes with
    /// higher positions, so a body that reads a feed's figures before its rows (as the feeds do) never moves a token
    /// past a change it did not return.
    public func readSettled<T: Sendable>(
        _ body: @escaping @Sendable (any SQLReading) async throws -> (value: T, unsettled: Bool)
    ) async throws -> T {
        try await body(self).value
    }

    /// One group commit: SQLite's writes never hold other readers back.
    public func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]] {
        try await transaction(statements)
    }
}

/// The stores written once over ``SQLTables`` in `StratusStore` (`<Store>+SQLTables.swift`).
extension SQLiteStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore, AssetStore, ShareStore, NotificationStore, IndexBuildingStore, AccountStore, MailStore, SecretStore, WebhookStore, FunctionStore, JobStore, UsageStore, TelemetryStore, OperatorStore {}
