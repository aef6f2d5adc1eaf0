import Foundation
import StratusModel

/// A store that builds indexes over records written before a schema change made a field searchable, and keeps
/// the builds in progress in memory.
public protocol IndexBuildingStore: Sendable {
    var indexBuilds: IndexBuildRegistry { get }
}

/// Schema changes and index builds, written once over any backend's tables (``SQLTables``): both schemas read,
/// counted, changed and stored in one transaction, with the removals and index work the change makes
/// (``SchemaRemovals``, ``IndexBuildChange``).
///
/// A type with few records is indexed in the schema change's own transaction; a larger one is recorded in
/// `index_builds` and indexed by the store's background work (``continueIndexBuild()``), a chunk per transaction,
/// on the one node that holds the lease. Until then queries that need the index are answered `TRY_AGAIN_LATER`.
extension RecordStore where Self: SQLTables & IndexBuildingStore {
    public func changeSchemas<T: Sendable>(
        containerID: String,
        counting: @escaping @Sendable (Schema, Schema) -> Set<RecordCountRequest>,
        _ change: @escaping @Sendable (inout Schema, inout Schema, [RecordCountRequest: Int]) throws -> T
    ) async throws -> T {
        let builds = indexBuilds
        return try await transaction { transaction in
            let development = SchemaKey(containerID: containerID, environment: .development)
            let production = SchemaKey(containerID: containerID, environment: .production)
            let oldDevelopment = try await transaction.schema(development)
            let oldProduction = try await transaction.schema(production)
            var counts: [RecordCountRequest: Int] = [:]
            for request in counting(oldDevelopment, oldProduction) {
                counts[request] = try await transaction.read(SchemaTables.count(request, containerID: containerID))
            }
            let transition = try SchemaTransition(development: oldDevelopment, production: oldProduction, counts: counts, change)
            for step in transition.steps {
                try await transaction.setSchema(step.new, for: SchemaKey(containerID: containerID, environment: step.environment))
            }
            for step in transition.steps {
                let zones = SchemaTables.LiveZones(containerID: containerID, environment: step.environment)
                try await SchemaTables.remove(step.removals, in: zones, transaction: transaction)
                try await SchemaTables.indexNewlySearchableFields(from: step.old, to: step.new, in: zones, builds: builds, transaction: transaction)
            }
            return transition.result
        }
    }

    public func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int {
        try await read(SchemaTables.count(RecordCountRequest(environment: environment, recordType: recordType, field: field), containerID: containerID))
    }

    public func indexesBeingBuilt(containerID: String, environment: Environment) async throws -> Set<String> {
        indexBuilds.beingBuilt(containerID: containerID, environment: environment)
    }

    /// Runs one chunk of one pending build; returns whether any build is left.
    public func continueIndexBuild() async throws -> Bool {
        let builds = indexBuilds
        return try await transaction { transaction in
            guard let build = try await transaction.rows("""
                SELECT container_id, environment, record_type, field, next_record_id FROM index_builds LIMIT 1\(.lockSkippingLocked)
                """).first else { return false }
            let containerID = try build.text("container_id")
            let environment = try build.environment()
            let typeName = try build.text("record_type")
            let field = try build.text("field")
            let keyColumns: SQLFragment = """
                container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND record_type = \(.text(typeName)) \
                AND field = \(.text(field))
                """
            let recordType = try await transaction.schema(SchemaKey(containerID: containerID, environment: environment)).recordTypes[typeName]
            var last: Int64?
            if let recordType, let target = IndexBuildTarget(name: field, in: recordType) {
                last = try await SchemaTables.indexRecords(
                    of: typeName, target, type: recordType, in: SchemaTables.LiveZones(containerID: containerID, environment: environment),
                    after: try build.integer("next_record_id"), limit: StorePolicy.indexBuildChunk, transaction: transaction
                )
            }
            if let last {
                try await transaction.rows("UPDATE index_builds SET next_record_id = \(.integer(last)) WHERE \(keyColumns)")
                return true
            }
            try await transaction.rows("DELETE FROM index_builds WHERE \(keyColumns)")
            let key = IndexBuildKey.make(containerID: containerID, environment: environment.rawValue, recordType: typeName, field: field)
            try await transaction.afterCommit { builds.finished(key) }
            transaction.emit(.indexBuildsChanged(containerID: containerID, environment: environment))
            return true
        }
    }
}

