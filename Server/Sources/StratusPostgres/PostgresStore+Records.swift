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
            let zone = if let opening { opening.zone } else { try await Self.ensureZone(batch.zone, write: write) }
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

    public func lookupRecords(_ recordNames: [String], in zone: ZoneRef) async throws -> [String: StratusModel.Record] {
        try await read { connection in try await self.lookup(recordNames, in: zone, connection: connection) }
    }

    /// The named live records of a zone.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when nothing is found and the zone does not exist.
    func lookup(_ recordNames: [String], in zone: ZoneRef, connection: PostgresConnection) async throws -> [String: Record] {
        let database = zone.database
        let names = Array(Set(recordNames))
        // The zone and its records in one statement. Only when nothing is found does it matter whether the zone exists.
        let (container, environment, scope, owner) = (database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName)
        // One name is the common case, and PostgreSQL plans its statement once; a list of names is planned per call.
        let matched = names.count == 1
            ? try await connection.rows(LookupRecord.self, try binds(container, environment, scope, owner, zone.zoneName, names[0]), logger: logger)
            : try await connection.rows(LookupRecords.self, try binds(container, environment, scope, owner, zone.zoneName, names), logger: logger)
        var found: [String: Record] = [:]
        for row in try matched.map({ try StoredRecordRow(row: $0) }) {
            found[row.name] = try await row.record(in: zone.wireZoneID, connection: connection, logger: logger)
        }
        if found.isEmpty, !zone.isDefault, try await Self.liveZone(zone, connection: connection, logger: logger) == nil {
            throw ZoneRules.missing(zone.zoneName)
        }
        return found
    }

    /// Puts a batch's record events in the outbox for subscription matching, when the container environment
    /// has any subscription.
    /// - Parameter subscribed: whether it has, when the transaction read that already.
    static func enqueue(_ events: [RecordEvent], in write: PostgresWrite, database: DatabaseRef, subscribed: Bool? = nil) async throws {
        guard !events.isEmpty else { return }
        var anySubscription = subscribed ?? false
        if subscribed == nil {
            anySubscription = try await write.connection.rows(
                AnySubscription.self, try binds(database.containerID, database.environment.rawValue), as: Bool.self, logger: write.logger
            ).first ?? false
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

/// Records of a zone by name, with the zone found in the same statement.
private enum LookupRecords: PreparedText {
    static let name = "lookup_records"
    static let sql = """
        SELECT \(StoredRecordRow.columns) FROM zones z JOIN records r ON r.zone_id = z.id
        WHERE z.container_id = $1 AND z.environment = $2 AND z.scope = $3 AND z.owner = $4 AND z.name = $5 AND NOT z.deleted
            AND NOT r.deleted AND r.name = ANY($6)
        """
}

/// One record of a zone by name. Apart from ``LookupRecords`` because PostgreSQL keeps one plan for it, where
/// it plans a list of names of unknown length on every call.
private enum LookupRecord: PreparedText {
    static let name = "lookup_record"
    static let sql = LookupRecords.sql.replacingOccurrences(of: "r.name = ANY($6)", with: "r.name = $6")
}

/// Whether a container environment has any subscription, and so whether its record changes are matched.
private enum AnySubscription: PreparedText {
    static let name = "any_subscription"
    static let sql = "SELECT EXISTS (SELECT 1 FROM subscriptions WHERE container_id = $1 AND environment = $2)"
}
