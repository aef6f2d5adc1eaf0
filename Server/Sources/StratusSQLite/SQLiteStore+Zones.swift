import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    static let zoneColumns = "container_id = ? AND environment = ? AND scope = ? AND owner = ?"

    static func arguments(_ database: DatabaseRef) -> StatementArguments {
        [database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName]
    }

    /// The database a row names in its `container_id`, `environment`, `scope` and owner columns.
    static func database(from row: Row, ownerColumn: String = "owner") -> DatabaseRef {
        DatabaseRef(
            containerID: row["container_id"], environment: Environment(rawValue: row["environment"]) ?? .development,
            scope: DatabaseScope(rawValue: row["scope"]) ?? .public, ownerRecordName: row[ownerColumn]
        )
    }

    /// The live zone's row, if the zone exists.
    static func liveZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow? {
        let id = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM zones WHERE \(zoneColumns) AND name = ? AND deleted = 0"),
            arguments: arguments(zone.database) + [zone.zoneName]
        )
        return id.map { ZoneRow(id: $0, zone: zone) }
    }

    /// The live zones of a database.
    static func liveZones(in database: DatabaseRef, db: Database) throws -> [ZoneRow] {
        try Row.fetchAll(
            db, sql: "SELECT id, name FROM zones WHERE \(zoneColumns) AND deleted = 0 ORDER BY name",
            arguments: arguments(database)
        ).map { ZoneRow(id: $0[0], zone: database.zone($0[1])) }
    }

    /// The zone's row, creating it first if it is a default zone (which always exists for clients).
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a missing custom zone.
    func ensureZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow {
        if let row = try Self.liveZone(zone, db: db) { return row }
        try ZoneRules.requireCreatedOnWrite(zone)
        return try insertZone(zone, db: db)
    }

    private func insertZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow {
        try db.execute(
            sql: "INSERT INTO zones (container_id, environment, scope, owner, name, seq) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: Self.arguments(zone.database) + [zone.zoneName, nextSequence()]
        )
        return ZoneRow(id: db.lastInsertedRowID, zone: zone)
    }

    /// The sequence number of the zone's latest change (its creation, or a record change).
    static func lastChange(ofZone id: Int64, db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT MAX(m) FROM (SELECT seq AS m FROM zones WHERE id = ? UNION ALL SELECT MAX(seq) FROM records WHERE zone_id = ?)"),
            arguments: [id, id]
        ) ?? 0
    }

    static func zoneInfo(_ row: ZoneRow, db: Database) throws -> ZoneInfo {
        let token = ZoneSyncToken(zone: row.id, sequence: try lastChange(ofZone: row.id, db: db)).text
        return ZoneInfo(zoneID: row.zone.wireZoneID, syncToken: token, atomic: !row.zone.isDefault)
    }

    public func zones(in database: DatabaseRef) async throws -> [ZoneInfo] {
        try await read { db in
            ZoneRules.listing(try Self.liveZones(in: database, db: db).map { try Self.zoneInfo($0, db: db) }, in: database)
        }
    }

    public func lookupZones(_ zoneNames: [String], in database: DatabaseRef) async throws -> [String: ZoneInfo] {
        try await read { db in
            var stored: [String: ZoneInfo] = [:]
            for name in Set(zoneNames) {
                if let row = try Self.liveZone(database.zone(name), db: db) { stored[name] = try Self.zoneInfo(row, db: db) }
            }
            return ZoneRules.found(zoneNames, stored: stored, in: database)
        }
    }

    public func modifyZones(_ operations: [ZoneOperation], in database: DatabaseRef) async throws -> [ZoneOperationResult] {
        try await write { batch in
            let db = batch.db
            var results: [ZoneOperationResult] = []
            for operation in operations {
                let zone = database.zone(operation.zoneName)
                do {
                    try db.inSavepoint {
                        results.append(try self.apply(operation, to: zone, db: db))
                        return .commit
                    }
                } catch {
                    results.append(.failed(zoneID: zone.wireZoneID, error: StorageError.translating(error)))
                }
            }
            return results
        }
    }

    private func apply(_ operation: ZoneOperation, to zone: ZoneRef, db: Database) throws -> ZoneOperationResult {
        try ZoneRules.check(operation, on: zone)
        switch operation {
        case .create:
            let row = try Self.liveZone(zone, db: db) ?? insertZone(zone, db: db)
            return .saved(try Self.zoneInfo(row, db: db))
        case .delete:
            guard let row = try Self.liveZone(zone, db: db) else { throw ZoneRules.missing(zone.zoneName) }
            try db.execute(sql: "DELETE FROM field_index WHERE zone_id = ?", arguments: [row.id])
            try db.execute(sql: "DELETE FROM record_refs WHERE source_id IN (SELECT id FROM records WHERE zone_id = ?)", arguments: [row.id])
            try db.execute(sql: "DELETE FROM asset_refs WHERE record_id IN (SELECT id FROM records WHERE zone_id = ?)", arguments: [row.id])
            try db.execute(sql: "DELETE FROM records WHERE zone_id = ?", arguments: [row.id])
            try ShareRows.removeShares(ofZone: row.id, sequence: nextSequence(), db: db)
            try db.execute(sql: "UPDATE zones SET deleted = 1, seq = ? WHERE id = ?", arguments: [nextSequence(), row.id])
            return .deleted(zone.wireZoneID)
        }
    }
}
