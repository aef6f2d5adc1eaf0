import StratusModel

/// The `zones` table, read and changed once for every backend (``SQLTables``): a row per zone ever created,
/// kept with `deleted` set when the zone is deleted, and `seq` the change position of its creation or deletion.
public enum ZoneTables {
    /// The condition that a `zones z` row belongs to `database`.
    static func belongs(to database: DatabaseRef) -> SQLFragment {
        """
        z.container_id = \(.text(database.containerID)) AND z.environment = \(.text(database.environment.rawValue)) \
        AND z.scope = \(.text(database.scope.rawValue)) AND z.owner = \(.text(database.ownerRecordName))
        """
    }

    /// The live zone's row, if the zone exists.
    /// - Parameter lock: ``SQLPhrase/lockForShare`` for a write that relies on the zone staying (its records'
    ///   writers), ``SQLPhrase/lockForUpdate`` for its deletion.
    public static func liveZone(_ zone: ZoneRef, lock: SQLPhrase? = nil, in reading: any SQLReading) async throws -> ZoneRow? {
        try await reading.read(liveZone(zone, lock: lock))
    }

    /// The read of ``liveZone(_:lock:in:)``, for a backend's synchronous connection too.
    public static func liveZone(_ zone: ZoneRef, lock: SQLPhrase? = nil) -> SQLRead<ZoneRow?> {
        let lockPhrase: SQLFragment = lock.map { "\($0)" } ?? ""
        return SQLRead("""
            SELECT z.id FROM zones z WHERE \(belongs(to: zone.database)) AND z.name = \(.text(zone.zoneName)) AND \(.live("z"))\(lockPhrase)
            """) { rows in try rows.first.map { ZoneRow(id: try $0.integer("id"), zone: zone) } }
    }

    /// The live zones of a database, by name.
    public static func liveZones(in database: DatabaseRef) -> SQLRead<[ZoneRow]> {
        SQLRead("SELECT z.id, z.name FROM zones z WHERE \(belongs(to: database)) AND \(.live("z")) ORDER BY z.name") { rows in
            try rows.map { ZoneRow(id: try $0.integer("id"), zone: database.zone(try $0.text("name"))) }
        }
    }

    /// The zone's row, creating it first if it is a default zone (which always exists for clients).
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a missing custom zone.
    public static func ensureZone(_ zone: ZoneRef, in transaction: any SQLTransaction) async throws -> ZoneRow {
        if let row = try await liveZone(zone, lock: .lockForShare, in: transaction) { return row }
        try ZoneRules.requireCreatedOnWrite(zone)
        return try await insertZone(zone, in: transaction)
    }

    /// ``ensureZone(_:in:)`` as one read, for a backend's synchronous writer (SQLite's, where one writer runs at a
    /// time and rows need no lock): `position` is taken only when the zone is created.
    public static func ensureZone(_ zone: ZoneRef, takingPosition position: @escaping @Sendable () -> Int64) -> SQLRead<ZoneRow> {
        liveZone(zone, lock: .lockForShare).then { row in
            if let row { return SQLRead(value: row) }
            try ZoneRules.requireCreatedOnWrite(zone)
            return insert(zone, at: position())
        }
    }

    /// Creates a zone. Where writers run concurrently, a concurrent creation of the same zone fails the
    /// transaction on the unique index, and it runs again.
    static func insertZone(_ zone: ZoneRef, in transaction: any SQLTransaction) async throws -> ZoneRow {
        try await transaction.read(insert(zone, at: try await transaction.position()))
    }

    /// The statement of ``insertZone(_:in:)``, for a backend's synchronous writer too: a new zone's row, created at
    /// change position `position`.
    public static func insert(_ zone: ZoneRef, at position: Int64) -> SQLRead<ZoneRow> {
        let database = zone.database
        return SQLRead("""
            INSERT INTO zones (container_id, environment, scope, owner, name, seq)
            VALUES (\(.text(database.containerID)), \(.text(database.environment.rawValue)), \(.text(database.scope.rawValue)), \
            \(.text(database.ownerRecordName)), \(.text(zone.zoneName)), \(.integer(position)))
            RETURNING id
            """) { rows in
            guard let id = try rows.first?.integer("id") else { throw StorageError(.internalFailure, "a zone could not be created") }
            return ZoneRow(id: id, zone: zone)
        }
    }

