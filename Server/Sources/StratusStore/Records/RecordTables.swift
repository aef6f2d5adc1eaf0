import StratusModel

/// Reads of the `records` table written once for every backend (``SQLTables``).
public enum RecordTables {
    /// The named live records of a zone, with share details on share records.
    /// - Throws: ``StorageError/Code/zoneNotFound`` when nothing is found and the zone does not exist.
    public static func lookup(_ recordNames: [String], in zone: ZoneRef, reading: any SQLReading) async throws -> [String: Record] {
        let names = Array(Set(recordNames))
        guard !names.isEmpty else { return [:] }
        // The zone and its records in one statement. Only when nothing is found does it matter whether the zone exists.
        // One name is an equality: a prepared statement keeps one good plan for it, where a list's plan depends on
        // its length.
        let nameCondition: SQLFragment = names.count == 1 ? "r.name = \(.text(names[0]))" : "r.name\(anyOf: names.map { .text($0) })"
        let read = SQLRead("""
            SELECT \(raw: StoredRecordRow.columns) FROM zones z JOIN records r ON r.zone_id = z.id
            WHERE \(ZoneTables.belongs(to: zone.database)) AND z.name = \(.text(zone.zoneName)) AND \(.live("z"))
                AND \(.live("r")) AND \(nameCondition)
            """) { rows in try rows.map(StoredRecordRow.init) }
        .then { rows in
            StoredRecordRow.records(rows, zone: { _ in zone.wireZoneID }).map { records in
                Dictionary(records.map { ($0.recordName, $0) }, uniquingKeysWith: { first, _ in first })
            }
        }
        .then { found in
            guard found.isEmpty, !zone.isDefault else { return SQLRead(value: found) }
            return ZoneTables.liveZone(zone).map { row in
                guard row != nil else { throw ZoneRules.missing(zone.zoneName) }
                return found
            }
        }
        return try await reading.read(read)
    }

    /// A row of a zone's records by name, live or a tombstone.
    static func row(named name: String, zoneID: Int64, lock: SQLPhrase? = nil, reading: any SQLReading) async throws -> StoredRecordRow? {
        let lockPhrase: SQLFragment = lock.map { "\($0)" } ?? ""
        let rows = try await reading.rows("""
            SELECT \(raw: StoredRecordRow.columns) FROM records r WHERE r.zone_id = \(.integer(zoneID)) AND r.name = \(.text(name))\(lockPhrase)
            """)
        return try rows.first.map(StoredRecordRow.init)
    }
}

extension StoredRecordRow {
    /// A row whose select list starts with ``columns``, read by position (a feed page reads many).
    public init(_ row: SQLRow) throws {
        self.init(
            id: try row.integer(0), name: try row.text(1), type: try row.text(2), changeTag: try row.text(3),
            fieldsJSON: try row.text(4), createdAt: try row.integer(5), createdBy: try row.text(6), createdDevice: try row.text(7),
            modifiedAt: try row.integer(8), modifiedBy: try row.text(9), modifiedDevice: try row.text(10), deleted: try row.bool(11),
            zoneID: try row.integer(12), parent: try row.optionalText(13), share: try row.optionalText(14), shortGUID: try row.optionalText(15)
        )
    }

    /// The record, with its participants when it is a live share.
    public func record(in zone: ZoneID, reading: any SQLReading) async throws -> Record {
        guard isLiveShare else { return record(in: zone) }
        return try await reading.read(Self.records([self], zone: { _ in zone }))[0]
    }

    /// The records of `rows`, in their order, each in the zone `zone` names for it, with participants on live
    /// shares: a read of no statement unless a row is a live share.
    public static func records(_ rows: [StoredRecordRow], zone: (StoredRecordRow) -> ZoneID) -> SQLRead<[Record]> {
        var records: [Record] = []
        records.reserveCapacity(rows.count)
        var shares: [(index: Int, id: Int64)] = []
        for row in rows {
            if row.isLiveShare { shares.append((records.count, row.id)) }
            records.append(row.record(in: zone(row)))
        }
        guard !shares.isEmpty else { return SQLRead(value: records) }
        return ShareTables.details(ofShareRecords: shares.map(\.id)).map { [records, shares] details in
            var withDetails = records
            for share in shares { withDetails[share.index].shareDetails = details[share.id] }
            return withDetails
        }
    }
}

/// Records by name, written once over any backend's tables (``SQLTables``).
extension RecordStore where Self: SQLTables {
    public func lookupRecords(_ recordNames: [String], in zone: ZoneRef) async throws -> [String: Record] {
        try await StoreSpans.run("store.lookupRecords", database: zone.database, attributes: ["stratus.records": .int64(Int64(recordNames.count))]) {
            try await RecordTables.lookup(recordNames, in: zone, reading: self)
        }
    }
}
