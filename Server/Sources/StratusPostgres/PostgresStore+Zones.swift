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

    /// The zone with a token at its latest settled change (its creation, or a record change), after waiting
    /// briefly for committed changes to settle (see ``readSettled(_:)``).
    /// - Parameter settle: wait for settling; not inside a write, which would hold settling back while it waited.
    func zoneInfo(_ row: ZoneRow, connection: PostgresConnection, settle: Bool = true) async throws -> ZoneInfo {
        try await untilSettled(wait: settle ? Self.settleWait : .zero, connection: connection) { connection in
            let rows = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH b AS MATERIALIZED (SELECT \(ChangePosition.settledBoundSQL(offset: self.positionOffset)) AS bound)
                        SELECT COALESCE(GREATEST((SELECT seq FROM zones WHERE id = $1 AND seq < b.bound),
                                (SELECT MAX(seq) FROM records WHERE zone_id = $1 AND seq < b.bound)), 0),
                            (SELECT seq FROM records WHERE zone_id = $1 AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL
                        FROM b
                        """,
                    binds: try binds(row.id)
                ),
                as: (Int64, Bool).self, logger: self.logger
            )
            let (last, unsettled) = rows.first ?? (0, false)
            return (ZoneInfo(zoneID: row.zone.wireZoneID, syncToken: ZoneSyncToken(zone: row.id, sequence: last).text, atomic: !row.zone.isDefault), unsettled)
        }
    }

    public func zones(in database: DatabaseRef) async throws -> [ZoneInfo] {
        try await read { connection in
            var stored: [ZoneInfo] = []
            for row in try await Self.liveZones(in: database, connection: connection, logger: self.logger) {
                stored.append(try await self.zoneInfo(row, connection: connection))
            }
            return ZoneRules.listing(stored, in: database)
        }
    }

    public func lookupZones(_ zoneNames: [String], in database: DatabaseRef) async throws -> [String: ZoneInfo] {
        try await read { connection in
            var stored: [String: ZoneInfo] = [:]
            for name in Set(zoneNames) {
                if let row = try await Self.liveZone(database.zone(name), connection: connection, logger: self.logger) {
                    stored[name] = try await self.zoneInfo(row, connection: connection)
                }
            }
            return ZoneRules.found(zoneNames, stored: stored, in: database)
        }
    }

    public func modifyZones(_ operations: [ZoneOperation], in database: DatabaseRef) async throws -> [ZoneOperationResult] {
        try await writeRetryingConflicts { write in
            var results: [ZoneOperationResult] = []
            for (index, operation) in operations.enumerated() {
                let zone = database.zone(operation.zoneName)
                let savepoint = "zone_\(index)"
                try await write.connection.run(PostgresQuery(unsafeSQL: "SAVEPOINT \(savepoint)"), logger: write.logger)
                do {
                    results.append(try await self.apply(operation, to: zone, write: write))
                    try await write.connection.run(PostgresQuery(unsafeSQL: "RELEASE SAVEPOINT \(savepoint)"), logger: write.logger)
                } catch let error as StorageError where error.code != .unavailable && error.code != .internalFailure {
                    try await write.connection.run(PostgresQuery(unsafeSQL: "ROLLBACK TO SAVEPOINT \(savepoint)"), logger: write.logger)
                    results.append(.failed(zoneID: zone.wireZoneID, error: error))
                }
            }
            return results
        }
    }

    private func apply(_ operation: ZoneOperation, to zone: ZoneRef, write: PostgresWrite) async throws -> ZoneOperationResult {
        try ZoneRules.check(operation, on: zone)
        let connection = write.connection
        let logger = write.logger
        switch operation {
        case .create:
            let existing = try await Self.liveZone(zone, connection: connection, logger: logger)
            let row: ZoneRow
            if let existing { row = existing } else { row = try await Self.insertZone(zone, write: write) }
            return .saved(try await self.zoneInfo(row, connection: connection, settle: false))
        case .delete:
            guard let row = try await Self.liveZone(zone, connection: connection, logger: logger, lock: .update) else {
                throw ZoneRules.missing(zone.zoneName)
            }
            try await connection.run("DELETE FROM field_index WHERE zone_id = \(row.id)", logger: logger)
            try await connection.run("DELETE FROM record_refs WHERE source_id IN (SELECT id FROM records WHERE zone_id = \(row.id))", logger: logger)
            try await connection.run("DELETE FROM asset_refs WHERE record_id IN (SELECT id FROM records WHERE zone_id = \(row.id))", logger: logger)
            try await connection.run("DELETE FROM records WHERE zone_id = \(row.id)", logger: logger)
            try await PostgresShareRows.removeShares(ofZone: row.id, position: try await write.positions(), connection: connection, logger: logger)
            try await connection.run("UPDATE zones SET deleted = true, seq = \(try await write.positions()) WHERE id = \(row.id)", logger: logger)
            return .deleted(zone.wireZoneID)
        }
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
