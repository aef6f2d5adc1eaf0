import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    public func queryRecords(_ query: RecordQuery) async throws -> QueryPage {
        let database = query.database
        let schema = try await self.schema(containerID: database.containerID, environment: database.environment)
        guard let typed = try QueryTyper.typedQuery(query.query, schema: schema, environment: database.environment) else {
            return QueryPage(records: [], continuationMarker: nil)
        }
        let fingerprint = Self.fingerprint("\(typed)|\(query.zoneName ?? "*")")
        let cursor = try query.continuationMarker.map { marker throws(StorageError) in
            let cursor = try OpaqueToken.decode(marker, as: QueryCursor.self, what: "continuationMarker")
            guard cursor.fingerprint == fingerprint else {
                throw StorageError(.invalidArgument, "continuationMarker belongs to another query; send it with the query that returned it")
            }
            return cursor
        }
        let limit = max(1, min(query.limit, RecordLimits.maximumResults))
        return try await read { db in
            let zones: [ZoneRow]
            if let zoneName = query.zoneName {
                guard let zone = try Self.liveZone(database.zone(zoneName), db: db) else {
                    if zoneName == ZoneID.defaultZoneName { return QueryPage(records: [], continuationMarker: nil) }
                    throw StorageError(.zoneNotFound, "zone \(zoneName) does not exist")
                }
                zones = [zone]
            } else {
                zones = try Self.liveZones(in: database, db: db)
            }
            guard !zones.isEmpty else { return QueryPage(records: [], continuationMarker: nil) }
            var builder = QuerySQL(zoneIDs: zones.map(\.id), recordType: typed.recordType)
            for filter in typed.filters { try builder.add(filter) }
            for sort in typed.sort { builder.add(sort) }
            let (sql, arguments) = builder.statement(after: cursor, limit: limit + 1)
            let rows = try Row.fetchAll(db, sql: sql, arguments: arguments)
            let zoneIDs = Dictionary(uniqueKeysWithValues: zones.map { ($0.id, $0.zone.wireZoneID) })
            let page = rows.prefix(limit)
            let records = page.map { row in
                let record = RecordRow(row: row)
                return record.record(in: zoneIDs[record.zoneID] ?? database.wireZoneID(ZoneID.defaultZoneName))
            }
            var marker: String?
            if rows.count > limit, let last = page.last {
                let keys = (0..<builder.sortKeyCount).map { JSONValue(last["s\($0)"] as DatabaseValue) }
                marker = OpaqueToken.encode(QueryCursor(fingerprint: fingerprint, keys: keys, lastID: last[0]))
            }
            return QueryPage(records: records, continuationMarker: marker)
        }
    }

    /// A stable 64-bit FNV-1a hash: a continuation marker names the query it belongs to.
    static func fingerprint(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
