import Foundation
import GRDB
import StratusStore

/// The plain tables the store writes once (``SQLTables``), over SQLite's readers and its group-commit writer.
extension SQLiteStore: SQLTables {
    public func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        let (sql, values) = statement.rendered(in: SQLiteDialect())
        return try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: sql), arguments: StatementArguments(values)).map(SQLRow.init)
        }
    }

    public func transaction(
        _ statements: [SQLFragment], then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        let rendered = statements.map { $0.rendered(in: SQLiteDialect()) }
        return try await write { batch in
            var results: [[SQLRow]] = []
            for (sql, values) in rendered {
                results.append(try Row.fetchAll(batch.db.cachedStatement(sql: sql), arguments: StatementArguments(values)).map(SQLRow.init))
            }
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
                for event in try channel.serve(batch.db) { batch.emit(event) }
            }
        })
    }

    /// On a reader connection of GRDB's pool (not the caller's thread, which the body needs), in one read
    /// transaction.
    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLReading) async throws -> T) async throws -> T {
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

    /// One writer at a time: every committed position is settled, and the body runs once.
    public func readSettled<T: Sendable>(
        _ body: @escaping @Sendable (any SQLReading) async throws -> (value: T, unsettled: Bool)
    ) async throws -> T {
        try await snapshot { reading in try await body(reading).value }
    }

    /// One group commit: SQLite's writes never hold other readers back.
    public func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]] {
        try await transaction(statements)
    }
}

extension SQLRow {
    /// A row as SQLite stores it: integers (booleans too), reals, text, blobs and `NULL`.
    init(_ row: Row) {
        var values: [String: SQLValue] = [:]
        for (column, value) in row {
            switch value.storage {
            case .null: values[column] = .null
            case .int64(let number): values[column] = .integer(number)
            case .double(let number): values[column] = .double(number)
            case .string(let text): values[column] = .text(text)
            case .blob(let bytes): values[column] = .bytes(Array(bytes))
            }
        }
        self.init(values)
    }
}

/// The stores written once over ``SQLTables`` in `StratusStore` (`<Store>+SQLTables.swift`).
extension SQLiteStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore, AssetStore, ShareStore {}
