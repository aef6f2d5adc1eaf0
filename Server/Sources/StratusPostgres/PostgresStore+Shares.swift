import Logging
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: ShareStore {
    public func share(shortGUID: String) async throws -> StoredShare? {
        try await read { connection in try await self.share(shortGUID: shortGUID, connection: connection)?.share }
    }

    /// The live share a short GUID names, with its record's row id.
    /// - Parameter lock: lock the share record `FOR UPDATE` (a write that changes its participants).
    private func share(shortGUID: String, connection: PostgresConnection, lock: Bool = false) async throws -> (share: StoredShare, recordID: Int64)? {
        let rows = try await connection.rows(
            """
            SELECT r.zone_id, r.name, r.type, r.share_name, z.container_id, z.environment, z.scope, z.owner, z.name
            FROM records r JOIN zones z ON z.id = r.zone_id WHERE r.short_guid = \(shortGUID) AND NOT r.deleted AND NOT z.deleted
            """,
            as: (Int64, String, String, String?, String, String, String, String, String).self, logger: logger
        )
        guard let (zoneID, name, type, shareName, container, environment, scope, owner, zoneName) = rows.first else { return nil }
        guard let shareName = type == ShareRecords.recordType ? name : shareName else { return nil }
        var shareRow: StoredRecordRow?
        for try await row in try await connection.query(
            PostgresQuery(
                unsafeSQL: "SELECT \(StoredRecordRow.columns) FROM records r WHERE r.zone_id = $1 AND r.name = $2\(lock ? " FOR UPDATE" : "")",
                binds: try binds(zoneID, shareName)
            ),
            logger: logger
        ) {
            shareRow = try StoredRecordRow(row: row)
        }
        guard let shareRow, !shareRow.deleted else { return nil }
        let zone = Self.database(container, environment, scope, owner).zone(zoneName)
        return (StoredShare(zone: zone, record: try await shareRow.record(in: zone.wireZoneID, connection: connection, logger: logger)), shareRow.id)
    }

    public func acceptShare(shortGUID: String, user: ShareUser) async throws -> StoredShare {
        try await writeRetryingConflicts { write in
            let connection = write.connection
            guard let (share, recordID) = try await self.share(shortGUID: shortGUID, connection: connection, lock: true) else {
                throw ShareAcceptance.unknownLink(shortGUID)
            }
            let decision = try ShareAcceptance.decide(share.details, for: user)
            switch decision {
            case .nothing:
                return share
            case .accept(let participantID):
                try await connection.run(
                    """
                    UPDATE share_participants SET user_record_name = \(user.userRecordName), status = 'ACCEPTED', seq = \(try await write.positions())
                    WHERE share_record_id = \(recordID) AND participant_id = \(participantID)
                    """,
                    logger: write.logger
                )
            case .join(let permission):
                try await connection.run(
                    """
                    INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
                    SELECT \(recordID), zone_id, \(ShortGUID.random()), \(user.userRecordName), \(user.emailAddress), \(user.phoneNumber),
                        \(permission.rawValue), 'PUBLIC_USER', 'ACCEPTED', \(try await write.positions())
                    FROM shares WHERE record_id = \(recordID)
                    """,
                    logger: write.logger
                )
            }
            var accepted = share
            accepted.record.shareDetails = try await PostgresShareRows.details(ofShareRecord: recordID, connection: connection, logger: write.logger)
            return accepted
        }
    }

    public func leaveShares(in zone: ZoneRef, user: String) async throws -> Bool {
        try await writeRetryingConflicts { write in
            guard let row = try await Self.liveZone(zone, connection: write.connection, logger: write.logger) else { return false }
            return try await write.connection.count(
                """
                UPDATE share_participants SET status = 'REMOVED', seq = \(try await write.positions())
                WHERE zone_id = \(row.id) AND user_record_name = \(user) AND status != 'REMOVED' RETURNING 1
                """,
                logger: write.logger
            ) > 0
        }
    }

    /// A participant's shares per zone: whether any still reaches the zone, and the latest settled change to
    /// them and, for a zone they reach, to its records.
    private func participation(of user: String, containerID: String, environment: Environment, connection: PostgresConnection)
        async throws -> (zones: [ChangeFeeds.SharedZoneState], unsettled: Bool)
    {
        let rows = try await connection.rows(
            PostgresQuery(
                unsafeSQL: """
                    WITH b AS MATERIALIZED (SELECT \(ChangePosition.settledBoundSQL(offset: positionOffset)) AS bound),
                    p AS (
                        SELECT z.id, z.owner, z.name, z.deleted, MAX(p.seq) AS last_change,
                            BOOL_OR(p.status = 'ACCEPTED' AND s.record_id IS NOT NULL
                                AND (CASE WHEN p.type = 'PUBLIC_USER' THEN s.public_permission ELSE p.permission END) != 'NONE') AS reachable
                        FROM share_participants p JOIN zones z ON z.id = p.zone_id LEFT JOIN shares s ON s.record_id = p.share_record_id, b
                        WHERE p.user_record_name = $1 AND z.container_id = $2 AND z.environment = $3 AND z.scope = 'private' AND p.seq < b.bound
                        GROUP BY z.id
                    )
                    SELECT p.owner, p.name, p.reachable AND NOT p.deleted,
                        CASE WHEN p.reachable AND NOT p.deleted
                            THEN GREATEST(p.last_change, COALESCE((SELECT MAX(seq) FROM records WHERE zone_id = p.id AND seq < b.bound), 0),
                                (SELECT seq FROM zones WHERE id = p.id AND seq < b.bound))
                            ELSE p.last_change END,
                        (SELECT seq FROM records WHERE zone_id = p.id AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL
                            OR EXISTS (SELECT 1 FROM share_participants WHERE zone_id = p.id AND user_record_name = $1 AND seq >= b.bound)
                    FROM p, b
                    """,
                binds: try binds(user, containerID, environment.rawValue)
            ),
            as: (String, String, Bool, Int64, Bool).self, logger: logger
        )
        return (rows.map { ChangeFeeds.SharedZoneState(owner: $0.0, name: $0.1, reachable: $0.2, lastChange: $0.3) }, rows.contains { $0.4 })
    }

    public func sharedZones(of user: String, containerID: String, environment: Environment) async throws -> [ZoneRef] {
        try await readSettled { connection in
            let participation = try await self.participation(of: user, containerID: containerID, environment: environment, connection: connection)
            return (ChangeFeeds.sharedZones(participation.zones, containerID: containerID, environment: environment), participation.unsettled)
        }
    }

    public func sharedDatabaseChanges(
        of user: String, containerID: String, environment: Environment, since syncToken: String?, limit: Int
    ) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        return try await readSettled { connection in
            let participation = try await self.participation(of: user, containerID: containerID, environment: environment, connection: connection)
            return (ChangeFeeds.sharedDatabaseChanges(participation.zones, since: since, limit: limit), participation.unsettled)
        }
    }

    public func shareAccess(in zone: ZoneRef, user: String) async throws -> ShareAccess {
        try await read { connection in
            guard let row = try await Self.liveZone(zone, connection: connection, logger: self.logger) else { return ShareAccess(grants: []) }
            return try await PostgresShareRows.access(ofZone: row.id, user: user, connection: connection, logger: self.logger)
        }
    }

    public func coveringShares(of recordNames: [String], in zone: ZoneRef) async throws -> [String: String] {
        try await read { connection in
            guard let row = try await Self.liveZone(zone, connection: connection, logger: self.logger) else { return [:] }
            return try await PostgresShareRows.coveringShares(of: recordNames, zoneID: row.id, connection: connection, logger: self.logger)
        }
    }

    /// In one repeatable-read transaction, so that the access, the records and their shares are one snapshot.
    public func sharedLookup(_ recordNames: [String], in zone: ZoneRef, user: String) async throws -> SharedLookup {
        try await read { connection in
            try await connection.withTransaction(logger: self.logger) { transaction in
                try await transaction.run("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
                return try await self.sharedLookup(recordNames, in: zone, user: user, connection: transaction)
            }
        }
    }

    private func sharedLookup(_ recordNames: [String], in zone: ZoneRef, user: String, connection: PostgresConnection) async throws -> SharedLookup {
        guard let row = try await Self.liveZone(zone, connection: connection, logger: logger) else {
            return SharedLookup(access: ShareAccess(grants: []), records: [:], covering: [:])
        }
        let access = try await PostgresShareRows.access(ofZone: row.id, user: user, connection: connection, logger: logger)
        guard !access.isEmpty else { return SharedLookup(access: access, records: [:], covering: [:]) }
        let records = try await lookup(recordNames, in: zone, connection: connection)
        let covering = access.zoneWide != nil ? [:]
            : try await PostgresShareRows.coveringShares(of: Array(records.keys), zoneID: row.id, connection: connection, logger: logger)
        return SharedLookup(access: access, records: records, covering: covering)
    }
}
