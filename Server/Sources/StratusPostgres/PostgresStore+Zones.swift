import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    /// The live zone's row, if the zone exists.
    /// - Parameter lock: ``SQLPhrase/lockForShare`` for writers of its records (the zone is not deleted under them).
    static func liveZone(_ zone: ZoneRef, connection: PostgresConnection, logger: Logger, lock: SQLPhrase? = nil) async throws -> ZoneRow? {
        try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(ZoneTables.liveZone(zone, lock: lock))
    }

    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, connection: PostgresConnection, logger: Logger) async throws -> [ZoneRow] {
        try await PostgresReading(connection: connection, logger: logger, dialect: PostgresDialect()).read(ZoneTables.liveZones(in: database))
    }

    /// The zone's row, creating it first if it is a default zone (which always exists for clients).
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a missing custom zone.
    static func ensureZone(_ zone: ZoneRef, write: PostgresWrite) async throws -> ZoneRow {
        if let row = try await liveZone(zone, connection: write.connection, logger: write.logger, lock: .lockForShare) { return row }
        try ZoneRules.requireCreatedOnWrite(zone)
        return try await insertZone(zone, write: write)
    }

    /// Creates a zone; a concurrent creation of the same zone makes the transaction retry (unique index).
    static func insertZone(_ zone: ZoneRef, write: PostgresWrite) async throws -> ZoneRow {
        let database = zone.database
        let position = try await write.positions()
        let id = try await write.connection.all(
            """
            INSERT INTO zones (container_id, environment, scope, owner, name, seq)
            VALUES (\(database.containerID), \(database.environment.rawValue), \(database.scope.rawValue), \(database.ownerRecordName),
                \(zone.zoneName), \(position))
            RETURNING id
            """,
            as: Int64.self, logger: write.logger
        )
        guard let id = id.first else { throw StorageError(.internalFailure, "a zone could not be created") }
        return ZoneRow(id: id, zone: zone)
    }
}