    /// The zone with a token at its latest settled change (its creation, or a record change), and whether a
    /// later committed record change has not settled yet (``SQLTables/readSettled(_:)``).
    static func zoneInfo(_ row: ZoneRow, reading: any SQLReading) async throws -> (info: ZoneInfo, unsettled: Bool) {
        let id = SQLValue.integer(row.id)
        let rows = try await reading.rows("""
            WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound)
            SELECT COALESCE((SELECT MAX(m) FROM (
                    SELECT (SELECT seq FROM zones WHERE id = \(id) AND seq < b.bound) AS m
                    UNION ALL SELECT (SELECT seq FROM records WHERE zone_id = \(id) AND seq < b.bound ORDER BY seq DESC LIMIT 1)) AS latest), 0)
                    AS last_change,
                (SELECT seq FROM records WHERE zone_id = \(id) AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL AS unsettled
            FROM b
            """)
        let last = try rows.first?.integer("last_change") ?? 0
        let info = ZoneInfo(zoneID: row.zone.wireZoneID, syncToken: ZoneSyncToken(zone: row.id, sequence: last).text, atomic: !row.zone.isDefault)
        return (info, try rows.first?.bool("unsettled") ?? false)
    }

    /// Deletes a zone: its records with their index entries and references, its shares (their participants
    /// removed), and marks its row deleted.
    static func deleteZone(_ row: ZoneRow, in transaction: any SQLTransaction) async throws {
        let id = SQLValue.integer(row.id)
        try await transaction.rows("DELETE FROM field_index WHERE zone_id = \(id)")
        try await transaction.rows("DELETE FROM record_refs WHERE source_id IN (SELECT id FROM records WHERE zone_id = \(id))")
        try await transaction.rows("DELETE FROM asset_refs WHERE record_id IN (SELECT id FROM records WHERE zone_id = \(id))")
        try await transaction.rows("DELETE FROM records WHERE zone_id = \(id)")
        try await transaction.rows("DELETE FROM shares WHERE zone_id = \(id)")
        try await transaction.rows("""
            UPDATE share_participants SET status = 'REMOVED', seq = \(.integer(try await transaction.position()))
            WHERE zone_id = \(id) AND status != 'REMOVED'
            """)
        try await transaction.rows("UPDATE zones SET deleted = \(.bool(true)), seq = \(.integer(try await transaction.position())) WHERE id = \(id)")
    }
}

/// A database's zones, written once over any backend's tables (``SQLTables``).
extension RecordStore where Self: SQLTables {
    public func zones(in database: DatabaseRef) async throws -> [ZoneInfo] {
        try await readSettled { reading in
            var stored: [ZoneInfo] = []
            var unsettled = false
            for row in try await reading.read(ZoneTables.liveZones(in: database)) {
                let zone = try await ZoneTables.zoneInfo(row, reading: reading)
                stored.append(zone.info)
                unsettled = unsettled || zone.unsettled
            }
            return (ZoneRules.listing(stored, in: database), unsettled)
        }
    }

    public func lookupZones(_ zoneNames: [String], in database: DatabaseRef) async throws -> [String: ZoneInfo] {
        try await readSettled { reading in
            var stored: [String: ZoneInfo] = [:]
            var unsettled = false
            for name in Set(zoneNames) {
                guard let row = try await ZoneTables.liveZone(database.zone(name), in: reading) else { continue }
                let zone = try await ZoneTables.zoneInfo(row, reading: reading)
                stored[name] = zone.info
                unsettled = unsettled || zone.unsettled
            }
            return (ZoneRules.found(zoneNames, stored: stored, in: database), unsettled)
        }
    }

    /// Each operation in a savepoint: one the rules refuse fails alone, and the others are kept.
    public func modifyZones(_ operations: [ZoneOperation], in database: DatabaseRef) async throws -> [ZoneOperationResult] {
        try await StoreSpans.run("store.modifyZones", database: database, attributes: ["stratus.operations": .int64(Int64(operations.count))]) {
            try await applyZoneOperations(operations, in: database)
        }
    }

    private func applyZoneOperations(_ operations: [ZoneOperation], in database: DatabaseRef) async throws -> [ZoneOperationResult] {
        try await transaction { transaction in
            var results: [ZoneOperationResult] = []
            for operation in operations {
                let zone = database.zone(operation.zoneName)
                do {
                    results.append(try await transaction.savepoint { try await Self.apply(operation, to: zone, in: transaction) })
                } catch let error as StorageError where error.refusesTheOperation {
                    results.append(.failed(zoneID: zone.wireZoneID, error: error))
                }
            }
            return results
        }
    }

    private static func apply(_ operation: ZoneOperation, to zone: ZoneRef, in transaction: any SQLTransaction) async throws -> ZoneOperationResult {
        try ZoneRules.check(operation, on: zone)
        switch operation {
        case .create:
            let existing = try await ZoneTables.liveZone(zone, in: transaction)
            let row = if let existing { existing } else { try await ZoneTables.insertZone(zone, in: transaction) }
            return .saved(try await ZoneTables.zoneInfo(row, reading: transaction).info)
        case .delete:
            guard let row = try await ZoneTables.liveZone(zone, lock: .lockForUpdate, in: transaction) else {
                throw ZoneRules.missing(zone.zoneName)
            }
            try await ZoneTables.deleteZone(row, in: transaction)
            return .deleted(zone.wireZoneID)
        }
    }
}
