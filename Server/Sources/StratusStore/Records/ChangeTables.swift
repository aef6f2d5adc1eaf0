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

    /// One statement reads the zone, the settled bound, the zone's last settled change and the page below that
    /// bound: one round trip, one snapshot, and the token never passes a change the page did not see.
    public func zoneChanges(_ query: ZoneChangesQuery) async throws -> ZoneChanges {
        let token = try query.syncToken.map { token throws(StorageError) in try ZoneSyncToken.read(token) }
        // The token's position, checked against the zone the statement finds (``ChangeFeeds/start(after:inZone:)``).
        let since = token.map { $0.zone == 0 ? 0 : $0.sequence } ?? 0
        return try await readSettled { reading in
            let rows = try await reading.rows(ChangeTables.page(of: query.zone, after: since, limit: ChangeFeeds.scanLimit(for: query) + 1))
            guard let first = rows.first else {
                guard query.zone.isDefault else { throw ZoneRules.missing(query.zone.zoneName) }
                return (ChangeFeeds.emptyDefaultZone, false)
            }
            let figures = ChangeTables.figuresColumn
            let zoneID = try first.integer(figures)
            _ = try ChangeFeeds.start(after: token, inZone: zoneID)
            var builder = ChangeFeeds.PageBuilder(since: since, query: query)
            var changes: [RecordChange] = []
            reading: for row in rows where !row.isNull(0) {
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
            let last = page.moreComing ? page.lastPosition : max(page.lastPosition, try first.integer(figures + 1))
            let changesPage = ZoneChanges(changes: changes, syncToken: ZoneSyncToken(zone: zoneID, sequence: last).text, moreComing: page.moreComing)
            return (changesPage, try first.bool(figures + 2))
        }
    }
}

/// The statements of the change feeds.
enum ChangeTables {
    /// Where the zone's figures start in a ``page(of:after:limit:)`` row: its id, its last settled change, and
    /// whether a later change is unsettled.
    static let figuresColumn = StoredRecordRow.columnCount + 1

    /// A live zone's changes after `since`, in order, up to `limit` of them and only settled ones, each row also
    /// holding (from ``figuresColumn``) the zone's id, its last settled change (its creation or a record change)
    /// and whether a later record change is unsettled. With no change, one row whose record columns are `NULL`;
    /// with no such zone, no row.
    ///
    /// The limit applies before the bound: settled positions come before unsettled ones, so the rows kept are the
    /// same as with the bound applied first. The zone is a scalar sub-select, so that both dialects walk the
    /// records' `(zone_id, seq)` index in order and stop at the limit.
    static func page(of zone: ZoneRef, after since: Int64, limit: Int) -> SQLFragment {
        """
        WITH z AS MATERIALIZED (
            SELECT z.id FROM zones z WHERE \(ZoneTables.belongs(to: zone.database)) AND z.name = \(.text(zone.zoneName)) AND \(.live("z"))
        ),
        b AS MATERIALIZED (SELECT \(.settledBound) AS bound),
        s AS MATERIALIZED (
            SELECT z.id AS zone_id, b.bound,
                COALESCE((SELECT MAX(m) FROM (
                    SELECT (SELECT seq FROM zones WHERE id = z.id AND seq < b.bound) AS m
                    UNION ALL SELECT (SELECT seq FROM records WHERE zone_id = z.id AND seq < b.bound ORDER BY seq DESC LIMIT 1)) AS latest), 0)
                    AS last_settled,
                EXISTS (SELECT 1 FROM records WHERE zone_id = z.id AND seq >= b.bound) AS unsettled
            FROM z, b
        )
        SELECT \(raw: StoredRecordRow.columns), r.seq, s.zone_id, s.last_settled, s.unsettled
        FROM s LEFT JOIN (
            SELECT * FROM records WHERE zone_id = (SELECT id FROM z) AND seq > \(.integer(since)) ORDER BY seq LIMIT \(.integer(Int64(limit)))
        ) r ON r.seq < s.bound
        ORDER BY r.seq
        """
    }
}
