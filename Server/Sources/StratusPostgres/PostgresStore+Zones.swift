import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore {
    /// The live zone's row, if the zone exists.
    /// - Parameter lock: `.share` for writers of its records (the zone is not deleted under them), `.update` for
    ///   its deletion, `.none` for readers.
    static func liveZone(_ zone: ZoneRef, connection: PostgresConnection, logger: Logger, lock: ZoneLock = .none) async throws -> ZoneRow? {
        let database = zone.database
        let bindings = try binds(database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName, zone.zoneName)
        let rows = switch lock {
        case .none: try await connection.rows(FindZone.self, bindings, as: Int64.self, logger: logger)
        case .share: try await connection.rows(ShareLockZone.self, bindings, as: Int64.self, logger: logger)
        case .update: try await connection.rows(UpdateLockZone.self, bindings, as: Int64.self, logger: logger)
        }
        return rows.first.map { ZoneRow(id: $0, zone: zone) }
    }

    /// How a zone's row is locked when it is read in a transaction.
    enum ZoneLock {
        case none, share, update
    }

    /// The live zones of a database, by name.
    static func liveZones(in database: DatabaseRef, connection: PostgresConnection, logger: Logger) async throws -> [ZoneRow] {
        try await connection.rows(
            """
            SELECT id, name FROM zones WHERE container_id = \(database.containerID) AND environment = \(database.environment.rawValue)
                AND scope = \(database.scope.rawValue) AND owner = \(database.ownerRecordName) AND NOT deleted ORDER BY name
            """,
            as: (Int64, String).self, logger: logger
        ).map { ZoneRow(id: $0.0, zone: database.zone($0.1)) }
    }

    /// The zone's row, creating it first if it is a default zone (which always exists for clients).
    /// - Throws: ``StorageError/Code/zoneNotFound`` for a missing custom zone.
    static func ensureZone(_ zone: ZoneRef, write: PostgresWrite) async throws -> ZoneRow {
        if let row = try await liveZone(zone, connection: write.connection, logger: write.logger, lock: .share) { return row }
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

/// A live zone's id.
private enum FindZone: PreparedText {
    static let name = "find_zone"
    static let sql = """
        SELECT id FROM zones WHERE container_id = $1 AND environment = $2 AND scope = $3 AND owner = $4 AND name = $5 AND NOT deleted
        """
}

/// A live zone's id, locked against deletion until the transaction ends.
private enum ShareLockZone: PreparedText {
    static let name = "share_lock_zone"
    static let sql = FindZone.sql + " FOR SHARE"
}

/// A live zone's id, locked for its deletion.
private enum UpdateLockZone: PreparedText {
    static let name = "update_lock_zone"
    static let sql = FindZone.sql + " FOR UPDATE"
}
