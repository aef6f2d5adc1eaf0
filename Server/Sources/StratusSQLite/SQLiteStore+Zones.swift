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

    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, db: Database) throws -> [ZoneRow] {
        try db.read(ZoneTables.liveZones(in: database))
    }

    /// The zone's row, creating it first if it is a default zone (``ZoneTables/ensureZone(_:takingPosition:)``).
    func ensureZone(_ zone: ZoneRef, db: Database) throws -> ZoneRow {
        try db.read(ZoneTables.ensureZone(zone, takingPosition: { self.nextSequence() }))
    }
}
