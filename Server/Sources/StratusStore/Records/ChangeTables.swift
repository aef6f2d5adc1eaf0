import StratusModel

/// A database's and a zone's change feeds, written once over any backend's tables (``SQLTables``). Feeds read
/// settled positions only (``SQLPhrase/settledBound``), so a token never moves past a change that a writer still
/// in its transaction will commit.
extension RecordStore where Self: SQLTables {
    public func databaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        return try await readSettled { reading in
            // Each zone's latest change is read through (zone_id, seq): a handful of index probes per zone,
            // with no per-database counter for writers to contend on.
            let rows = try await reading.rows("""
                WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound)
                SELECT z.name, z.deleted,
                    (SELECT MAX(m) FROM (SELECT z.seq AS m
                        UNION ALL SELECT (SELECT seq FROM records WHERE zone_id = z.id AND seq < b.bound ORDER BY seq DESC LIMIT 1)) AS latest) AS last_change,
                    z.seq < b.bound AS settled,
                    z.seq >= b.bound OR EXISTS (SELECT 1 FROM records WHERE zone_id = z.id AND seq >= b.bound) AS unsettled
                FROM zones z, b
                WHERE \(ZoneTables.belongs(to: database))
                """)
            // A zone whose own row's change is not settled yet is reported by a later sync.
            let zones = try rows.filter { try $0.bool("settled") }.map { row in
                ChangeFeeds.ZoneState(name: try row.text("name"), deleted: try row.bool("deleted"), lastChange: try row.integer("last_change"))
            }
            let unsettled = try rows.contains { try $0.bool("unsettled") }
            return (ChangeFeeds.databaseChanges(zones, in: database, since: since, limit: limit), unsettled)
        }
    }

    public func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges {
        let token = try query.syncToken.map { token throws(StorageError) in try ZoneSyncToken.read(token) }
        return try await readSettled { reading in
            guard let zone = try await ZoneTables.liveZone(query.zone, in: reading) else {
                guard query.zone.isDefault else { throw ZoneRules.missing(query.zone.zoneName) }
                return (ChangeFeeds.emptyDefaultZone, false)
            }
            let since = try ChangeFeeds.start(after: token, inZone: zone.id)
            // The zone's figures first, then the page below the same bound: the token never passes a change the
            // page did not see.
            let figures = try await reading.read(ChangeTables.settledFigures(ofZone: zone.id))
            let rows = try await reading.rows(ChangeTables.page(
                ofZone: zone.id, after: since, below: figures.bound, limit: ChangeFeeds.scanLimit(for: query) + 1
            ))
            var builder = ChangeFeeds.PageBuilder(since: since, query: query)
            var changes: [RecordChange] = []
            reading: for row in rows {
                // The type and the position, by where they are in the select list: read for every row of the page.
                switch builder.next(recordType: try row.text(2), position: try row.integer(StoredRecordRow.columnCount)) {
                case .stop: break reading
                case .skip: continue
                case .take:
                    let record = try StoredRecordRow(row)
                    if record.deleted {
                        changes.append(.deleted(DeletedRecord(recordName: record.name, recordType: record.type, zoneID: query.zone.wireZoneID)))
                    } else {
                        changes.append(.saved(try await record.record(in: query.zone.wireZoneID, reading: reading)))
                    }
                }
            }
            let page = builder.page
            let last = page.moreComing ? page.lastPosition : max(page.lastPosition, figures.lastSettled)
            let changesPage = ZoneChanges(changes: changes, syncToken: ZoneSyncToken(zone: zone.id, sequence: last).text, moreComing: page.moreComing)
            return (changesPage, figures.unsettled)
        }
    }
}

/// The statements of the change feeds.
enum ChangeTables {
    /// The settled bound (``SQLPhrase/settledBound``) as a value, a zone's last change below it (its creation or
    /// a record change), and whether a record change at or above it has committed.
    static func settledFigures(ofZone zoneID: Int64) -> SQLRead<(bound: Int64, lastSettled: Int64, unsettled: Bool)> {
        let zone = SQLValue.integer(zoneID)
        return SQLRead("""
            WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound)
            SELECT b.bound,
                COALESCE((SELECT MAX(m) FROM (
                    SELECT (SELECT seq FROM zones WHERE id = \(zone) AND seq < b.bound) AS m
                    UNION ALL SELECT (SELECT seq FROM records WHERE zone_id = \(zone) AND seq < b.bound ORDER BY seq DESC LIMIT 1)) AS latest), 0)
                    AS last_settled,
                EXISTS (SELECT 1 FROM records WHERE zone_id = \(zone) AND seq >= b.bound) AS unsettled
            FROM b
            """) { rows in
            guard let row = rows.first else { throw StorageError(.internalFailure, "the settled bound was not read") }
            return (try row.integer("bound"), try row.integer("last_settled"), try row.bool("unsettled"))
        }
    }

    /// Up to `limit` changes of a zone after `since` and below `bound`, in order.
    static func page(ofZone zoneID: Int64, after since: Int64, below bound: Int64, limit: Int) -> SQLFragment {
        """
        SELECT \(raw: StoredRecordRow.columns), r.seq FROM records r
        WHERE r.zone_id = \(.integer(zoneID)) AND r.seq > \(.integer(since)) AND r.seq < \(.integer(bound)) ORDER BY r.seq LIMIT \(.integer(Int64(limit)))
        """
    }
}
