import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: RecordStore {
    public func schema(containerID: String, environment: Environment) async throws -> Schema {
        let key = SchemaKey(containerID: containerID, environment: environment)
        if let cached = schemas.cached(key) { return cached.schema }
        return try await read { connection in try await self.schemas.load(key, connection: connection, logger: self.logger).schema }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws -> [RecordOperationResult] {
        try await StoreSpans.modifyRecords(batch) { try await apply(batch) }
    }

    private func apply(_ batch: RecordBatch) async throws -> [RecordOperationResult] {
        // Typing, encoding and indexing happen before the transaction, so it holds its connection less long.
        let database = batch.zone.database
        let schema = try await self.schema(containerID: database.containerID, environment: database.environment)
        let prepared = batch.operations.map { PreparedFields.prepare($0, schema: schema, environment: database.environment) }
        let names = Array(Set(batch.operations.map(\.recordName)))
        return try await writeRetryingConflicts { write in
            let key = SchemaKey(containerID: database.containerID, environment: database.environment)
            let own = Set(names.map { RecordKey(zoneName: batch.zone.zoneName, recordName: $0) })
            // Usually one statement opens the write; a zone that is not live yet is handled the long way.
            let opening = names.isEmpty ? nil : try await RecordWriteOpening.run(
                zone: batch.zone, names: names, write: write, schemas: self.schemas, positionOffset: self.positionOffset
            )
            let zone = if let opening { opening.zone } else {
                try await ZoneTables.ensureZone(batch.zone, in: PostgresTransaction(write: write, dialect: self.dialect, schemas: self.schemas))
            }
            let loader = PostgresSnapshotLoader(
                connection: write.connection, logger: write.logger, zone: zone, caller: batch.caller, exclusive: own
            )
            let schema = try await write.schema(key, cache: self.schemas)
            var snapshot = RecordSnapshot(schema: schema)
            if let opening { snapshot = try await loader.opened(opening, schema: schema) }
            let input = RecordEngine.Input(batch: batch, prepared: prepared, firstSequence: try await write.upcomingPosition())
            var rounds = PlanningRounds(input, snapshot: snapshot)
            while let request = try rounds.nextLoad() {
                rounds.add(try await loader.load(request, schema: rounds.schema))
            }
            let plan = rounds.plan
            _ = try await write.positions(plan.sequencesUsed)
            try await PostgresPlanApplier(write: write, loader: loader).apply(plan)
            if let schema = plan.schema { write.setSchema(schema, for: key) }
            try await Self.enqueue(plan.events, in: write, database: database, subscribed: opening?.subscribed)
            return plan.results
        }
    }

    /// Puts a batch's record events in the outbox for subscription matching, when the container environment
    /// has any subscription.
    /// - Parameter subscribed: whether it has, when the transaction read that already.
    static func enqueue(_ events: [RecordEvent], in write: PostgresWrite, database: DatabaseRef, subscribed: Bool? = nil) async throws {
        guard !events.isEmpty else { return }
        var anySubscription = subscribed ?? false
        if subscribed == nil {
            let reading = PostgresReading(connection: write.connection, logger: write.logger, dialect: PostgresDialect())
            anySubscription = try await reading.read(NotificationTables.anySubscription(containerID: database.containerID, environment: database.environment))
        }
        guard anySubscription else { return }
        let first = try await write.positions(Int64(events.count))
        try await write.connection.run(
            """
            INSERT INTO record_outbox (position, body)
            SELECT p, b FROM unnest(\((0..<Int64(events.count)).map { first + $0 })::bigint[], \(events.map(\.encoded))::text[]) AS e(p, b)
            """,
            logger: write.logger
        )
        write.emit(.recordEventsPending)
    }
}
