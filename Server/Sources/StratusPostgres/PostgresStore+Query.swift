import Foundation
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    public func runQuery(_ typed: PlannedQuery) async throws -> QueryPage {
        let query = typed.request
        return try await read { connection in
            guard let (page, zones) = try await self.pageStatement(for: query, typed, connection: connection) else {
                return QueryPage(records: [], continuationMarker: nil)
            }
            var zoneIDs = Dictionary(uniqueKeysWithValues: zones.map { ($0.id, $0.zone.wireZoneID) })
            let (statement, boundTypes) = try page.postgresQuery()
            var rows: [(StoredRecordRow, [JSONValue])] = []
            for row in try await connection.rows(preparing: statement, types: boundTypes, logger: self.logger) {
                let cells = Array(row)
                var keys: [JSONValue] = []
                for (index, key) in page.sortKeys.enumerated() {
                    let cell = cells[16 + index]
                    switch key.kind {
                    case .encoded: keys.append(try cell.decode(ByteBuffer?.self).map { .string(Data(buffer: $0).base64EncodedString()) } ?? .null)
                    case .integer: keys.append(try cell.decode(Int64?.self).map { .integer($0) } ?? .null)
                    case .text: keys.append(try cell.decode(String?.self).map { .string($0) } ?? .null)
                    case .distance: keys.append(try cell.decode(Double?.self).map { .double($0) } ?? .null)
                    }
                }
                rows.append((try StoredRecordRow(row: row), keys))
            }
            // A zone named in the statement is reported missing only when it gave no rows.
            if let zoneName = query.zoneName, zones.isEmpty {
                let zone = query.database.zone(zoneName)
                if rows.isEmpty, !zone.isDefault, try await Self.liveZone(zone, connection: connection, logger: self.logger) == nil {
                    throw ZoneRules.missing(zone.zoneName)
                }
                if let first = rows.first { zoneIDs[first.0.zoneID] = zone.wireZoneID }
            }
            var records: [Record] = []
            records.reserveCapacity(typed.limit)
            // The statement reads one row past the page, which only says that more come.
            for (record, _) in rows.prefix(typed.limit) {
                let zoneID = zoneIDs[record.zoneID] ?? query.database.wireZoneID(ZoneID.defaultZoneName)
                records.append(try await record.record(in: zoneID, connection: connection, logger: self.logger))
            }
            var marker: String?
            if rows.count > typed.limit {
                let (last, keys) = rows[typed.limit - 1]
                marker = QueryCursor(fingerprint: typed.fingerprint, keys: keys, lastID: last.id).marker
            }
            return QueryPage(records: records, continuationMarker: marker)
        }
    }

    /// How the first page of a query is read: the store's ``QueryPlan`` on the first line, then PostgreSQL's
    /// plan of the statement (`EXPLAIN`), one line per step.
    public func queryPlan(for query: RecordQuery) async throws -> [String] {
        guard let typed = try await planQuery(query) else { return [] }
        return try await read { connection in
            guard let (page, _) = try await self.pageStatement(for: query, typed, connection: connection) else { return [] }
            let statement = try page.postgresQuery().query
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds)
            return [typed.plan.description] + (try await connection.all(explain, as: String.self, logger: self.logger))
        }
    }

    /// The statement of one page and the zones read for it, or `nil` when no zone can hold a match. One zone
    /// is found by the statement itself (no zones read); every zone of the database, or one holding shared trees,
    /// is read first.
    private func pageStatement(
        for query: RecordQuery, _ typed: PlannedQuery, connection: PostgresConnection
    ) async throws -> (QueryStatement, zones: [ZoneRow])? {
        if let zoneName = query.zoneName, query.sharedRoots == nil {
            return try typed.pageStatement(zones: .named(query.database.zone(zoneName)), dialect: PostgresDialect()).map { ($0, []) }
        }
        let zones: [ZoneRow]
        if let zoneName = query.zoneName {
            guard let zone = try await Self.liveZone(query.database.zone(zoneName), connection: connection, logger: logger) else {
                if zoneName == ZoneID.defaultZoneName { return nil }
                throw ZoneRules.missing(zoneName)
            }
            zones = [zone]
        } else {
            zones = try await Self.liveZones(in: query.database, connection: connection, logger: logger)
        }
        guard !zones.isEmpty, let statement = try typed.pageStatement(zones: .ids(zones.map(\.id)), dialect: PostgresDialect()) else { return nil }
        return (statement, zones)
    }
}
