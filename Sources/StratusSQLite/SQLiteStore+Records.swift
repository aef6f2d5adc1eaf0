import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: RecordStore {
    public func schema(containerID: String, environment: Environment) async throws -> Schema {
        let key = SchemaKey(containerID: containerID, environment: environment)
        if let schema = schemas.cached(key) { return schema }
        return try await read { db in try self.schemas.schema(key, db: db) }
    }

    public func changeSchemas<T: Sendable>(
        containerID: String, _ change: @escaping @Sendable (inout Schema, inout Schema) throws -> T
    ) async throws -> T {
        try await write { batch in
            let developmentKey = SchemaKey(containerID: containerID, environment: .development)
            let productionKey = SchemaKey(containerID: containerID, environment: .production)
            let oldDevelopment = try batch.schema(developmentKey)
            let oldProduction = try batch.schema(productionKey)
            var development = oldDevelopment
            var production = oldProduction
            let result = try change(&development, &production)
            batch.schemas[developmentKey] = development
            batch.schemas[productionKey] = production
            try self.indexNewlySearchableFields(containerID: containerID, environment: .development, from: oldDevelopment, to: development, batch: batch)
            try self.indexNewlySearchableFields(containerID: containerID, environment: .production, from: oldProduction, to: production, batch: batch)
            return result
        }
    }

    public func modifyRecords(_ batch: RecordBatch) async throws -> [RecordOperationResult] {
        // Typing, encoding and indexing happen here, on the caller's thread, so the single writer only runs SQL.
        let database = batch.zone.database
        let schema = try await self.schema(containerID: database.containerID, environment: database.environment)
        let prepared = batch.operations.map { PreparedFields.prepare($0, schema: schema, environment: database.environment) }
        return try await write { writeBatch in
            let db = writeBatch.db
            let zone = try self.ensureZone(batch.zone, db: db)
            let writer = RecordWriter(store: self, batch: writeBatch, zone: zone, caller: batch.caller, timestamp: batch.timestamp)
            let operations = Array(zip(batch.operations, prepared))
            guard batch.atomic && !batch.zone.isDefault else {
                let results = operations.map { self.apply($0, prepared: $1, with: writer) }
                try self.publish(writer.events.events, in: writeBatch, database: database)
                return Self.namingShares(results, writer.events.sharedRoots)
            }
            // All or nothing: the first failure rolls every operation back; the others report ATOMIC_ERROR.
            let schemasBefore = writeBatch.schemas
            var results: [RecordOperationResult] = []
            var failed = false
            try db.withSavepoint(named: "atomic") {
                for (operation, prepared) in operations {
                    let result = self.apply(operation, prepared: prepared, with: writer)
                    if case .failed = result { failed = true }
                    results.append(result)
                }
                return !failed
            }
            guard failed else {
                try self.publish(writer.events.events, in: writeBatch, database: database)
                return Self.namingShares(results, writer.events.sharedRoots)
            }
            writeBatch.schemas = schemasBefore
            return zip(batch.operations, results).map { operation, result in
                if case .failed = result { return result }
                return .failed(RecordFailure(
                    recordName: operation.recordName,
                    error: StorageError(.atomicFailure, "another operation of this atomic batch failed")
                ))
            }
        }
    }

    /// Results of records that a later operation of the same batch shared, naming their share.
    private static func namingShares(_ results: [RecordOperationResult], _ sharedRoots: [String: String]) -> [RecordOperationResult] {
        guard !sharedRoots.isEmpty else { return results }
        return results.map { result in
            guard case .saved(var record) = result, let share = sharedRoots[record.recordName] else { return result }
            record.share = share
            return .saved(record)
        }
    }

    /// Applies one operation in its own savepoint, so that its failure undoes only its own changes.
    private func apply(_ operation: RecordOperation, prepared: PreparedFields?, with writer: RecordWriter) -> RecordOperationResult {
        let schemasBefore = writer.batch.schemas
        let eventsBefore = writer.events.events.count
        let result = applyInSavepoint(operation, prepared: prepared, with: writer, schemasBefore: schemasBefore)
        if case .failed = result { writer.events.events.removeSubrange(eventsBefore...) }
        return result
    }

    private func applyInSavepoint(
        _ operation: RecordOperation, prepared: PreparedFields?, with writer: RecordWriter, schemasBefore: [SchemaKey: Schema]
    ) -> RecordOperationResult {
        do {
            var result: RecordOperationResult?
            let run = {
                let outcome = try writer.apply(operation, prepared: prepared)
                result = outcome
                if case .failed = outcome { return false }
                return true
            }
            try writer.batch.db.withSavepoint(named: "operation", run)
            if case .failed? = result { writer.batch.schemas = schemasBefore }
            return result ?? .failed(RecordFailure(recordName: operation.recordName, error: StorageError(.internalFailure, "no result")))
        } catch {
            writer.batch.schemas = schemasBefore
            return .failed(RecordFailure(recordName: operation.recordName, error: StorageError.translating(error)))
        }
    }

    public func lookupRecords(_ recordNames: [String], in zone: ZoneRef) async throws -> [String: StratusModel.Record] {
        try await read { db in
            guard let zoneRow = try Self.liveZone(zone, db: db) else {
                if zone.isDefault { return [:] }
                throw StorageError(.zoneNotFound, "zone \(zone.zoneName) does not exist")
            }
            let statement = try db.cachedStatement(
                sql: "SELECT \(RecordRow.columns) FROM records r WHERE r.zone_id = ? AND r.name = ? AND r.deleted = 0"
            )
            var found: [String: Record] = [:]
            for name in recordNames where found[name] == nil {
                if let row = try Row.fetchOne(statement, arguments: [zoneRow.id, name]) {
                    found[name] = try RecordRow(row: row).record(in: zone.wireZoneID, db: db)
                }
            }
            return found
        }
    }
}
