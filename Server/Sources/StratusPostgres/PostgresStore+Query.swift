import Foundation
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    public func runQuery(_ typed: PlannedQuery) async throws -> QueryPage {
        let query = typed.request
        return try await read { connection in
            guard let (statement, boundTypes, zones, sortKeys) = try await self.pageStatement(for: query, typed, connection: connection) else {
                return QueryPage(records: [], continuationMarker: nil)
            }
            var zoneIDs: [Int64: ZoneID] = [:]
            if case .rows(let rows) = zones { zoneIDs = Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0.zone.wireZoneID) }) }
            var rows: [(StoredRecordRow, [JSONValue])] = []
            for row in try await connection.rows(preparing: statement, types: boundTypes, logger: self.logger) {
                let cells = Array(row)
                var keys: [JSONValue] = []
                for (index, key) in sortKeys.enumerated() {
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
            if rows.isEmpty, case .named(let zone) = zones, !zone.isDefault,
                try await Self.liveZone(zone, connection: connection, logger: self.logger) == nil {
                throw ZoneRules.missing(zone.zoneName)
            }
            if case .named(let zone) = zones, let first = rows.first { zoneIDs[first.0.zoneID] = zone.wireZoneID }
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
            guard let (statement, _, _, _) = try await self.pageStatement(for: query, typed, connection: connection) else { return [] }
            let explain = PostgresQuery(unsafeSQL: "EXPLAIN " + statement.sql, binds: statement.binds)
            return [typed.plan.description] + (try await connection.all(explain, as: String.self, logger: self.logger))
        }
    }

    /// The statement of one page with its zones and sort keys, or `nil` when no zone can hold a match. One zone
    /// is found by the statement itself; every zone of the database, or one holding shared trees, is read first.
    private func pageStatement(
        for query: RecordQuery, _ typed: PlannedQuery, connection: PostgresConnection
    ) async throws -> (PostgresQuery, boundTypes: [String], PostgresQuerySQL.Zones, [PostgresQuerySQL.SortKey])? {
        let zones: PostgresQuerySQL.Zones
        if let zoneName = query.zoneName, query.sharedRoots == nil {
            zones = .named(query.database.zone(zoneName))
        } else if let zoneName = query.zoneName {
            guard let zone = try await Self.liveZone(query.database.zone(zoneName), connection: connection, logger: logger) else {
                if zoneName == ZoneID.defaultZoneName { return nil }
                throw ZoneRules.missing(zoneName)
            }
            zones = .rows([zone])
        } else {
            let rows = try await Self.liveZones(in: query.database, connection: connection, logger: logger)
            guard !rows.isEmpty else { return nil }
            zones = .rows(rows)
        }
        var builder = PostgresQuerySQL(zones: zones, recordType: typed.query.recordType, plan: typed.plan)
        for filter in typed.filtersToCheck { try builder.add(filter) }
        if let creator = query.createdBy { builder.restrict(toCreator: creator) }
        if let roots = query.sharedRoots {
            guard case .rows(let rows) = zones, let zone = rows.first, rows.count == 1 else { return nil }
            builder.restrict(toTreesUnder: roots, zoneID: zone.id)
        }
        for sort in typed.query.sort { builder.add(sort) }
        let statement = builder.statement(after: typed.cursor, limit: typed.limit + 1)
        return (statement, builder.boundTypes, zones, builder.sortKeys)
    }
}
