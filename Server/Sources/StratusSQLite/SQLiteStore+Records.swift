import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: RecordStore {
    public func schema(containerID: String, environment: Environment) async throws -> Schema {
        let key = SchemaKey(containerID: containerID, environment: environment)
        if let schema = schemas.cached(key) { return schema }
        return try await read { db in try self.schemas.schema(key, db: db) }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws -> [RecordOperationResult] {
        // Typing, encoding and indexing happen here, on the caller's thread, so the single writer does less.
        let database = batch.zone.database
        let schema = try await self.schema(containerID: database.containerID, environment: database.environment)
        let prepared = batch.operations.map { PreparedFields.prepare($0, schema: schema, environment: database.environment) }
        return try await write { writeBatch in
            let zone = try self.ensureZone(batch.zone, db: writeBatch.db)
            let key = SchemaKey(containerID: database.containerID, environment: database.environment)
            var loader = SnapshotLoader(db: writeBatch.db, zone: zone, caller: batch.caller)
            let input = RecordEngine.Input(batch: batch, prepared: prepared, firstSequence: self.sequence.upcoming())
            var rounds = PlanningRounds(input, snapshot: RecordSnapshot(schema: try writeBatch.schema(key)))
            while let request = try rounds.nextLoad() {
                rounds.add(try loader.load(request, schema: rounds.schema))
            }
            let plan = rounds.plan
            self.sequence.advance(by: plan.sequencesUsed)
            var applier = PlanApplier(db: writeBatch.db, loader: loader)
            try applier.apply(plan)
            if let schema = plan.schema { writeBatch.schemas[key] = schema }
            try Self.enqueue(plan.events, in: writeBatch, database: database)
            return plan.results
        }
    }

    public func lookupRecords(_ recordNames: [String], in zone: ZoneRef) async throws -> [String: StratusModel.Record] {
        try await read { db in try Self.lookup(recordNames, in: zone, db: db) }
    }

    /// The named live records of a zone.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when nothing is found and the zone does not exist.
    static func lookup(_ recordNames: [String], in zone: ZoneRef, db: Database) throws -> [String: Record] {
        // The zone and its records in one statement (one read of the file's state, one snapshot), for up to
        // 500 names. Only when nothing is found does it matter whether the zone exists.
        var found: [String: Record] = [:]
        for chunk in SQLList.chunks(Array(Set(recordNames))) {
            let rows = try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT \(StoredRecordRow.columns) FROM zones z JOIN records r ON r.zone_id = z.id
                    WHERE z.container_id = ? AND z.environment = ? AND z.scope = ? AND z.owner = ? AND z.name = ? AND z.deleted = 0
                        AND r.deleted = 0 AND r.name IN (\(SQLList.placeholders(chunk.count)))
                    """),
                arguments: arguments(zone.database) + StatementArguments([zone.zoneName] + chunk)
            )
            for row in rows {
                let record = StoredRecordRow(row: row)
                found[record.name] = try record.record(in: zone.wireZoneID, db: db)
            }
        }
        if found.isEmpty, !zone.isDefault, try liveZone(zone, db: db) == nil {
            throw ZoneRules.missing(zone.zoneName)
        }
        return found
    }
}
