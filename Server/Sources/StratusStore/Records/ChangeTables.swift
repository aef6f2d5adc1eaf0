import StratusModel

/// A database's and a zone's change feeds, written once over any backend's tables (``SQLTables``). Feeds read
/// settled positions only (``SQLPhrase/settledBound``), so a token never moves past a change that a writer still
/// in its transaction will commit.
extension RecordStore where Self: SQLTables {
    public func databaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges {
        try await StoreSpans.run("store.databaseChanges", database: database) {
            try await readDatabaseChanges(in: database, since: syncToken, limit: limit)
        }
    }

    private func readDatabaseChanges(in database: DatabaseRef, since syncToken: String?, limit: Int) async throws -> DatabaseChanges {
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
                    z.seq >= b.bound OR (SELECT seq FROM records WHERE zone_id = z.id AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL AS unsettled
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

    /// Reads the zone's figures (its id, the settled bound, its last settled change) before the page below that
    /// bound, so that the token never passes a change the page did not see: in one statement where each is a round
    /// trip (PostgreSQL), in two where statements run in-process (SQLite, where the one statement costs more).
    public func zoneChanges(_ request: ZoneChangesQuery) async throws -> ZoneChanges {
        try await StoreSpans.run("store.zoneChanges", database: request.zone.database) { try await readZoneChanges(request) }
    }

    private func readZoneChanges(_ request: ZoneChangesQuery) async throws -> ZoneChanges {
        var request = request
        // A feed through a query reads its record type only, and keeps what matches.
        var typedMatch: Query?
        if let matching = request.matching {
            let database = request.zone.database
            let schema = try await schema(containerID: database.containerID, environment: database.environment)
            typedMatch = try QueryTyper.typedQuery(matching, schema: schema, environment: database.environment)
            request.recordTypes = (request.recordTypes ?? [matching.recordType]).intersection([matching.recordType])
        }
        let query = request
        let token = try query.syncToken.map { token throws(StorageError) in try ZoneSyncToken.read(token) }
        // The token's position, checked against the zone found (``ChangeFeeds/start(after:inZone:)``).
        let since = token.map { $0.zone == 0 ? 0 : $0.sequence } ?? 0
        let deletions = ChangeFeeds.includesDeletions(token: token)
        let limit = ChangeFeeds.scanLimit(for: query) + 1
        let figuresAndRows: SQLRead<(figures: ChangeTables.Figures, rows: [SQLRow])?>
        if statementsRunInProcess {
            figuresAndRows = ChangeTables.figures(of: query.zone).then { figures in
                guard let figures else { return SQLRead(value: nil) }
                return SQLRead(ChangeTables.page(ofZone: figures.zoneID, after: since, deletions: deletions, below: figures.bound, limit: limit)) { (figures, $0) }
            }
        } else {
            figuresAndRows = SQLRead(ChangeTables.pageWithFigures(of: query.zone, after: since, deletions: deletions, limit: limit)) { combined in
                guard let first = combined.first else { return nil }
                return (try ChangeTables.Figures(combined: first), combined.filter { !$0.isNull(0) })
            }
        }
        let changes = figuresAndRows.then { found in
            guard let (figures, rows) = found else {
                guard query.zone.isDefault else { throw ZoneRules.missing(query.zone.zoneName) }
                return SQLRead(value: (value: ChangeFeeds.emptyDefaultZone, unsettled: false))
            }
            return try ChangeTables.changes(in: rows, figures: figures, since: since, token: token, query: query)
        }
        var page = try await readSettled { reading in try await reading.read(changes) }
        if query.matching != nil {
            page.changes = try ChangeFeeds.keeping(page.changes, matching: typedMatch, fromStart: !ChangeFeeds.includesDeletions(token: token))
        }
        return page
    }
}

extension ChangeTables {
    /// A zone's page of changes from the rows read below the settled bound, and whether a change at or above it
    /// has committed.
    fileprivate static func changes(
        in rows: [SQLRow], figures: Figures, since: Int64, token: ZoneSyncToken?, query: ZoneChangesQuery
    ) throws -> SQLRead<(value: ZoneChanges, unsettled: Bool)> {
        _ = try ChangeFeeds.start(after: token, inZone: figures.zoneID)
        var builder = ChangeFeeds.PageBuilder(since: since, query: query)
        var taken: [StoredRecordRow] = []
        reading: for row in rows {
            // The type and the position, by where they are in the select list: read for every row of the page.
            switch builder.next(recordType: try row.text(2), position: try row.integer(StoredRecordRow.columnCount)) {
            case .stop: break reading
            case .skip: continue
            case .take: taken.append(try StoredRecordRow(row))
            }
        }
        let page = builder.page
        let last = page.moreComing ? page.lastPosition : max(page.lastPosition, figures.lastSettled)
        let nextToken = ZoneSyncToken(zone: figures.zoneID, sequence: last).text
        let zoneID = query.zone.wireZoneID
        return StoredRecordRow.records(taken.filter { !$0.deleted }, zone: { _ in zoneID }).map { [taken] saved in
            var changes: [RecordChange] = []
            changes.reserveCapacity(taken.count)
            var nextSaved = 0
            for row in taken {
                if row.deleted {
                    changes.append(.deleted(DeletedRecord(recordName: row.name, recordType: row.type, zoneID: zoneID)))
                } else {
                    changes.append(.saved(saved[nextSaved]))
                    nextSaved += 1
                }
            }
            return (ZoneChanges(changes: changes, syncToken: nextToken, moreComing: page.moreComing), figures.unsettled)
        }
    }
}

/// The statements of the change feeds.
enum ChangeTables {
    /// A live zone's id, the settled bound (``SQLPhrase/settledBound``) as a value, the zone's last change below it
    /// (its creation or a record change), and whether a record change at or above it has committed.
    struct Figures {
        var zoneID: Int64
        var bound: Int64
        var lastSettled: Int64
        var unsettled: Bool

        /// The figures a ``pageWithFigures(of:after:limit:)`` row holds after the record's columns and position.
        init(combined row: SQLRow) throws {
            let first = StoredRecordRow.columnCount + 1
            zoneID = try row.integer(first)
            bound = try row.integer(first + 1)
            lastSettled = try row.integer(first + 2)
            unsettled = try row.bool(first + 3)
        }

        init(named row: SQLRow) throws {
            zoneID = try row.integer("zone_id")
            bound = try row.integer("bound")
            lastSettled = try row.integer("last_settled")
            unsettled = try row.bool("unsettled")
        }
    }

    /// The figures' common table expressions: `z` (the live zone), `b` (the bound) and `s` (the figures).
    private static func figuresExpressions(of zone: ZoneRef) -> SQLFragment {
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
                (SELECT seq FROM records WHERE zone_id = z.id AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL AS unsettled
            FROM z, b
        )
        """
    }

    /// A live zone's figures; `nil` when there is no such zone.
    static func figures(of zone: ZoneRef) -> SQLRead<Figures?> {
        SQLRead("\(figuresExpressions(of: zone)) SELECT zone_id, bound, last_settled, unsettled FROM s") { rows in
            try rows.first.map(Figures.init(named:))
        }
    }

    /// Up to `limit` changes of a zone after `since` and below `bound`, in order; without `deletions` (a feed read
    /// from no token), only live records (``ChangeFeeds/includesDeletions(token:)``).
    static func page(ofZone zoneID: Int64, after since: Int64, deletions: Bool, below bound: Int64, limit: Int) -> SQLFragment {
        """
        SELECT \(raw: StoredRecordRow.columns), r.seq FROM records r
        WHERE r.zone_id = \(.integer(zoneID)) AND r.seq > \(.integer(since)) AND r.seq < \(.integer(bound))\(raw: liveOnly(deletions, table: "r"))
        ORDER BY r.seq LIMIT \(.integer(Int64(limit)))
        """
    }

    /// The condition that leaves deletions out of a feed read from the start.
    private static func liveOnly(_ deletions: Bool, table: String) -> String {
        deletions ? "" : " AND NOT \(table).deleted"
    }

    /// ``figures(of:)`` and ``page(ofZone:after:deletions:below:limit:)`` in one statement: each row holds a change and the
    /// figures (``Figures/init(combined:)``); with no change, one row whose record columns are `NULL`; with no such
    /// zone, no row.
    ///
    /// The limit applies before the bound: settled positions come before unsettled ones, so the rows kept are the
    /// same as with the bound applied first. The zone is a scalar sub-select, so that the records' `(zone_id, seq)`
    /// index is walked in order and stops at the limit.
    static func pageWithFigures(of zone: ZoneRef, after since: Int64, deletions: Bool, limit: Int) -> SQLFragment {
        """
        \(figuresExpressions(of: zone))
        SELECT \(raw: StoredRecordRow.columns), r.seq, s.zone_id, s.bound, s.last_settled, s.unsettled
        FROM s LEFT JOIN (
            SELECT * FROM records WHERE zone_id = (SELECT id FROM z) AND seq > \(.integer(since))\(raw: liveOnly(deletions, table: "records"))
            ORDER BY seq LIMIT \(.integer(Int64(limit)))
        ) r ON r.seq < s.bound
        ORDER BY r.seq
        """
    }
}
