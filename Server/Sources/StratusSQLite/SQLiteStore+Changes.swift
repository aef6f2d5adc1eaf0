import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    public func databaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        return try await read { db in
            // Each zone's latest change is read through (zone_id, seq): a handful of index probes per zone,
            // with no per-database counter for writers to contend on.
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT z.id, z.name, z.deleted,
                        MAX(z.seq, COALESCE((SELECT MAX(seq) FROM records WHERE zone_id = z.id), 0)) AS last
                    FROM zones z WHERE z.container_id = ? AND z.environment = ? AND z.scope = ? AND z.owner = ?
                    """,
                arguments: Self.arguments(database)
            )
            let zones = rows.map { row in ChangeFeeds.ZoneState(name: row["name"], deleted: row["deleted"], lastChange: row["last"]) }
            return ChangeFeeds.databaseChanges(zones, in: database, since: since, limit: limit)
        }
    }

    public func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges {
        let token = try query.syncToken.map { token throws(StorageError) in
            try ZoneSyncToken.read(token)
        }
        // One snapshot: the token returned must match exactly the rows returned.
        return try await readSnapshot { db in
            guard let zone = try Self.liveZone(query.zone, db: db) else {
                guard query.zone.isDefault else { throw ZoneRules.missing(query.zone.zoneName) }
                return ChangeFeeds.emptyDefaultZone
            }
            let since = try ChangeFeeds.start(after: token, inZone: zone.id)
            // Rows are decoded where the statement holds them, and only those the page takes.
            let rows = try Row.fetchCursor(
                db.cachedStatement(sql: "SELECT \(StoredRecordRow.columns), r.seq FROM records r WHERE r.zone_id = ? AND r.seq > ? ORDER BY r.seq LIMIT ?"),
                arguments: [zone.id, since, ChangeFeeds.scanLimit(for: query) + 1]
            )
            var builder = ChangeFeeds.PageBuilder(since: since, query: query)
            var changes: [RecordChange] = []
            reading: while let row = try rows.next() {
                let type: String = row["type"]
                switch builder.next(recordType: type, position: row["seq"]) {
                case .stop: break reading
                case .skip: continue
                case .take:
                    let record = StoredRecordRow(row: row)
                    if record.deleted {
                        changes.append(.deleted(DeletedRecord(recordName: record.name, recordType: record.type, zoneID: query.zone.wireZoneID)))
                    } else {
                        changes.append(.saved(try record.record(in: query.zone.wireZoneID, db: db)))
                    }
                }
            }
            let page = builder.page
            let last = page.moreComing ? page.lastPosition : max(page.lastPosition, try Self.lastChange(ofZone: zone.id, db: db))
            return ZoneChanges(changes: changes, syncToken: ZoneSyncToken(zone: zone.id, sequence: last).text, moreComing: page.moreComing)
        }
    }
}
