import Foundation
import GRDB
import StratusModel
import StratusStore

/// Schema changes: both schemas read, counted, changed and stored in one write, with the index work and the
/// removals the change makes (``IndexBuildChange``, ``SchemaRemovals``).
extension SQLiteStore {
    public func changeSchemas<T: Sendable>(
        containerID: String,
        counting: @escaping @Sendable (Schema, Schema) -> Set<RecordCountRequest>,
        _ change: @escaping @Sendable (inout Schema, inout Schema, [RecordCountRequest: Int]) throws -> T
    ) async throws -> T {
        try await write { batch in
            let developmentKey = SchemaKey(containerID: containerID, environment: .development)
            let productionKey = SchemaKey(containerID: containerID, environment: .production)
            let oldDevelopment = try batch.schema(developmentKey)
            let oldProduction = try batch.schema(productionKey)
            var counts: [RecordCountRequest: Int] = [:]
            for request in counting(oldDevelopment, oldProduction) {
                counts[request] = try Self.count(request, containerID: containerID, db: batch.db)
            }
            let transition = try SchemaTransition(development: oldDevelopment, production: oldProduction, counts: counts, change)
            for step in transition.steps {
                batch.schemas[SchemaKey(containerID: containerID, environment: step.environment)] = step.new
            }
            for step in transition.steps {
                try self.remove(step.removals, containerID: containerID, environment: step.environment, batch: batch)
                try self.indexNewlySearchableFields(containerID: containerID, environment: step.environment, from: step.old, to: step.new, batch: batch)
            }
            return transition.result
        }
    }

    /// How many live records of a type (holding a value for the field, when the request names one) a container
    /// environment holds, in every database.
    static func count(_ request: RecordCountRequest, containerID: String, db: Database) throws -> Int {
        var sql = """
            SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
            WHERE z.container_id = ? AND z.environment = ? AND z.deleted = 0 AND r.deleted = 0 AND r.type = ?
            """
        var arguments: StatementArguments = [containerID, request.environment.rawValue, request.recordType]
        if let field = request.field {
            sql += " AND json_type(r.fields, ?) IS NOT NULL"
            arguments += [Self.jsonPath(field)]
        }
        return try Int.fetchOne(db, sql: sql, arguments: arguments) ?? 0
    }

    /// The JSON path of a field in a record's `fields`.
    private static func jsonPath(_ field: String) -> String {
        "$.\"\(field)\""
    }

    /// Removes the records of removed record types (as deletions, each with a change of its own) and the values of
    /// removed fields, with what they held: index entries, references and assets.
    private func remove(_ removals: SchemaRemovals, containerID: String, environment: Environment, batch: WriteBatch) throws {
        guard !removals.isEmpty else { return }
        let db = batch.db
        let zones = "(SELECT id FROM zones WHERE container_id = ? AND environment = ? AND deleted = 0)"
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for recordType in removals.recordTypes {
            let ids = try Int64.fetchAll(
                db, sql: "SELECT id FROM records WHERE zone_id IN \(zones) AND type = ? AND deleted = 0 ORDER BY id",
                arguments: [containerID, environment.rawValue, recordType]
            )
            let tombstone = try db.cachedStatement(sql: """
                UPDATE records SET deleted = 1, fields = '{}', seq = ?, change_tag = ?, modified_at = ?, modified_by = ?,
                    modified_device = ?, share_name = NULL, short_guid = NULL WHERE id = ?
                """)
            for id in ids {
                let sequence = nextSequence()
                try tombstone.execute(arguments: [sequence, ChangeTag.make(sequence), now, SchemaRemovals.modifier.userRecordName, SchemaRemovals.modifier.deviceID, id])
                try db.cachedStatement(sql: "DELETE FROM field_index WHERE record_id = ?").execute(arguments: [id])
                try db.cachedStatement(sql: "DELETE FROM record_refs WHERE source_id = ?").execute(arguments: [id])
                try db.cachedStatement(sql: "DELETE FROM asset_refs WHERE record_id = ?").execute(arguments: [id])
            }
        }
        for field in removals.fields {
            let arguments: StatementArguments = [containerID, environment.rawValue, field.recordType]
            try db.execute(
                sql: "UPDATE records SET fields = json_remove(fields, ?) WHERE zone_id IN \(zones) AND type = ? AND deleted = 0 AND json_type(fields, ?) IS NOT NULL",
                arguments: [Self.jsonPath(field.name)] + arguments + [Self.jsonPath(field.name)]
            )
            try db.execute(sql: "DELETE FROM field_index WHERE zone_id IN \(zones) AND type = ? AND field = ?", arguments: arguments + [field.name])
            try db.execute(
                sql: "DELETE FROM asset_refs WHERE field = ? AND record_id IN (SELECT id FROM records WHERE zone_id IN \(zones) AND type = ?)",
                arguments: [field.name] + arguments
            )
        }
    }
}
