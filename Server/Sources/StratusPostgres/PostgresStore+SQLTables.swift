import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// The tables the store writes once (``SQLTables``), over PostgreSQL's connections.
extension PostgresStore: SQLTables {
    /// How this store's statements are written: with its position offset in the settled bound.
    var dialect: PostgresDialect { PostgresDialect(positionOffset: positionOffset) }

    public var statementsRunInProcess: Bool { false }

    public var sqlDialect: any SQLDialect { dialect }

    /// Concurrent writers commit in any order (``ChangePosition``).
    public var commitsInPositionOrder: Bool { false }

    public func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        try await read { connection in try await Self.rows(of: statement, dialect: self.dialect, connection: connection, logger: self.logger) }
    }

    /// Every statement of `read` on one connection.
    public func read<Value>(_ read: SQLRead<Value>) async throws -> Value {
        try await self.read { connection in
            try await read.run { statement in try await Self.rows(of: statement, dialect: self.dialect, connection: connection, logger: self.logger) }
        }
    }

    public func transaction(
        taking positions: Int64, _ make: @escaping @Sendable (_ firstPosition: Int64) -> [SQLFragment],
        then decide: @escaping @Sendable ([[SQLRow]]) throws -> [StoreEvent]
    ) async throws -> [[SQLRow]] {
        try await write { write in
            let first = positions > 0 ? try await write.positions(positions) : 0
            var results: [[SQLRow]] = []
            for statement in make(first) {
                results.append(try await Self.rows(of: statement, dialect: self.dialect, connection: write.connection, logger: write.logger))
            }
            for event in try decide(results) { write.emit(event) }
            return results
        }
    }

    /// Run again from the start, like record writes, when a concurrent writer got in its way (a unique index,
    /// a deadlock): see ``writeRetryingConflicts(_:)``.
    public func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLTransaction) async throws -> T) async throws -> T {
        let (value, afterCommit) = try await writeRetryingConflicts { write in
            let transaction = PostgresTransaction(write: write, dialect: self.dialect, schemas: self.schemas)
            let value = try await body(transaction)
            // A failed statement aborted the transaction even if the body caught its error: never commit then.
            if let failure = transaction.failure { throw failure }
            return (value, transaction.afterCommitActions)
        }
        for action in afterCommit { action() }
        return value
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
        try await connection.traced(query.sql) {
            var rows: [PostgresRow] = []
            for try await row in try await connection.query(query, logger: logger) { rows.append(row) }
            return try rows.sqlRows()
        }
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
extension PostgresStore: RoleStore, ServerKeyStore, SubscriptionStore, TransferStore, AssetStore, ShareStore, NotificationStore, IndexBuildingStore, AccountStore, MailStore, SecretStore, WebhookStore, FunctionStore, JobStore, UsageStore, TelemetryStore, OperatorStore {}

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
    private let schemas: PostgresSchemaCache
    private let lock = NSLock()
    private var firstFailure: StorageError?
    private var actions: [@Sendable () -> Void] = []

    init(write: PostgresWrite, dialect: PostgresDialect, schemas: PostgresSchemaCache) {
        self.write = write
        self.dialect = dialect
        self.schemas = schemas
    }

    /// What to run once this attempt has committed.
    var afterCommitActions: [@Sendable () -> Void] { lock.withLock { actions } }

    /// The first statement that failed, if any.
    var failure: StorageError? { lock.withLock { firstFailure } }

    func rows(_ statement: SQLFragment) async throws -> [SQLRow] {
        if let failure { throw failure }
        do {
            return try await PostgresStore.rows(of: statement, dialect: dialect, connection: write.connection, logger: write.logger)
        } catch {
            throw recorded(error)
        }
    }

    func emit(_ event: StoreEvent) {
        lock.withLock { write.emit(event) }
    }

    func positions(_ count: Int64) async throws -> Int64 {
        try await write.positions(count)
    }

    func afterCommit(_ action: @escaping @Sendable () -> Void) async throws {
        lock.withLock { actions.append(action) }
    }

    func schema(_ key: SchemaKey) async throws -> Schema {
        try await recordingFailure { try await self.write.schema(key, cache: self.schemas) }
    }

    /// Stored at commit only at the version this transaction read; another writer's change meanwhile runs it again.
    func setSchema(_ schema: Schema, for key: SchemaKey) async throws {
        _ = try await self.schema(key)
        write.setSchema(schema, for: key)
    }

    /// In one statement, whatever their number (``IndexEntryRows``).
    func insertIndexEntries(_ rows: [IndexEntryRow]) async throws {
        if let failure { throw failure }
        var entries = IndexEntryRows()
        for row in rows { entries.add(row.entry, zoneID: row.zoneID, type: row.recordType, recordID: row.recordID) }
        do {
            try await entries.insert(connection: write.connection, logger: write.logger)
        } catch {
            throw recorded(error)
        }
    }

    func applyPlan(_ plan: WritePlan, in zone: ZoneRow, caller: Caller) async throws {
        try await recordingFailure {
            let loader = PostgresSnapshotLoader(connection: write.connection, logger: write.logger, zone: zone, caller: caller)
            try await PostgresPlanApplier(write: write, loader: loader).apply(plan)
            if let schema = plan.schema {
                write.setSchema(schema, for: SchemaKey(containerID: zone.zone.database.containerID, environment: zone.zone.database.environment))
            }
        }
    }

    /// Runs a step on the connection; its failure ends the transaction like a failed statement's.
    private func recordingFailure<T>(_ step: () async throws -> T) async throws -> T {
        if let failure { throw failure }
        do {
            return try await step()
        } catch {
            throw recorded(error)
        }
    }

    /// The error as the store's, kept as the transaction's failure if it is the first.
    private func recorded(_ error: any Error) -> StorageError {
        let translated = StorageError.translating(error)
        lock.withLock { if firstFailure == nil { firstFailure = translated } }
        return translated
    }
}
