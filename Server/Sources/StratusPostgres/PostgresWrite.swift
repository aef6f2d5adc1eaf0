import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// One write transaction: its connection, the change positions it hands out, and the store events it emits.
///
/// Used by one task at a time, inside ``PostgresStore/write(_:)``.
final class PostgresWrite {
    let connection: PostgresConnection
    let logger: Logger
    private let positionOffset: Int64
    /// The next position to hand out, once the transaction's id is known.
    private var nextPosition: Int64?
    private var lastPosition: Int64 = 0
    /// Events to store with the commit (``emit(_:)``), each once, in order.
    private(set) var events: [StoreEvent] = []

    init(connection: PostgresConnection, logger: Logger, positionOffset: Int64) {
        self.connection = connection
        self.logger = logger
        self.positionOffset = positionOffset
    }

    /// Sets the transaction's first change position, read by a statement that also did other work.
    func startPositions(at base: Int64) {
        guard nextPosition == nil else { return }
        nextPosition = base
        lastPosition = base - 1 + ChangePosition.maximumPerTransaction
    }

    /// The position ``positions(_:)`` would hand out next, for a plan that takes several at once.
    func upcomingPosition() async throws -> Int64 {
        let first = try await positions(0)
        return first
    }

    /// Hands out `count` consecutive change positions and returns the first.
    /// - Throws: ``StorageError/Code/limitExceeded`` past ``ChangePosition/maximumPerTransaction`` in one transaction.
    func positions(_ count: Int64 = 1) async throws -> Int64 {
        if nextPosition == nil {
            let bases: [Int64] = try await connection.rows(TransactionBase.self, bindings(positionOffset), as: Int64.self, logger: logger)
            startPositions(at: bases.first ?? 0)
        }
        let first = nextPosition!
        guard first + count - 1 <= lastPosition else {
            throw StorageError(.limitExceeded, "one write may change at most \(ChangePosition.maximumPerTransaction) records, zones and participants")
        }
        nextPosition = first + count
        return first
    }

    /// Working copies of the schemas this transaction read or changed, with the version each was read at.
    var schemas: [SchemaKey: (schema: Schema, version: Int64)] = [:]
    /// The schemas this transaction changed.
    var changedSchemas: Set<SchemaKey> = []

    /// Stores an event with this transaction's commit; one emitted already is not repeated.
    func emit(_ event: StoreEvent) {
        if !events.contains(event) { events.append(event) }
    }

    /// Writes the emitted events and announces them to every node, at commit.
    func storeEvents() async throws {
        guard !events.isEmpty else { return }
        let first = try await positions(Int64(events.count))
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let positions = (0..<Int64(events.count)).map { first + $0 }
        try await connection.run(
            """
            INSERT INTO store_events (position, body, created_at)
            SELECT p, b, \(now) FROM unnest(\(positions)::bigint[], \(events.map(\.encoded))::text[]) AS e(p, b)
            """,
            logger: logger
        )
        try await connection.run("SELECT pg_notify('stratus_events', '')", logger: logger)
    }
}

private func bindings(_ values: Int64...) -> PostgresBindings {
    var bindings = PostgresBindings()
    for value in values { bindings.append(value) }
    return bindings
}

extension PostgresConnection {
    /// Runs `body`, one statement's round trip with every row read, in a span of its own when the request is
    /// traced (docs/operations.md#traces).
    func traced<T>(_ sql: @autoclosure () -> String, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T) async throws -> T {
        try await StoreSpans.sql(system: "postgresql", statement: sql(), isolation: isolation, body)
    }

    /// Runs a statement and reads every row it returns, discarding them.
    func run(_ query: PostgresQuery, logger: Logger) async throws {
        try await traced(query.sql) {
            for try await _ in try await self.query(query, logger: logger) {}
        }
    }

    /// Every row of a one-column result.
    func all<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: T.Type, logger: Logger) async throws -> [T] {
        try await traced(query.sql) {
            var values: [T] = []
            for try await value in try await self.query(query, logger: logger).decode(T.self) {
                values.append(value)
            }
            return values
        }
    }

    /// Every row of a result, as tuples.
    func rows<each Column: PostgresDecodable & Sendable>(
        _ query: PostgresQuery, as types: (repeat each Column).Type, logger: Logger
    ) async throws -> [(repeat each Column)] {
        try await traced(query.sql) {
            var rows: [(repeat each Column)] = []
            for try await row in try await self.query(query, logger: logger).decode((repeat each Column).self) {
                rows.append(row)
            }
            return rows
        }
    }

    /// How many rows a statement returns (an `UPDATE ... RETURNING 1` says how many rows it changed).
    func count(_ query: PostgresQuery, logger: Logger) async throws -> Int {
        try await traced(query.sql) {
            var count = 0
            for try await _ in try await self.query(query, logger: logger) { count += 1 }
            return count
        }
    }
}

/// The first change position of the current transaction (see ``ChangePosition``).
private enum TransactionBase: PreparedText {
    static let name = "transaction_base"
    static let sql = ChangePosition.transactionBaseSQL
}
