import StratusModel

/// Shares and their participants, written once over any backend's tables (``SQLTables``, ``ShareTables``).
extension ShareStore where Self: SQLTables {
    public func share(shortGUID: String) async throws -> StoredShare? {
        try await ShareTables.share(shortGUID: shortGUID, reading: self)?.share
    }

    /// The share record's row is locked, so that two acceptances of one invitation run one after the other.
    public func acceptShare(shortGUID: String, user: ShareUser) async throws -> StoredShare {
        try await transaction { transaction in
            guard let (share, recordID) = try await ShareTables.share(shortGUID: shortGUID, lock: .lockForUpdate, reading: transaction) else {
                throw ShareAcceptance.unknownLink(shortGUID)
            }
            let record = SQLValue.integer(recordID)
            switch try ShareAcceptance.decide(share.details, for: user) {
            case .nothing:
                return share
            case .accept(let participantID):
                try await transaction.rows("""
                    UPDATE share_participants SET user_record_name = \(.text(user.userRecordName)), status = 'ACCEPTED', \
                    seq = \(.integer(try await transaction.position()))
                    WHERE share_record_id = \(record) AND participant_id = \(.text(participantID))
                    """)
            case .join(let permission):
                try await transaction.rows("""
                    INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
                    SELECT \(record), zone_id, \(.text(ShortGUID.random())), \(.text(user.userRecordName)), \(SQLValue(user.emailAddress)), \
                    \(SQLValue(user.phoneNumber)), \(.text(permission.rawValue)), 'PUBLIC_USER', 'ACCEPTED', \(.integer(try await transaction.position()))
                    FROM shares WHERE record_id = \(record)
                    """)
            }
            var accepted = share
            accepted.record.shareDetails = try await ShareTables.details(ofShareRecord: recordID, reading: transaction)
            try await WebhookTables.queueShareEvent(
                "share.accepted", zone: share.zone, shareRecordName: share.record.recordName, user: user.userRecordName, in: transaction
            )
            return accepted
        }
    }

    public func leaveShares(in zone: ZoneRef, user: String) async throws -> Bool {
        try await transaction { transaction in
            guard let row = try await ZoneTables.liveZone(zone, in: transaction) else { return false }
            let left = try await !transaction.rows("""
                UPDATE share_participants SET status = 'REMOVED', seq = \(.integer(try await transaction.position()))
                WHERE zone_id = \(.integer(row.id)) AND user_record_name = \(.text(user)) AND status != 'REMOVED' RETURNING 1 AS left
                """).isEmpty
            if left { try await WebhookTables.queueShareEvent("share.left", zone: zone, shareRecordName: nil, user: user, in: transaction) }
            return left
        }
    }

    public func sharedZones(of user: String, containerID: String, environment: Environment) async throws -> [ZoneRef] {
        try await readSettled { reading in
            let participation = try await ShareTables.participation(of: user, containerID: containerID, environment: environment, reading: reading)
            return (ChangeFeeds.sharedZones(participation.zones, containerID: containerID, environment: environment), participation.unsettled)
        }
    }

    public func sharedDatabaseChanges(
        of user: String, containerID: String, environment: Environment, since syncToken: String?, limit: Int
    ) async throws -> DatabaseChanges {
        let since = try DatabaseSyncToken.read(syncToken).sequence
        return try await readSettled { reading in
            let participation = try await ShareTables.participation(of: user, containerID: containerID, environment: environment, reading: reading)
            return (ChangeFeeds.sharedDatabaseChanges(participation.zones, since: since, limit: limit), participation.unsettled)
        }
    }

    public func shareAccess(in zone: ZoneRef, user: String) async throws -> ShareAccess {
        guard let row = try await ZoneTables.liveZone(zone, in: self) else { return ShareAccess(grants: []) }
        return try await read(ShareTables.access(ofZone: row.id, user: user))
    }

    public func coveringShares(of recordNames: [String], in zone: ZoneRef) async throws -> [String: String] {
        guard let row = try await ZoneTables.liveZone(zone, in: self) else { return [:] }
        return try await ShareTables.coveringShares(of: recordNames, zoneID: row.id, reading: self)
    }

    /// In one snapshot: the access, the records and their shares are read from one committed state.
    public func sharedLookup(_ recordNames: [String], in zone: ZoneRef, user: String) async throws -> SharedLookup {
        try await snapshot { reading in
            guard let row = try await ZoneTables.liveZone(zone, in: reading) else {
                return SharedLookup(access: ShareAccess(grants: []), records: [:], covering: [:])
            }
            let access = try await reading.read(ShareTables.access(ofZone: row.id, user: user))
            guard !access.isEmpty else { return SharedLookup(access: access, records: [:], covering: [:]) }
            let records = try await RecordTables.lookup(recordNames, in: zone, reading: reading)
            let covering = access.zoneWide != nil ? [:]
                : try await ShareTables.coveringShares(of: Array(records.keys), zoneID: row.id, reading: reading)
            return SharedLookup(access: access, records: records, covering: covering)
        }
    }
}
