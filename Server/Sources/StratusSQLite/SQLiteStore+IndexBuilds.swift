import GRDB
import StratusModel
import StratusStore
import Synchronization

/// Builds indexes declared on types that already hold records.
///
/// Records are indexed as they are written, for the fields their type's schema keeps searchable. When a
/// schema change makes a field searchable, the records written before need index rows too: a type with few
/// records is indexed at once, in the schema change's own transaction; a larger one is recorded in
/// `index_builds` and indexed in the background by the store's service, a chunk per write. Until then the
/// index counts as being built, and queries that need it are answered `TRY_AGAIN_LATER`.
extension SQLiteStore {
    /// `Type.field` of the indexes being built in a container environment.
    public func indexesBeingBuilt(containerID: String, environment: Environment) async throws -> Set<String> {
        IndexBuildKey.beingBuilt(among: buildingIndexes.withLock { $0 }, containerID: containerID, environment: environment)
    }

    static func buildKey(_ containerID: String, _ environment: Environment, _ type: String, _ field: String) -> String {
        IndexBuildKey.make(containerID: containerID, environment: environment.rawValue, recordType: type, field: field)
    }

    /// Indexes, or schedules the indexing of, every field the schema change made searchable and every
    /// compound index it added.
    func indexNewlySearchableFields(containerID: String, environment: Environment, from old: Schema, to new: Schema, batch: WriteBatch) throws {
        for change in IndexBuildChange.changes(from: old, to: new) {
            let typeName = change.recordType
            let type = new.recordTypes[typeName]!
            for index in change.removedCompoundIndexes {
                try batch.db.execute(
                    sql: "DELETE FROM field_index WHERE zone_id IN \(ZoneSet.sql) AND type = ? AND field = ? AND kind = \(IndexEntry.Kind.compound.rawValue)",
                    arguments: ZoneSet(containerID: containerID, environment: environment).arguments + [typeName, index]
                )
            }
            for target in change.added {
                let field = target.name
                let zones = ZoneSet(containerID: containerID, environment: environment)
                let count = try Int.fetchOne(
                    batch.db, sql: "SELECT COUNT(*) FROM records WHERE zone_id IN \(ZoneSet.sql) AND type = ? AND deleted = 0",
                    arguments: zones.arguments + [typeName]
                ) ?? 0
                switch IndexBuildChange.Timing(recordCount: count) {
                case .nothingToIndex:
                    continue
                case .inTheSchemaChange:
                    _ = try indexRecords(of: typeName, target, type: type, zones: zones, after: 0, limit: count, db: batch.db)
                case .inTheBackground:
                    try batch.db.execute(
                        sql: """
                            INSERT INTO index_builds (container_id, environment, record_type, field) VALUES (?, ?, ?, ?)
                            ON CONFLICT DO UPDATE SET next_record_id = 0
                            """,
                        arguments: [containerID, environment.rawValue, typeName, field]
                    )
                    let key = Self.buildKey(containerID, environment, typeName, field)
                    batch.afterCommit.append { [self] in buildingIndexes.withLock { _ = $0.insert(key) } }
                    batch.emit(.indexBuildsChanged(containerID: containerID, environment: environment))
                }
            }
        }
    }

    /// Indexes one target of up to `limit` records of a type with ids above `after`; returns the last id, or
    /// `nil` when no record was left.
    private func indexRecords(
        of typeName: String, _ target: IndexBuildTarget, type: RecordTypeSchema, zones: ZoneSet, after: Int64, limit: Int, db: Database
    ) throws -> Int64? {
        let rows = try Row.fetchAll(
            db, sql: """
                SELECT id, zone_id, name, fields, created_at, created_by, modified_at, modified_by FROM records
                WHERE zone_id IN \(ZoneSet.sql) AND type = ? AND deleted = 0 AND id > ? ORDER BY id LIMIT ?
                """,
            arguments: zones.arguments + [typeName, after, limit]
        )
        for row in rows {
            let fields = try EncodedFields(json: row["fields"]).decode()
            let system = SystemFieldValues(
                recordName: row["name"],
                created: RecordStamp(timestamp: row["created_at"], userRecordName: row["created_by"], deviceID: ""),
                modified: RecordStamp(timestamp: row["modified_at"], userRecordName: row["modified_by"], deviceID: "")
            )
            let entries = target.entries(for: fields, system: system, of: type)
            let zoneID: Int64 = row["zone_id"]
            let recordID: Int64 = row["id"]
            for entry in entries {
                try db.cachedStatement(
                    sql: "INSERT OR IGNORE INTO field_index (zone_id, type, field, kind, value, extra, record_id) VALUES (?, ?, ?, ?, ?, ?, ?)"
                ).execute(arguments: [zoneID, typeName, entry.field, entry.kind.rawValue, entry.key.databaseValue, entry.extra, recordID])
            }
        }
        return rows.last.map { $0["id"] }
    }

    /// Runs one chunk of one pending build; returns whether any build is left.
    func continueIndexBuild() async throws -> Bool {
        try await write { batch in
            let db = batch.db
            guard let build = try Row.fetchOne(db, sql: "SELECT * FROM index_builds LIMIT 1") else { return false }
            let containerID: String = build["container_id"]
            let environmentName: String = build["environment"]
            let type: String = build["record_type"]
            let field: String = build["field"]
            let environment = Environment(rawValue: environmentName) ?? .development
            let recordType = try batch.schema(SchemaKey(containerID: containerID, environment: environment)).recordTypes[type]
            let zones = ZoneSet(containerID: containerID, environment: environment)
            var last: Int64?
            if let recordType, let target = IndexBuildTarget(name: field, in: recordType) {
                last = try self.indexRecords(of: type, target, type: recordType, zones: zones, after: build["next_record_id"], limit: StorePolicy.indexBuildChunk, db: db)
            }
            let arguments: StatementArguments = [containerID, environmentName, type, field]
            if let last {
                try db.execute(
                    sql: "UPDATE index_builds SET next_record_id = ? WHERE container_id = ? AND environment = ? AND record_type = ? AND field = ?",
                    arguments: [last] + arguments
                )
            } else {
                try db.execute(sql: "DELETE FROM index_builds WHERE container_id = ? AND environment = ? AND record_type = ? AND field = ?", arguments: arguments)
                let key = Self.buildKey(containerID, environment, type, field)
                batch.afterCommit.append { [self] in buildingIndexes.withLock { _ = $0.remove(key) } }
                batch.emit(.indexBuildsChanged(containerID: containerID, environment: environment))
            }
            return true
        }
    }

    /// Every live zone of a container environment (every user's), as a subquery: a container may have
    /// a zone per user, too many to list.
    private struct ZoneSet {
        static let sql = "(SELECT id FROM zones WHERE container_id = ? AND environment = ? AND deleted = 0)"
        var containerID: String
        var environment: Environment
        var arguments: StatementArguments { [containerID, environment.rawValue] }
    }

    static func loadBuildingIndexes(_ db: Database) throws -> Set<String> {
        Set(try Row.fetchAll(db, sql: "SELECT container_id, environment, record_type, field FROM index_builds").map { row in
            IndexBuildKey.make(containerID: row["container_id"], environment: row["environment"], recordType: row["record_type"], field: row["field"])
        })
    }
}
