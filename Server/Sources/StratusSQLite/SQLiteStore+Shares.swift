import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: ShareStore {
    public func share(shortGUID: String) async throws -> StoredShare? {
        try await read { db in try Self.share(shortGUID: shortGUID, db: db)?.share }
    }

    /// The live share a short GUID names, with its record's row id.
    static func share(shortGUID: String, db: Database) throws -> (share: StoredShare, recordID: Int64)? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT r.zone_id, r.name, r.type, r.share_name, z.container_id, z.environment, z.scope, z.owner, z.name AS zone_name
                FROM records r JOIN zones z ON z.id = r.zone_id WHERE r.short_guid = ? AND r.deleted = 0 AND z.deleted = 0
                """),
            arguments: [shortGUID]
        ) else { return nil }
        let isShare = (row["type"] as String) == ShareRecords.recordType
        guard let shareName: String = isShare ? row["name"] : row["share_name"],
            let shareRow = try StoredRecordRow.fetch(zoneID: row["zone_id"], name: shareName, db: db), !shareRow.deleted
        else { return nil }
        let zone = database(from: row).zone(row["zone_name"])
        return (StoredShare(zone: zone, record: try shareRow.record(in: zone.wireZoneID, db: db)), shareRow.id)
    }

    public func acceptShare(shortGUID: String, user: ShareUser) async throws -> StoredShare {
        try await write { batch in
            let db = batch.db
            guard let (share, recordID) = try Self.share(shortGUID: shortGUID, db: db) else {
                throw ShareAcceptance.unknownLink(shortGUID)
            }
            let decision = try ShareAcceptance.decide(share.details, for: user)
            if decision == .nothing { return share }
            let sequence = self.nextSequence()
            switch decision {
            case .nothing:
                return share
            case .accept(let participantID):
                try db.execute(
                    sql: "UPDATE share_participants SET user_record_name = ?, status = 'ACCEPTED', seq = ? WHERE share_record_id = ? AND participant_id = ?",
                    arguments: [user.userRecordName, sequence, recordID, participantID]
                )
            case .join(let permission):
                try db.execute(
                    sql: """
                        INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
                        SELECT ?, zone_id, ?, ?, ?, ?, ?, 'PUBLIC_USER', 'ACCEPTED', ? FROM shares WHERE record_id = ?
                        """,
                    arguments: [recordID, ShortGUID.random(), user.userRecordName, user.emailAddress, user.phoneNumber, permission.rawValue, sequence, recordID]
                )
            }
            var accepted = share
            accepted.record.shareDetails = try ShareRows.details(ofShareRecord: recordID, db: db)
            return accepted
        }
    }

    public func leaveShares(in zone: ZoneRef, user: String) async throws -> Bool {
        try await write { batch in
            guard let row = try Self.liveZone(zone, db: batch.db) else { return false }
            try batch.db.execute(
                sql: "UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE zone_id = ? AND user_record_name = ? AND status != 'REMOVED'",
                arguments: [self.nextSequence(), row.id, user]
            )
            return batch.db.changesCount > 0
        }
    }

    /// A participant's shares per zone: whether any still reaches the zone, and the latest change to them.
    private static let participationSQL = """
        SELECT z.id, z.owner, z.name, z.deleted, MAX(p.seq) AS last_change,
            MAX(p.status = 'ACCEPTED' AND s.record_id IS NOT NULL
                AND (CASE WHEN p.type = 'PUBLIC_USER' THEN s.public_permission ELSE p.permission END) != 'NONE') AS reachable
        FROM share_participants p JOIN zones z ON z.id = p.zone_id LEFT JOIN shares s ON s.record_id = p.share_record_id
        WHERE p.user_record_name = ? AND z.container_id = ? AND z.environment = ? AND z.scope = 'private'
        GROUP BY z.id
        """

    public func sharedZones(of user: String, containerID: String, environment: Environment) async throws -> [ZoneRef] {
        try await read { db in
            let zones = try Row.fetchAll(db, sql: Self.participationSQL, arguments: [user, containerID, environment.rawValue]).map { row in
                ChangeFeeds.SharedZoneState(
                    owner: row["owner"], name: row["name"], reachable: (row["reachable"] as Bool) && !(row["deleted"] as Bool), lastChange: row["last_change"]
                )
            }
            return ChangeFeeds.sharedZones(zones, containerID: containerID, environment: environment)
        }
    }

    public func sharedDatabaseChanges(
        of user: String, containerID: String, environment: Environment, since syncToken: String?, limit: Int
    ) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        return try await read { db in
            var zones: [ChangeFeeds.SharedZoneState] = []
            for row in try Row.fetchAll(db, sql: Self.participationSQL, arguments: [user, containerID, environment.rawValue]) {
                let reachable = (row["reachable"] as Bool) && !(row["deleted"] as Bool)
                var last: Int64 = row["last_change"]
                // A zone the participant still reaches changes with its records; one they lost, only when they lost it.
                if reachable { last = max(last, try Self.lastChange(ofZone: row["id"], db: db)) }
                zones.append(ChangeFeeds.SharedZoneState(owner: row["owner"], name: row["name"], reachable: reachable, lastChange: last))
            }
            return ChangeFeeds.sharedDatabaseChanges(zones, since: since, limit: limit)
        }
    }

    public func shareAccess(in zone: ZoneRef, user: String) async throws -> ShareAccess {
        try await read { db in
            guard let row = try Self.liveZone(zone, db: db) else { return ShareAccess(grants: []) }
            return try ShareRows.access(ofZone: row.id, user: user, db: db)
        }
    }

    public func coveringShares(of recordNames: [String], in zone: ZoneRef) async throws -> [String: String] {
        try await read { db in
            guard let row = try Self.liveZone(zone, db: db) else { return [:] }
            var covering: [String: String] = [:]
            for name in Set(recordNames) {
                covering[name] = try ShareRows.coveringShare(ofRecord: name, zoneID: row.id, db: db)
            }
            return covering
        }
    }

    public func sharedLookup(_ recordNames: [String], in zone: ZoneRef, user: String) async throws -> SharedLookup {
        try await readSnapshot { db in
            guard let row = try Self.liveZone(zone, db: db) else { return SharedLookup(access: ShareAccess(grants: []), records: [:], covering: [:]) }
            let access = try ShareRows.access(ofZone: row.id, user: user, db: db)
            guard !access.isEmpty else { return SharedLookup(access: access, records: [:], covering: [:]) }
            let records = try Self.lookup(recordNames, in: zone, db: db)
            var covering: [String: String] = [:]
            if access.zoneWide == nil {
                for name in records.keys { covering[name] = try ShareRows.coveringShare(ofRecord: name, zoneID: row.id, db: db) }
            }
            return SharedLookup(access: access, records: records, covering: covering)
        }
    }
}
