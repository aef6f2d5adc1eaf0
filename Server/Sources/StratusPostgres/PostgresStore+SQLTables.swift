import Foundation
import PostgresNIO
import StratusStore

/// The plain tables the store writes once (``SQLTables``), over PostgreSQL's connections.
extension PostgresStore: SQLTables {
    public func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        let query = try PostgresQuery(statement)
        return try await read { connection in try await Self.rows(of: query, connection: connection, logger: self.logger) }
    }

    public func transaction(
        _ statements: [SQLFragment], then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        let queries = try statements.map(PostgresQuery.init)
        return try await write { write in
            var results: [[SQLRow]] = []
            for query in queries { results.append(try await Self.rows(of: query, connection: write.connection, logger: write.logger)) }
            for event in try decide(results) { write.emit(event) }
            return results
        }
    }

    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        try await write { write in
            let transaction = PostgresTransaction(write: write)
            let value = try await body(transaction)
            // A failed statement aborted the transaction even if the body caught its error: never commit then.
            if let failure = transaction.failure { throw failure }
            return value
        }
    }

    public func execute(_ statements: [SQLFragment]) async throws -> [[SQLRow]] {
        let queries = try statements.map(PostgresQuery.init)
        return try await writeUnpositioned { connection in
            var results: [[SQLRow]] = []
            for query in queries { results.append(try await Self.rows(of: query, connection: connection, logger: self.logger)) }
            return results
        }
    }

    private static func rows(of query: PostgresQuery, connection: PostgresConnection, logger: Logger) async throws -> [SQLRow] {
        var rows: [SQLRow] = []
        for try await row in try await connection.query(query, logger: logger) { rows.append(try SQLRow(row)) }
        return rows
    }
}

/// The stores written once over ``SQLTables`` in `StratusStore` (`<Store>+SQLTables.swift`).
extension PostgresStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore, AssetStore {}

/// The transaction a body drives on PostgreSQL: its statements run on the write's connection.
private final class PostgresTransaction: SQLTransaction, @unchecked Sendable {
    private let write: PostgresWrite
    private let lock = NSLock()
    private var firstFailure: (any Error)?

    init(write: PostgresWrite) {
        self.write = write
    }

    /// The first statement that failed, if any.
    var failure: (any Error)? { lock.withLock { firstFailure } }

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        if let failure { throw failure }
        do {
            var rows: [SQLRow] = []
            for try await row in try await write.connection.query(try PostgresQuery(statement), logger: write.logger) {
                rows.append(try SQLRow(row))
            }
            return rows
        } catch {
            lock.withLock { if firstFailure == nil { firstFailure = error } }
            throw error
        }
    }

    func emit(_ event: StoreEvent) {
        lock.withLock { write.emit(event) }
    }
}
