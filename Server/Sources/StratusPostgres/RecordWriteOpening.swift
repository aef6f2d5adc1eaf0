import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// The first statement of a record batch's transaction: everything the batch needs before the engine decides, in
/// one round trip instead of six.
///
/// It locks the zone `FOR SHARE` (it is not deleted under the batch), takes the transaction's first change
/// position, reads the schema's version (with the body only when the cached version is stale), the zone's
/// sharing, whether the container environment has any subscription, and the batch's own records `FOR UPDATE`.
/// The engine asks for those records and the sharing first, so they go into its first snapshot.
struct RecordWriteOpening {
    var zone: ZoneRow
    /// Whether record changes of the container environment are matched against subscriptions (and webhook endpoints).
    var subscribed: Bool
    /// The batch's own records that exist, live or tombstones.
    var rows: [StoredRecordRow]
    var zoneSharing: RecordSnapshot.ZoneSharing

    /// Runs the statement; `nil` when the zone is not live (a default zone not yet created, or a missing custom
    /// zone), which the caller handles the long way.
    ///
    /// The schema read is left in `write` (``PostgresWrite/schemas``) and its transaction base is set.
    static func run(
        zone: ZoneRef, names: [String], write: PostgresWrite, schemas: PostgresSchemaCache, positionOffset: Int64
    ) async throws -> RecordWriteOpening? {
        let database = zone.database
        let key = SchemaKey(containerID: database.containerID, environment: database.environment)
        let known = schemas.cached(key)
        var bindings = try binds(
            database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName, zone.zoneName,
            positionOffset, known?.version ?? -1
        )
        let rows: [PostgresRow]
        if names.count == 1 {
            bindings.append(names[0])
            rows = try await write.connection.rows(OpenRecordWrite.self, bindings, logger: write.logger)
        } else {
            bindings.append(names)
            rows = try await write.connection.rows(OpenRecordsWrite.self, bindings, logger: write.logger)
        }
        guard let first = rows.first else { return nil }
        let cells = Array(first)
        let after = StoredRecordRow.columnCount
        let (zoneID, base) = (try cells[after].decode(Int64.self), try cells[after + 1].decode(Int64.self))
        let (version, body) = (try cells[after + 2].decode(Int64?.self), try cells[after + 3].decode(String?.self))
        write.schemas[key] = try schemas.resolve(key, known: known, version: version, body: body)
        write.startPositions(at: base)
        var records: [StoredRecordRow] = []
        for row in rows where try Array(row)[0].decode(Int64?.self) != nil {
            records.append(try StoredRecordRow(row: row))
        }
        return RecordWriteOpening(
            zone: ZoneRow(id: zoneID, zone: zone), subscribed: try cells[after + 6].decode(Bool.self),
            rows: records,
            zoneSharing: RecordSnapshot.ZoneSharing(
                zoneShare: try cells[after + 4].decode(String?.self), hasShares: try cells[after + 5].decode(Bool.self)
            )
        )
    }
}

/// ``RecordWriteOpening`` for a batch writing several records: `$8` is the list of their names.
///
/// One row per record found, or one row with no record; the record's columns come first, then the zone's id, the
/// transaction base, the schema's version and body, the zone-wide share, whether the zone has shares, and whether
/// the container environment has subscriptions.
private enum OpenRecordsWrite: PreparedText {
    static let name = "open_records_write"
    static let sql = """
        WITH z AS MATERIALIZED (
            SELECT id FROM zones
            WHERE container_id = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND name = $5 AND NOT deleted
            FOR SHARE
        )
        SELECT \(StoredRecordRow.columns),
            z.id,
            ((pg_current_xact_id()::text::bigint + $6) << 20) + 1,
            s.version, CASE WHEN s.version = $7 THEN NULL ELSE s.body END,
            (SELECT sr.name FROM shares sh JOIN records sr ON sr.id = sh.record_id WHERE sh.zone_id = z.id AND sh.root_name IS NULL),
            EXISTS (SELECT 1 FROM shares WHERE zone_id = z.id),
            \(NotificationTables.listened(containerID: "$1", environment: "$2").rendered(in: PostgresDialect()).sql)
        FROM z
        LEFT JOIN schemas s ON s.container_id = $1 AND s.environment = $2
        LEFT JOIN LATERAL (
            SELECT * FROM records WHERE zone_id = z.id AND name = ANY($8) ORDER BY id FOR UPDATE
        ) AS r ON true
        """
}

/// ``OpenRecordsWrite`` for one record, a statement PostgreSQL plans once.
private enum OpenRecordWrite: PreparedText {
    static let name = "open_record_write"
    static let sql = OpenRecordsWrite.sql.replacingOccurrences(of: "name = ANY($8)", with: "name = $8")
}
