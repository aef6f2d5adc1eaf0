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
            var changed = rows.compactMap { row -> (name: String, deleted: Bool, last: Int64)? in
                let last: Int64 = row["last"]
                return last > since ? (row["name"], row["deleted"], last) : nil
            }
            changed.sort { $0.last < $1.last }
            // A zone deleted and created again under its name reports only its latest state.
            var latest: [String: (deleted: Bool, last: Int64)] = [:]
            for zone in changed { latest[zone.name] = (zone.deleted, zone.last) }
            let ordered = changed.filter { latest[$0.name]?.last == $0.last }
            let page = ordered.prefix(limit)
            let moreComing = ordered.count > page.count
            let token = page.last?.last ?? since
            return DatabaseChanges(
                zones: page.map { ZoneChange(zoneID: database.wireZoneID($0.name), deleted: $0.deleted) },
                syncToken: DatabaseSyncToken(sequence: max(token, since)).text,
                moreComing: moreComing
            )
        }
    }

    public func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges {
        let token = try query.syncToken.map { token throws(StorageError) in
            try ZoneSyncToken.read(token)
        }
        // One snapshot: the token returned must match exactly the rows returned.
        return try await readSnapshot { db in
            guard let zone = try Self.liveZone(query.zone, db: db) else {
                guard query.zone.isDefault else {
                    throw ZoneRules.missing(query.zone.zoneName)
                }
                return ZoneChanges(changes: [], syncToken: ZoneSyncToken(zone: 0, sequence: 0).text, moreComing: false)
            }
            var since: Int64 = 0
            if let token, token.zone != 0 || token.sequence != 0 {
                guard token.zone == zone.id else {
                    throw StorageError(.invalidArgument, "syncToken belongs to another zone, or to a zone that was deleted; sync again from no token")
                }
                since = token.sequence
            }
            let statement = try db.cachedStatement(
                sql: "SELECT \(StoredRecordRow.columns), r.seq FROM records r WHERE r.zone_id = ? AND r.seq > ? ORDER BY r.seq LIMIT ?"
            )
            var changes: [RecordChange] = []
            var last = since
            var moreComing = false
            var scanned = 0
            // Rows of types not asked for still advance the token; the scan stops after a bounded number of rows.
            let cursor = try Row.fetchCursor(statement, arguments: [zone.id, since, Int64.max])
            while let row = try cursor.next() {
                if changes.count == query.limit || scanned == query.limit * 20 {
                    moreComing = true
                    break
                }
                scanned += 1
                let record = StoredRecordRow(row: row)
                last = row["seq"]
                if let types = query.recordTypes, !types.contains(record.type) { continue }
                if record.deleted {
                    changes.append(.deleted(DeletedRecord(recordName: record.name, recordType: record.type, zoneID: query.zone.wireZoneID)))
                } else {
                    changes.append(.saved(try record.record(in: query.zone.wireZoneID, db: db)))
                }
            }
            if !moreComing {
                last = max(last, try Self.lastChange(ofZone: zone.id, db: db))
            }
            return ZoneChanges(changes: changes, syncToken: ZoneSyncToken(zone: zone.id, sequence: last).text, moreComing: moreComing)
        }
    }
}
