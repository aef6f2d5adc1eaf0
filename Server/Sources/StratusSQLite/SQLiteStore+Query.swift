import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    public func runQuery(_ typed: PlannedQuery) async throws -> QueryPage {
        let query = typed.request
        return try await read { db in
            guard let (statement, zones) = try Self.pageStatement(for: query, typed, db: db) else {
                return QueryPage(records: [], continuationMarker: nil)
            }
            let zoneIDs = Dictionary(uniqueKeysWithValues: zones.map { ($0.id, $0.zone.wireZoneID) })
            // Rows are decoded where the statement holds them, without a copy; the statement reads one row past
            // the page, which only says that more come.
            let rows = try Row.fetchCursor(db.cachedStatement(sql: statement.sql), arguments: StatementArguments(statement.values))
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
                    last = (statement.sortKeys.indices.map { JSONValue(row["s\($0)"] as DatabaseValue) }, record.id)
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
            guard let (statement, _) = try Self.pageStatement(for: query, typed, db: db) else { return [] }
            let arguments = StatementArguments(statement.values)
            return [typed.plan.description] + (try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + statement.sql, arguments: arguments)
                .map { $0["detail"] as String })
        }
    }

    /// The statement of one page and its zones, or `nil` when no zone can hold a match.
    private static func pageStatement(for query: RecordQuery, _ typed: PlannedQuery, db: Database) throws -> (statement: QueryStatement, zones: [ZoneRow])? {
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
        guard !zones.isEmpty, let statement = try typed.pageStatement(zones: .ids(zones.map(\.id)), dialect: SQLiteDialect()) else { return nil }
        return (statement, zones)
    }
}

extension JSONValue {
    /// A sort key as SQLite returned it; index key bytes become base64 text, as continuation markers keep them.
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .int64(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .blob(let bytes): self = .string(bytes.base64EncodedString())
        case .null: self = .null
        }
    }
}
