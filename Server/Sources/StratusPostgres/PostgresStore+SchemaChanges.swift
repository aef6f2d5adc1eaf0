import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Schema changes: both schemas read (locked), counted, changed and stored in one transaction, with the index work
/// and the removals the change makes (``IndexBuildChange``, ``SchemaRemovals``).
extension PostgresStore {
    public func changeSchemas<T: Sendable>(
        containerID: String,
        counting: @escaping @Sendable (Schema, Schema) -> Set<RecordCountRequest>,
        _ change: @escaping @Sendable (inout Schema, inout Schema, [RecordCountRequest: Int]) throws -> T
    ) async throws -> T {
        let (result, scheduled) = try await writeRetryingConflicts { write in
            let developmentKey = SchemaKey(containerID: containerID, environment: .development)
            let productionKey = SchemaKey(containerID: containerID, environment: .production)
            let oldDevelopment = try await write.schema(developmentKey, cache: self.schemas)
            let oldProduction = try await write.schema(productionKey, cache: self.schemas)
            var counts: [RecordCountRequest: Int] = [:]
            for request in counting(oldDevelopment, oldProduction) {
                counts[request] = try await Self.count(request, containerID: containerID, connection: write.connection, logger: write.logger)
            }
            let transition = try SchemaTransition(development: oldDevelopment, production: oldProduction, counts: counts, change)
            for step in transition.steps {
                write.setSchema(step.new, for: SchemaKey(containerID: containerID, environment: step.environment))
            }
            var scheduled = Set<String>()
            for step in transition.steps {
                try await self.remove(step.removals, containerID: containerID, environment: step.environment, write: write)
                scheduled.formUnion(try await self.indexNewlySearchableFields(
                    containerID: containerID, environment: step.environment, from: step.old, to: step.new, write: write
                ))
            }
            return (transition.result, scheduled)
        }
        if !scheduled.isEmpty { buildingIndexes.withLock { $0.formUnion(scheduled) } }
        return result
    }

    /// How many live records of a type (holding a value for the field, when the request names one) a container
    /// environment holds, in every database.
    static func count(_ request: RecordCountRequest, containerID: String, connection: PostgresConnection, logger: Logger) async throws -> Int {
        let field = request.field
        return Int(try await connection.all(
            """
            SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
            WHERE z.container_id = \(containerID) AND z.environment = \(request.environment.rawValue) AND NOT z.deleted AND NOT r.deleted
                AND r.type = \(request.recordType) AND (\(field)::text IS NULL OR (r.fields::jsonb) ? \(field ?? ""))
            """,
            as: Int64.self, logger: logger
        ).first ?? 0)
    }

    /// Removes the records of removed record types (as deletions, each with a change position of its own) and the
    /// values of removed fields, with what they held: index entries, references and assets.
    private func remove(_ removals: SchemaRemovals, containerID: String, environment: Environment, write: PostgresWrite) async throws {
        guard !removals.isEmpty else { return }
        let connection = write.connection
        let logger = write.logger
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for recordType in removals.recordTypes {
            let ids = try await connection.all(
                """
                SELECT r.id FROM records r JOIN zones z ON z.id = r.zone_id
                WHERE z.container_id = \(containerID) AND z.environment = \(environment.rawValue) AND NOT z.deleted AND NOT r.deleted
                    AND r.type = \(recordType)
                ORDER BY r.id FOR UPDATE OF r
                """,
                as: Int64.self, logger: logger
            )
            guard !ids.isEmpty else { continue }
            let first = try await write.positions(Int64(ids.count))
            let positions = (0..<Int64(ids.count)).map { first + $0 }
            try await connection.run(
                """
                UPDATE records r SET deleted = true, fields = '{}', seq = u.seq, change_tag = u.tag, modified_at = \(now),
                    modified_by = \(SchemaRemovals.modifier.userRecordName), modified_device = \(SchemaRemovals.modifier.deviceID),
                    share_name = NULL, short_guid = NULL
                FROM unnest(\(ids)::bigint[], \(positions)::bigint[], \(positions.map(ChangeTag.make))::text[]) AS u(id, seq, tag)
                WHERE r.id = u.id
                """,
                logger: logger
            )
            try await connection.run(RemoveHoldings.self, try binds(ids), logger: logger)
        }
        for field in removals.fields {
            let zones = "(SELECT id FROM zones WHERE container_id = $1 AND environment = $2 AND NOT deleted)"
            let bindings = try binds(containerID, environment.rawValue, field.recordType, field.name)
            for statement in [
                "UPDATE records SET fields = ((fields::jsonb) - $4)::text WHERE zone_id IN \(zones) AND type = $3 AND NOT deleted AND (fields::jsonb) ? $4",
                "DELETE FROM field_index WHERE zone_id IN \(zones) AND type = $3 AND field = $4",
                "DELETE FROM asset_refs WHERE field = $4 AND record_id IN (SELECT id FROM records WHERE zone_id IN \(zones) AND type = $3)",
            ] {
                try await connection.run(PostgresQuery(unsafeSQL: statement, binds: bindings), logger: logger)
            }
        }
    }
}
