import Foundation
import StratusModel

/// A query page read once for every backend (``SQLTables``): the zones it covers, one statement, the records of its
/// rows and the marker of the next page, as one read (one connection, one step).
extension RecordStore where Self: SQLTables {
    public func runQuery(_ planned: PlannedQuery) async throws -> QueryPage {
        try await read(pageStatement(for: planned).then { found in
            guard let (page, zones) = found else { return SQLRead(value: QueryPage(records: [], continuationMarker: nil)) }
            return SQLRead(page.statement) { $0 }.then { rows in try Self.page(of: rows, page: page, zones: zones, planned: planned) }
        })
    }

    /// The read of a query page's statement and the zones read for it, or `nil` when no zone can hold a match.
    /// Where each statement is a round trip (``SQLTables/statementsRunInProcess`` is false), one zone is found by
    /// the statement itself and no zones are returned; otherwise, and for every zone of the database or one
    /// holding shared trees, the live zones are read first.
    /// The read throws ``StorageError/Code/zoneNotFound`` when the query names a custom zone that does not exist.
    public func pageStatement(for planned: PlannedQuery) -> SQLRead<(page: QueryStatement, zones: [ZoneRow])?> {
        let query = planned.request
        let dialect = sqlDialect
        let statement: @Sendable ([ZoneRow]) throws -> (page: QueryStatement, zones: [ZoneRow])? = { zones in
            guard !zones.isEmpty, let page = try planned.pageStatement(zones: .ids(zones.map(\.id)), dialect: dialect) else { return nil }
            return (page, zones)
        }
        guard let zoneName = query.zoneName else { return ZoneTables.liveZones(in: query.database).map(statement) }
        let zone = query.database.zone(zoneName)
        if query.sharedRoots == nil, !statementsRunInProcess {
            return SQLRead(value: ()).map { try planned.pageStatement(zones: .named(zone), dialect: dialect).map { ($0, []) } }
        }
        return ZoneTables.liveZone(zone).map { row in
            guard let row else {
                if zone.isDefault { return nil }
                throw ZoneRules.missing(zoneName)
            }
            return try statement([row])
        }
    }

    /// The page of a statement's rows: its records, and a marker when the statement read a row past the page.
    private static func page(of rows: [SQLRow], page: QueryStatement, zones: [ZoneRow], planned: PlannedQuery) throws -> SQLRead<QueryPage> {
        let query = planned.request
        let stored = try rows.prefix(planned.limit).map(StoredRecordRow.init)
        var marker: String?
        if rows.count > planned.limit, let last = stored.last {
            let keys = try page.sortKeys.indices.map { JSONValue(sortKey: try rows[planned.limit - 1].value(StoredRecordRow.columnCount + $0)) }
            marker = QueryCursor(fingerprint: planned.fingerprint, keys: keys, lastID: last.id).marker
        }
        var zoneIDs = Dictionary(uniqueKeysWithValues: zones.map { ($0.id, $0.zone.wireZoneID) })
        var zoneToCheck: ZoneRef?
        if let zoneName = query.zoneName, zones.isEmpty {
            // The statement found the zone by name: it is reported missing only when it gave no rows.
            let zone = query.database.zone(zoneName)
            if let first = stored.first {
                zoneIDs[first.zoneID] = zone.wireZoneID
            } else if !zone.isDefault {
                zoneToCheck = zone
            }
        }
        let defaultZone = query.database.wireZoneID(ZoneID.defaultZoneName)
        let records = StoredRecordRow.records(stored, zone: { zoneIDs[$0.zoneID] ?? defaultZone })
            .map { [marker] in QueryPage(records: $0, continuationMarker: marker) }
        guard let zoneToCheck else { return records }
        return ZoneTables.liveZone(zoneToCheck).then { row in
            guard row != nil else { throw ZoneRules.missing(zoneToCheck.zoneName) }
            return records
        }
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