/// The statements of schema changes and index builds.
public enum SchemaTables {
    /// Every live zone of a container environment (every user's), as a sub-select: a container may have a zone
    /// per user, too many to list.
    struct LiveZones {
        var containerID: String
        var environment: Environment

        var select: SQLFragment {
            """
            (SELECT z.id FROM zones z WHERE z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue)) \
            AND \(.live("z")))
            """
        }
    }

    /// The index builds in progress, by key.
    public static let allBuilds = SQLRead<Set<String>>("SELECT container_id, environment, record_type, field FROM index_builds") { rows in
        Set(try rows.map { row in
            IndexBuildKey.make(
                containerID: try row.text("container_id"), environment: try row.text("environment"),
                recordType: try row.text("record_type"), field: try row.text("field")
            )
        })
    }

    /// How many live records of a type (holding a value for the field, when the request names one) a container
    /// environment holds, in every database.
    static func count(_ request: RecordCountRequest, containerID: String) -> SQLRead<Int> {
        let zones = LiveZones(containerID: containerID, environment: request.environment)
        let field: SQLFragment = request.field.map { name in " AND \(dialect: { $0.hasMember("r.fields", name) })" } ?? ""
        return SQLRead("""
            SELECT COUNT(*) AS records FROM records r WHERE r.zone_id IN \(zones.select) AND r.type = \(.text(request.recordType)) \
            AND \(.live("r"))\(field)
            """) { rows in Int(try rows.first?.integer("records") ?? 0) }
    }

    /// Removes the records of removed record types (as deletions, each with a change position of its own) and the
    /// values of removed fields, with what they held: index entries, references and assets.
    static func remove(_ removals: SchemaRemovals, in zones: LiveZones, transaction: any SQLTransaction) async throws {
        guard !removals.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for recordType in removals.recordTypes {
            let ids = try await transaction.rows("""
                SELECT r.id FROM records r WHERE r.zone_id IN \(zones.select) AND r.type = \(.text(recordType)) AND \(.live("r"))
                ORDER BY r.id\(.lockForUpdate)
                """).map { try $0.integer("id") }
            for chunk in stride(from: 0, to: ids.count, by: 300).map({ ids[$0..<min($0 + 300, ids.count)] }) {
                let first = try await transaction.positions(Int64(chunk.count))
                let tombstones = chunk.enumerated().map { offset, id -> SQLFragment in
                    let position = first + Int64(offset)
                    return "(\(.integer(id)), \(.integer(position)), \(.text(ChangeTag.make(position))))"
                }
                try await transaction.rows("""
                    WITH t(id, seq, tag) AS (VALUES \(SQLFragment.joined(tombstones, separator: ", ")))
                    UPDATE records SET deleted = \(.bool(true)), fields = '{}', seq = t.seq, change_tag = t.tag, modified_at = \(.integer(now)),
                        modified_by = \(.text(SchemaRemovals.modifier.userRecordName)), modified_device = \(.text(SchemaRemovals.modifier.deviceID)),
                        share_name = NULL, short_guid = NULL
                    FROM t WHERE records.id = t.id
                    """)
                let removed = chunk.map { SQLValue.integer($0) }
                try await transaction.rows("DELETE FROM field_index WHERE record_id\(anyOf: removed)")
                try await transaction.rows("DELETE FROM record_refs WHERE source_id\(anyOf: removed)")
                try await transaction.rows("DELETE FROM asset_refs WHERE record_id\(anyOf: removed)")
            }
        }
        for field in removals.fields {
            let name = field.name
            let type = SQLValue.text(field.recordType)
            try await transaction.rows("""
                UPDATE records SET fields = \(dialect: { $0.removingMember("fields", name) })
                WHERE zone_id IN \(zones.select) AND type = \(type) AND \(.live("records")) AND \(dialect: { $0.hasMember("fields", name) })
                """)
            try await transaction.rows("DELETE FROM field_index WHERE zone_id IN \(zones.select) AND type = \(type) AND field = \(.text(name))")
            try await transaction.rows("""
                DELETE FROM asset_refs WHERE field = \(.text(name)) AND record_id IN (SELECT id FROM records WHERE zone_id IN \(zones.select) AND type = \(type))
                """)
        }
    }

