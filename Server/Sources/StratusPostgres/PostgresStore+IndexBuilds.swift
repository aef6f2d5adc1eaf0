import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Builds indexes declared on types that already hold records, as the SQLite store does: a type with few
/// records is indexed in the schema change's own transaction; a larger one is recorded in `index_builds` and
/// indexed by the store's background work, a chunk per transaction, on the one node that holds the lease.
/// Until then queries that need the index are answered `TRY_AGAIN_LATER`.
extension PostgresStore {
    public func indexesBeingBuilt(containerID: String, environment: Environment) async throws -> Set<String> {
        IndexBuildKey.beingBuilt(among: buildingIndexes.withLock { $0 }, containerID: containerID, environment: environment)
    }

    static func buildKey(_ containerID: String, _ environment: String, _ type: String, _ field: String) -> String {
        IndexBuildKey.make(containerID: containerID, environment: environment, recordType: type, field: field)
    }

    static func loadBuildingIndexes(connection: PostgresConnection, logger: Logger) async throws -> Set<String> {
        Set(try await connection.rows(
            "SELECT container_id, environment, record_type, field FROM index_builds", as: (String, String, String, String).self, logger: logger
        ).map { buildKey($0.0, $0.1, $0.2, $0.3) })
    }

    /// Every live zone of a container environment, as a subquery on `$1` (container) and `$2` (environment).
    private static let zoneSet = "(SELECT id FROM zones WHERE container_id = $1 AND environment = $2 AND NOT deleted)"

    /// Indexes, or schedules the indexing of, every field the schema change made searchable and every compound
    /// index it added; returns the build keys it scheduled.
    func indexNewlySearchableFields(
        containerID: String, environment: Environment, from old: Schema, to new: Schema, write: PostgresWrite
    ) async throws -> Set<String> {
        var scheduled = Set<String>()
        for change in IndexBuildChange.changes(from: old, to: new) {
            let typeName = change.recordType
            let type = new.recordTypes[typeName]!
            for index in change.removedCompoundIndexes {
                try await write.connection.run(
                    PostgresQuery(
                        unsafeSQL: "DELETE FROM field_index WHERE zone_id IN \(Self.zoneSet) AND type = $3 AND field = $4 AND kind = \(IndexEntry.Kind.compound.rawValue)",
                        binds: try binds(containerID, environment.rawValue, typeName, index)
                    ),
                    logger: write.logger
                )
            }
            for target in change.added {
                let count = try await write.connection.all(
                    PostgresQuery(
                        unsafeSQL: "SELECT COUNT(*) FROM records WHERE zone_id IN \(Self.zoneSet) AND type = $3 AND NOT deleted",
                        binds: try binds(containerID, environment.rawValue, typeName)
                    ),
                    as: Int64.self, logger: write.logger
                ).first ?? 0
                switch IndexBuildChange.Timing(recordCount: Int(count)) {
                case .nothingToIndex:
                    continue
                case .inTheSchemaChange:
                    _ = try await indexRecords(of: typeName, target, type: type, containerID: containerID, environment: environment, after: 0, limit: Int(count), write: write)
                case .inTheBackground:
                    try await write.connection.run(
                        """
                        INSERT INTO index_builds (container_id, environment, record_type, field)
                        VALUES (\(containerID), \(environment.rawValue), \(typeName), \(target.name))
                        ON CONFLICT (container_id, environment, record_type, field) DO UPDATE SET next_record_id = 0
                        """,
                        logger: write.logger
                    )
                    scheduled.insert(Self.buildKey(containerID, environment.rawValue, typeName, target.name))
                    write.emit(.indexBuildsChanged(containerID: containerID, environment: environment))
                }
            }
        }
        return scheduled
    }

    /// Indexes one target of up to `limit` records of a type with ids above `after`; returns the last id, or
    /// `nil` when no record was left.
    private func indexRecords(
        of typeName: String, _ target: IndexBuildTarget, type: RecordTypeSchema, containerID: String, environment: Environment,
        after: Int64, limit: Int, write: PostgresWrite
    ) async throws -> Int64? {
        let rows = try await write.connection.rows(
            PostgresQuery(
                unsafeSQL: """
                    SELECT id, zone_id, name, fields, created_at, created_by, modified_at, modified_by FROM records
                    WHERE zone_id IN \(Self.zoneSet) AND type = $3 AND NOT deleted AND id > $4 ORDER BY id LIMIT $5
                    """,
                binds: try binds(containerID, environment.rawValue, typeName, after, Int64(limit))
            ),
            as: (Int64, Int64, String, String, Int64, String, Int64, String).self, logger: write.logger
        )
        var entries = IndexEntryRows()
        for (id, zoneID, name, fieldsJSON, createdAt, createdBy, modifiedAt, modifiedBy) in rows {
            let fields = try EncodedFields(json: fieldsJSON).decode()
            let system = SystemFieldValues(
                recordName: name,
                created: RecordStamp(timestamp: createdAt, userRecordName: createdBy, deviceID: ""),
                modified: RecordStamp(timestamp: modifiedAt, userRecordName: modifiedBy, deviceID: "")
            )
            let recordEntries = target.entries(for: fields, system: system, of: type)
            for entry in recordEntries {
                entries.add(entry, zoneID: zoneID, type: typeName, recordID: id)
            }
        }
        try await entries.insert(connection: write.connection, logger: write.logger)
        return rows.last?.0
    }

    /// Runs one chunk of one pending build; returns whether any build is left.
    func continueIndexBuild() async throws -> Bool {
        let (left, finished) = try await writeRetryingConflicts { write -> (Bool, String?) in
            let builds = try await write.connection.rows(
                "SELECT container_id, environment, record_type, field, next_record_id FROM index_builds LIMIT 1",
                as: (String, String, String, String, Int64).self, logger: write.logger
            )
            guard let (containerID, environmentName, typeName, field, next) = builds.first else { return (false, nil) }
            let environment = Environment(rawValue: environmentName) ?? .development
            let recordType = try await write.schema(SchemaKey(containerID: containerID, environment: environment), cache: self.schemas)
                .recordTypes[typeName]
            var last: Int64?
            if let recordType, let target = IndexBuildTarget(name: field, in: recordType) {
                last = try await self.indexRecords(
                    of: typeName, target, type: recordType, containerID: containerID, environment: environment, after: next,
                    limit: StorePolicy.indexBuildChunk, write: write
                )
            }
            if let last {
                try await write.connection.run(
                    """
                    UPDATE index_builds SET next_record_id = \(last)
                    WHERE container_id = \(containerID) AND environment = \(environmentName) AND record_type = \(typeName) AND field = \(field)
                    """,
                    logger: write.logger
                )
                return (true, nil)
            }
            try await write.connection.run(
                """
                DELETE FROM index_builds
                WHERE container_id = \(containerID) AND environment = \(environmentName) AND record_type = \(typeName) AND field = \(field)
                """,
                logger: write.logger
            )
            write.emit(.indexBuildsChanged(containerID: containerID, environment: environment))
            return (true, Self.buildKey(containerID, environmentName, typeName, field))
        }
        if let finished { buildingIndexes.withLock { _ = $0.remove(finished) } }
        return left
    }
}
