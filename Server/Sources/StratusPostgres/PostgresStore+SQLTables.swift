import Foundation
import PostgresNIO
import StratusStore

/// The tables the store writes once (``SQLTables``), over PostgreSQL's connections.
extension PostgresStore: SQLTables {
    /// How this store's statements are written: with its position offset in the settled bound.
    var dialect: PostgresDialect { PostgresDialect(positionOffset: positionOffset) }

    public func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await read { connection in try await Self.rows(of: statement, dialect: self.dialect, connection: connection, logger: self.logger) }
    }

    public func transaction(
        _ statements: [SQLFragment], then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        return try await write { write in
            var results: [[SQLRow]] = []
            for statement in statements {
                results.append(try await Self.rows(of: statement, dialect: self.dialect, connection: write.connection, logger: write.logger))
            }
            for event in try decide(results) { write.emit(event) }
            return results
        }
    }

    /// Run again from the start, like record writes, when a concurrent writer got in its way (a unique index,
    /// a deadlock): see ``writeRetryingConflicts(_:)``.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        try await writeRetryingConflicts { write in
            let transaction = PostgresTransaction(write: write, dialect: self.dialect)
            let value = try await body(transaction)
            // A failed statement aborted the transaction even if the body caught its error: never commit then.
            if let failure = transaction.failure { throw failure }
            return value
        }
    }

    /// In one repeatable-read, read-only transaction.
    public func snapshot<T: Sendable>(_ body: @escaping @Sendable (any SQLReading) async throws -> T) async throws -> T {
        try await read { connection in
            try await connection.withTransaction(logger: self.logger) { transaction in
                try await transaction.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
                return try await body(PostgresReading(connection: transaction, logger: self.logger, dialect: self.dialect))
            }
        }
    }

    public func readSettled<T: Sendable>(
        _ body: @escaping @Sendable (any SQLReading) async throws -> (value: T, unsettled: Bool)
    ) async throws -> T {
        try await readSettled { connection in
            try await body(PostgresReading(connection: connection, logger: self.logger, dialect: self.dialect))
        }
    }

    public func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]] {
        try await writeUnpositioned { connection in
            var results: [[SQLRow]] = []
            for statement in statements {
                results.append(try await Self.rows(of: statement, dialect: self.dialect, connection: connection, logger: self.logger))
            }
            return results
        }
    }

    static func rows(of query: PostgresQuery, connection: PostgresConnection, logger: Logger) async throws -> [SQLRow] {
        var rows: [PostgresRow] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
        return try rows.sqlRows()
    }

    /// The rows of a statement the store wrote; one that binds values is prepared (``StatementShapes``), so that
    /// PostgreSQL plans it once per connection.
    static func rows(of statement: SQLFragment, dialect: PostgresDialect, connection: PostgresConnection, logger: Logger) async throws -> [SQLRow] {
        let (sql, values) = statement.rendered(in: dialect)
        let (bindings, types) = try PostgresQuery.bindings(values)
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        if values.isEmpty { return try await rows(of: query, connection: connection, logger: logger) }
        return try await connection.rows(preparing: query, types: types, logger: logger).sqlRows()
    }
}

/// The stores written once over ``SQLTables`` in `StratusStore` (`<Store>+SQLTables.swift`).
extension PostgresStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore, AssetStore, ShareStore, NotificationStore {}

/// Statements on one connection, outside a write.
struct PostgresReading: SQLReading {
    let connection: PostgresConnection
    let logger: Logger
    let dialect: PostgresDialect

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        do {
            return try await PostgresStore.rows(of: statement, dialect: dialect, connection: connection, logger: logger)
        } catch {
            throw StorageError.translating(error)
        }
    }
}

/// The transaction a body drives on PostgreSQL: its statements run on the write's connection.
final class PostgresTransaction: SQLTransaction, @unchecked Sendable {
    private let write: PostgresWrite
    private let dialect: PostgresDialect
    private let lock = NSLock()
    private var firstFailure: StorageError?

    init(write: PostgresWrite, dialect: PostgresDialect) {
        self.write = write
        self.dialect = dialect
    }

    /// The first statement that failed, if any.
    var failure: StorageError? { lock.withLock { firstFailure } }

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        if let failure { throw failure }
        do {
            return try await PostgresStore.rows(of: statement, dialect: dialect, connection: write.connection, logger: write.logger)
        } catch {
            let translated = StorageError.translating(error)
            lock.withLock { if firstFailure == nil { firstFailure = translated } }
            throw translated
        }
    }

    func emit(_ event: StoreEvent) {
        lock.withLock { write.emit(event) }
    }

    func positions(_ count: Int64) async throws -> Int64 {
        try await write.positions(count)
    }
}
