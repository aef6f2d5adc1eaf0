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
        try await write { writeBatch in
            let db = writeBatch.db
            let zone = try self.ensureZone(batch.zone, db: db)
            let writer = RecordWriter(store: self, batch: writeBatch, zone: zone, caller: batch.caller, timestamp: batch.timestamp)
            guard batch.atomic && !batch.zone.isDefault else {
                return batch.operations.map { self.apply($0, with: writer) }
            }
            // All or nothing: the first failure rolls every operation back; the others report ATOMIC_ERROR.
            let schemasBefore = writeBatch.schemas
            var results: [RecordOperationResult] = []
            var failed = false
            try db.inSavepoint {
                for operation in batch.operations {
                    let result = self.apply(operation, with: writer)
                    if case .failed = result { failed = true }
                    results.append(result)
                }
                return failed ? .rollback : .commit
            }
            guard failed else { return results }
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

    /// Applies one operation in its own savepoint, so that its failure undoes only its own changes.
    private func apply(_ operation: RecordOperation, with writer: RecordWriter) -> RecordOperationResult {
        let schemasBefore = writer.batch.schemas
        do {
            var result: RecordOperationResult?
            try writer.batch.db.inSavepoint {
                let outcome = try writer.apply(operation)
                result = outcome
                if case .failed = outcome { return .rollback }
                return .commit
            }
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
                    found[name] = RecordRow(row: row).record(in: zone.wireZoneID)
                }
            }
            return found
        }
    }
}
