import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    /// One page's statement, and what is needed to read its rows.
    private struct PageStatement {
        var sql: String
        var arguments: StatementArguments
        var zones: [ZoneRow]
        var sortKeyCount: Int
    }

    public func runQuery(_ typed: PlannedQuery) async throws -> QueryPage {
        let query = typed.request
        return try await read { db in
            guard let statement = try Self.pageStatement(for: query, typed, db: db) else {
                return QueryPage(records: [], continuationMarker: nil)
            }
            let zoneIDs = Dictionary(uniqueKeysWithValues: statement.zones.map { ($0.id, $0.zone.wireZoneID) })
            // Rows are decoded where the statement holds them, without a copy; the statement reads one row past
            // the page, which only says that more come.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: statement.arguments)
            var records: [Record] = []
            records.reserveCapacity(typed.limit)
            var last: (keys: [JSONValue], id: Int64)?
            var moreComing = false
            while let row = try rows.next() {
                guard records.count < typed.limit else {
                    moreComing = true
                    break
                }
                let record = StoredRecordRow(row: row)
                records.append(try record.record(in: zoneIDs[record.zoneID] ?? query.database.wireZoneID(ZoneID.defaultZoneName), db: db))
                if records.count == typed.limit {
                    last = ((0..<statement.sortKeyCount).map { JSONValue(row["s\($0)"] as DatabaseValue) }, record.id)
                }
            }
            var marker: String?
            if moreComing, let last {
                marker = QueryCursor(fingerprint: typed.fingerprint, keys: last.keys, lastID: last.id).marker
            }
            return QueryPage(records: records, continuationMarker: marker)
        }
    }

    /// How the first page of a query is read: the store's ``QueryPlan`` on the first line, then SQLite's plan
    /// of the statement, one line per step (`EXPLAIN QUERY PLAN`).
    ///
    /// For operators and tests: a plan that says `SCAN` over records reads every record of the type, and
    /// `USE TEMP B-TREE FOR ORDER BY` sorts every match before cutting the page.
    public func queryPlan(for query: RecordQuery) async throws -> [String] {
        guard let typed = try await planQuery(query) else { return [] }
        return try await read { db in
            guard let statement = try Self.pageStatement(for: query, typed, db: db) else { return [] }
            return [typed.plan.description] + (try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: statement.arguments)
                .map { $0["detail"] as String })
        }
    }

    /// The statement of one page, or `nil` when no zone can hold a match.
    private static func pageStatement(for query: RecordQuery, _ typed: PlannedQuery, db: Database) throws -> PageStatement? {
        let zones: [ZoneRow]
        if let zoneName = query.zoneName {
            guard let zone = try liveZone(query.database.zone(zoneName), db: db) else {
                if zoneName == ZoneID.defaultZoneName { return nil }
                throw ZoneRules.missing(zoneName)
            }
            zones = [zone]
        } else {
            zones = try liveZones(in: query.database, db: db)
        }
        guard !zones.isEmpty else { return nil }
        var builder = QuerySQL(zoneIDs: zones.map(\.id), recordType: typed.query.recordType, plan: typed.plan)
        for filter in typed.filtersToCheck { try builder.add(filter) }
        if let creator = query.createdBy { builder.restrict(toCreator: creator) }
        if let roots = query.sharedRoots, let zone = zones.first, zones.count == 1 {
            builder.restrict(toTreesUnder: roots, zoneID: zone.id)
        } else if query.sharedRoots != nil {
            return nil
        }
        for sort in typed.query.sort { builder.add(sort) }
        let (sql, arguments) = builder.statement(after: typed.cursor, limit: typed.limit + 1)
        return PageStatement(sql: sql, arguments: arguments, zones: zones, sortKeyCount: builder.sortKeyCount)
    }
}
