import Foundation
import StratusModel

/// A query page read once for every backend (``SQLTables``): the zones it covers, one statement, the records of its
/// rows, and the marker of the next page.
extension RecordStore where Self: SQLTables {
    public func runQuery(_ planned: PlannedQuery) async throws -> QueryPage {
        let query = planned.request
        guard let (page, zones) = try await pageStatement(for: planned) else { return QueryPage(records: [], continuationMarker: nil) }
        let rows = try await rows(page.statement)
        var zoneIDs = Dictionary(uniqueKeysWithValues: zones.map { ($0.id, $0.zone.wireZoneID) })
        if let zoneName = query.zoneName, zones.isEmpty {
            // The statement found the zone by name: it is reported missing only when it gave no rows.
            let zone = query.database.zone(zoneName)
            if rows.isEmpty, !zone.isDefault, try await ZoneTables.liveZone(zone, in: self) == nil {
                throw ZoneRules.missing(zoneName)
            }
            if let first = rows.first { zoneIDs[try StoredRecordRow(first).zoneID] = zone.wireZoneID }
        }
        var records: [Record] = []
        records.reserveCapacity(min(rows.count, planned.limit))
        var lastID: Int64 = 0
        for row in rows.prefix(planned.limit) {
            let stored = try StoredRecordRow(row)
            let zoneID = zoneIDs[stored.zoneID] ?? query.database.wireZoneID(ZoneID.defaultZoneName)
            records.append(try await stored.record(in: zoneID, reading: self))
            lastID = stored.id
        }
        // The statement reads one row past the page, which only says that more come.
        guard rows.count > planned.limit else { return QueryPage(records: records, continuationMarker: nil) }
        let last = rows[planned.limit - 1]
        let keys = try page.sortKeys.indices.map { JSONValue(sortKey: try last.value(StoredRecordRow.columnCount + $0)) }
        return QueryPage(records: records, continuationMarker: QueryCursor(fingerprint: planned.fingerprint, keys: keys, lastID: lastID).marker)
    }

    /// The statement of a query's page and the zones read for it, or `nil` when no zone can hold a match. Where
    /// each statement is a round trip (``SQLTables/statementsRunInProcess`` is false), one zone is found by the
    /// statement itself and no zones are returned; otherwise, and for every zone of the database or one holding
    /// shared trees, the live zones are read first.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when the query names a custom zone that does not exist.
    public func pageStatement(for planned: PlannedQuery) async throws -> (page: QueryStatement, zones: [ZoneRow])? {
        let query = planned.request
        if let zoneName = query.zoneName, query.sharedRoots == nil, !statementsRunInProcess {
            return try planned.pageStatement(zones: .named(query.database.zone(zoneName)), dialect: sqlDialect).map { ($0, []) }
        }
        let zones: [ZoneRow]
        if let zoneName = query.zoneName {
            guard let zone = try await ZoneTables.liveZone(query.database.zone(zoneName), in: self) else {
                if zoneName == ZoneID.defaultZoneName { return nil }
                throw ZoneRules.missing(zoneName)
            }
            zones = [zone]
        } else {
            zones = try await read(ZoneTables.liveZones(in: query.database))
        }
        guard !zones.isEmpty, let page = try planned.pageStatement(zones: .ids(zones.map(\.id)), dialect: sqlDialect) else { return nil }
        return (page, zones)
    }
}

extension JSONValue {
    /// A page's sort key as a continuation marker keeps it: index key bytes become base64 text.
    init(sortKey value: SQLValue) {
        switch value {
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .text(let text): self = .string(text)
        case .bytes(let bytes): self = .string(Data(bytes).base64EncodedString())
        case .bool(let flag): self = .bool(flag)
        case .null, .array: self = .null
        }
    }
}