    /// Indexes, or schedules the indexing of, every field the schema change made searchable and every compound
    /// index it added, and takes out the entries of compound indexes it removed.
    static func indexNewlySearchableFields(
        from old: Schema, to new: Schema, in zones: LiveZones, builds: IndexBuildRegistry, transaction: any SQLTransaction
    ) async throws {
        for change in IndexBuildChange.changes(from: old, to: new) {
            let typeName = change.recordType
            guard let type = new.recordTypes[typeName] else { continue }
            for index in change.removedCompoundIndexes {
                try await transaction.rows("""
                    DELETE FROM field_index WHERE zone_id IN \(zones.select) AND type = \(.text(typeName)) AND field = \(.text(index)) \
                    AND kind = \(.integer(Int64(IndexEntry.Kind.compound.rawValue)))
                    """)
            }
            for target in change.added {
                let count = try await transaction.read(count(RecordCountRequest(environment: zones.environment, recordType: typeName), containerID: zones.containerID))
                switch IndexBuildChange.Timing(recordCount: count) {
                case .nothingToIndex:
                    continue
                case .inTheSchemaChange:
                    _ = try await indexRecords(of: typeName, target, type: type, in: zones, after: 0, limit: count, transaction: transaction)
                case .inTheBackground:
                    try await transaction.rows("""
                        INSERT INTO index_builds (container_id, environment, record_type, field)
                        VALUES (\(.text(zones.containerID)), \(.text(zones.environment.rawValue)), \(.text(typeName)), \(.text(target.name)))
                        ON CONFLICT (container_id, environment, record_type, field) DO UPDATE SET next_record_id = 0
                        """)
                    let key = IndexBuildKey.make(
                        containerID: zones.containerID, environment: zones.environment.rawValue, recordType: typeName, field: target.name
                    )
                    try await transaction.afterCommit { builds.started(key) }
                    transaction.emit(.indexBuildsChanged(containerID: zones.containerID, environment: zones.environment))
                }
            }
        }
    }

    /// Indexes one target of up to `limit` records of a type with ids above `after`; returns the last id, or `nil`
    /// when no record was left.
    static func indexRecords(
        of typeName: String, _ target: IndexBuildTarget, type: RecordTypeSchema, in zones: LiveZones, after: Int64, limit: Int,
        transaction: any SQLTransaction
    ) async throws -> Int64? {
        let rows = try await transaction.rows("""
            SELECT r.id, r.zone_id, r.name, r.fields, r.created_at, r.created_by, r.modified_at, r.modified_by FROM records r
            WHERE r.zone_id IN \(zones.select) AND r.type = \(.text(typeName)) AND \(.live("r")) AND r.id > \(.integer(after))
            ORDER BY r.id LIMIT \(.integer(Int64(limit)))
            """)
        var entries: [IndexEntryRow] = []
        for row in rows {
            let system = SystemFieldValues(
                recordName: try row.text("name"),
                created: RecordStamp(timestamp: try row.integer("created_at"), userRecordName: try row.text("created_by"), deviceID: ""),
                modified: RecordStamp(timestamp: try row.integer("modified_at"), userRecordName: try row.text("modified_by"), deviceID: "")
            )
            let fields = try EncodedFields(json: try row.text("fields")).decode()
            let (zoneID, recordID) = (try row.integer("zone_id"), try row.integer("id"))
            for entry in target.entries(for: fields, system: system, of: type) {
                entries.append(IndexEntryRow(entry: entry, zoneID: zoneID, recordType: typeName, recordID: recordID))
            }
        }
        try await transaction.insertIndexEntries(entries)
        return try rows.last?.integer("id")
    }
}
