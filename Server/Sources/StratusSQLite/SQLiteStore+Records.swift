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
        try await StoreSpans.modifyRecords(batch) { try await apply(batch) }
    }

    private func apply(_ batch: RecordBatch) async throws -> [RecordOperationResult] {
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
            try self.enqueue(plan.events, in: writeBatch, database: database)
            return plan.results
        }
    }
}
