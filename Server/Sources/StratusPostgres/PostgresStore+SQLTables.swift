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

extension PostgresStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore {}
extension PostgresStore: AssetStore {}
