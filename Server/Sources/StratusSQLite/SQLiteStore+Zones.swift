import GRDB
import StratusModel
import StratusStore

extension SQLiteStore {
    /// The database a row names in its `container_id`, `environment`, `scope` and owner columns.
    static func database(from row: Row, ownerColumn: String = "owner") -> DatabaseRef {
        DatabaseRef(
            containerID: row["container_id"], environment: Environment(rawValue: row["environment"]) ?? .development,
            scope: DatabaseScope(rawValue: row["scope"]) ?? .public, ownerRecordName: row[ownerColumn]
        )
    }

    /// The live zone's row, if the zone exists.
    static func liveZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow? {
        try db.read(ZoneTables.liveZone(zone))
    }

    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, db: Database) throws -> [ZoneRow] {
        try db.read(ZoneTables.liveZones(in: database))
    }

    /// The zone's row, creating it first if it is a default zone (which always exists for clients).
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a missing custom zone.
    func ensureZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow {
        if let row = try Self.liveZone(zone, db: db) { return row }
        try ZoneRules.requireCreatedOnWrite(zone)
        return try db.read(ZoneTables.insert(zone, at: nextSequence()))
    }
}
