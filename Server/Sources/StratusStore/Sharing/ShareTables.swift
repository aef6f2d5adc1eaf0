import StratusModel

/// Reads and changes of the `shares` and `share_participants` tables written once for every backend
/// (``SQLTables``): a `shares` row per live share record (its root, or none for a zone-wide share, and its
/// public permission), a `share_participants` row per participant ever added (`REMOVED` ones kept, so that
/// change feeds tell the participant), each with the change position of its latest change.
public enum ShareTables {
    /// The details of a live share record: its link, public permission, owner and participants.
    public static func details(ofShareRecord id: Int64, reading: any SQLReading) async throws -> ShareDetails? {
        try await reading.read(details(ofShareRecords: [id]))[id]
    }

    /// The details of live share records by record id: link, public permission, owner and participants.
    public static func details(ofShareRecords ids: [Int64]) -> SQLRead<[Int64: ShareDetails]> {
        guard !ids.isEmpty else { return SQLRead(value: [:]) }
        return SQLRead("""
            SELECT s.record_id, s.root_name, s.public_permission, z.owner,
                COALESCE((SELECT short_guid FROM records WHERE zone_id = s.zone_id AND name = s.root_name), sr.short_guid) AS guid
            FROM shares s JOIN records sr ON sr.id = s.record_id JOIN zones z ON z.id = s.zone_id
            WHERE s.record_id\(anyOf: ids.map { .integer($0) })
            """) { rows in
            var details: [Int64: ShareDetails] = [:]
            for row in rows {
                details[try row.integer("record_id")] = ShareDetails(
                    shortGUID: try row.optionalText("guid") ?? "",
                    publicPermission: SharePermission(rawValue: try row.text("public_permission")) ?? .none,
                    ownerRecordName: try row.text("owner"), rootRecordName: try row.optionalText("root_name"), participants: []
                )
            }
            return details
        }.then { found in
            guard !found.isEmpty else { return SQLRead(value: found) }
            return participants(ofShareRecords: Array(found.keys)).map { participants in
                var details = found
                for id in found.keys { details[id]?.participants = participants[id] ?? [] }
                return details
            }
        }
    }

    /// Every participant of the shares that was not removed, in the order they were added, by share record id.
    /// `ids` must not be empty.
    public static func participants(ofShareRecords ids: [Int64]) -> SQLRead<[Int64: [ShareParticipant]]> {
        SQLRead("""
            SELECT share_record_id, participant_id, user_record_name, email, phone, permission, type, status FROM share_participants
            WHERE share_record_id\(anyOf: ids.map { .integer($0) }) AND status != 'REMOVED' ORDER BY \(.participantOrder)
            """) { rows in
            var participants: [Int64: [ShareParticipant]] = [:]
            for row in rows {
                participants[try row.integer("share_record_id"), default: []].append(ShareParticipant(
                    participantID: try row.text("participant_id"), userRecordName: try row.optionalText("user_record_name"),
                    emailAddress: try row.optionalText("email"), phoneNumber: try row.optionalText("phone"),
                    permission: SharePermission(rawValue: try row.text("permission")) ?? .none,
                    type: ParticipantType(rawValue: try row.text("type")) ?? .user,
                    acceptanceStatus: AcceptanceStatus(rawValue: try row.text("status")) ?? .invited
                ))
            }
            return participants
        }
    }

    /// The named share records of a zone that have a live share, each as the record engine sees it but without
    /// participants, with its row id (read participants with ``participants(ofShareRecords:)``).
    public static func shares(named names: [String], zoneID: Int64) -> SQLRead<[(name: String, recordID: Int64, state: ShareState)]> {
        SQLRead("""
            SELECT sr.name, s.root_name, s.public_permission, s.record_id FROM shares s JOIN records sr ON sr.id = s.record_id
            WHERE s.zone_id = \(.integer(zoneID)) AND sr.name\(anyOf: names.map { .text($0) })
            """) { rows in
            try rows.map { row in
                let state = ShareState(
                    rootRecordName: try row.optionalText("root_name"),
                    publicPermission: SharePermission(rawValue: try row.text("public_permission")) ?? .none, participants: []
                )
                return (try row.text("name"), try row.integer("record_id"), state)
            }
        }
    }

    /// A zone's zone-wide share, if it has one, and whether it holds any share.
    public static func sharing(ofZone zoneID: Int64) -> SQLRead<RecordSnapshot.ZoneSharing> {
        let zone = SQLValue.integer(zoneID)
        return SQLRead("""
            SELECT (SELECT sr.name FROM shares s JOIN records sr ON sr.id = s.record_id WHERE s.zone_id = \(zone) AND s.root_name IS NULL) AS zone_share,
                EXISTS (SELECT 1 FROM shares WHERE zone_id = \(zone)) AS has_shares
            """) { rows in
            RecordSnapshot.ZoneSharing(zoneShare: try rows.first?.optionalText("zone_share"), hasShares: try rows.first?.bool("has_shares") ?? false)
        }
    }

    /// The live share a short GUID names (on the share record, or on the root record it shares), with its row id.
    /// - Parameter lock: lock the share record's row (a write that changes its participants).
    static func share(shortGUID: String, lock: SQLPhrase? = nil, reading: any SQLReading) async throws -> (share: StoredShare, recordID: Int64)? {
        let rows = try await reading.rows("""
            SELECT r.zone_id, r.name, r.type, r.share_name, z.container_id, z.environment, z.scope, z.owner, z.name AS zone_name
            FROM records r JOIN zones z ON z.id = r.zone_id WHERE r.short_guid = \(.text(shortGUID)) AND \(.live("r")) AND \(.live("z"))
            """)
        guard let row = rows.first else { return nil }
        let isShare = try row.text("type") == ShareRecords.recordType
        guard let shareName = isShare ? try row.text("name") : try row.optionalText("share_name"),
            let shareRow = try await RecordTables.row(named: shareName, zoneID: try row.integer("zone_id"), lock: lock, reading: reading),
            !shareRow.deleted
        else { return nil }
        let database = DatabaseRef(
            containerID: try row.text("container_id"), environment: Environment(rawValue: try row.text("environment")) ?? .development,
            scope: DatabaseScope(rawValue: try row.text("scope")) ?? .private, ownerRecordName: try row.text("owner")
        )
        let zone = database.zone(try row.text("zone_name"))
        return (StoredShare(zone: zone, record: try await shareRow.record(in: zone.wireZoneID, reading: reading)), shareRow.id)
    }

    /// The share covering each named record: the zone-wide share, the record itself when it is a share, or the
    /// share of the record or of its nearest ancestor. Tombstones are followed through the parent they had.
    public static func coveringShares(of names: [String], zoneID: Int64, reading: any SQLReading) async throws -> [String: String] {
        let names = Array(Set(names))
        guard !names.isEmpty else { return [:] }
        let sharing = try await reading.read(sharing(ofZone: zoneID))
        if let zoneShare = sharing.zoneShare { return Dictionary(uniqueKeysWithValues: names.map { ($0, zoneShare) }) }
        guard sharing.hasShares else { return [:] }
        let zone = SQLValue.integer(zoneID)
        // One recursive walk up the parents for every name; the nearest record that is or has a share wins.
        let shareType = SQLValue.text(ShareRecords.recordType)
        let rows = try await reading.rows("""
            WITH RECURSIVE up(start, name, type, parent, share_name, depth) AS (
                SELECT name, name, type, parent, share_name, 0 FROM records WHERE zone_id = \(zone) AND name\(anyOf: names.map { .text($0) })
                UNION ALL
                SELECT up.start, r.name, r.type, r.parent, r.share_name, up.depth + 1
                FROM records r JOIN up ON r.zone_id = \(zone) AND r.name = up.parent
                WHERE up.type != \(shareType) AND up.share_name IS NULL AND up.depth < \(.integer(Int64(StorePolicy.ancestorWalkBound)))
            )
            SELECT start, name, type, share_name, depth FROM up WHERE type = \(shareType) OR share_name IS NOT NULL
            """)
        var nearest: [String: (depth: Int64, share: String?)] = [:]
        for row in rows {
            let start = try row.text("start")
            let depth = try row.integer("depth")
            if let found = nearest[start], found.depth <= depth { continue }
            let share = try row.text("type") == ShareRecords.recordType ? try row.text("name") : try row.optionalText("share_name")
            nearest[start] = (depth, share)
        }
        return nearest.compactMapValues(\.share)
    }

    /// The shares of a zone a user accepted, with what each lets them do.
    public static func access(ofZone zoneID: Int64, user: String) -> SQLRead<ShareAccess> {
        SQLRead("""
            SELECT sr.name, s.root_name, s.public_permission, p.permission, p.type FROM share_participants p
            JOIN shares s ON s.record_id = p.share_record_id JOIN records sr ON sr.id = s.record_id
            WHERE p.zone_id = \(.integer(zoneID)) AND p.user_record_name = \(.text(user)) AND p.status = 'ACCEPTED'
            """) { rows in
            ShareAccess(grants: try rows.map { row in
                let type = ParticipantType(rawValue: try row.text("type")) ?? .user
                let permission = SharePermission(rawValue: try row.text(type == .publicUser ? "public_permission" : "permission")) ?? .none
                return ShareAccess.Grant(shareRecordName: try row.text("name"), rootRecordName: try row.optionalText("root_name"), permission: permission)
            })
        }
    }

    /// A participant's shares per zone: whether any still reaches the zone, the latest settled change to them and,
    /// for a zone they reach, to its records; and whether a committed change to either has not settled yet.
    ///
    /// The bound is read first, with whether anything of the participant's is at or above it, then the zones below
    /// that same bound: a zone whose only change is unsettled is still reported as unsettled.
    static func participation(
        of user: String, containerID: String, environment: Environment, reading: any SQLReading
    ) async throws -> (zones: [ChangeFeeds.SharedZoneState], unsettled: Bool) {
        let person = SQLValue.text(user)
        let participants: SQLFragment = """
            share_participants p JOIN zones z ON z.id = p.zone_id
            WHERE p.user_record_name = \(person) AND z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue)) \
            AND z.scope = 'private'
            """
        guard let figures = try await reading.rows("""
            WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound)
            SELECT b.bound,
                EXISTS (SELECT 1 FROM \(participants) AND p.seq >= b.bound)
                    OR EXISTS (SELECT 1 FROM \(participants)
                        AND (SELECT seq FROM records WHERE zone_id = z.id AND seq >= b.bound ORDER BY seq LIMIT 1) IS NOT NULL) AS unsettled
            FROM b
            """).first else { throw StorageError(.internalFailure, "the settled bound was not read") }
        let bound = SQLValue.integer(try figures.integer("bound"))
        let rows = try await reading.rows("""
            WITH p AS (
                SELECT z.id, z.owner, z.name, z.deleted, MAX(p.seq) AS last_change,
                    MAX(CASE WHEN p.status = 'ACCEPTED' AND s.record_id IS NOT NULL
                        AND (CASE WHEN p.type = 'PUBLIC_USER' THEN s.public_permission ELSE p.permission END) != 'NONE' THEN 1 ELSE 0 END) AS shared
                FROM share_participants p JOIN zones z ON z.id = p.zone_id LEFT JOIN shares s ON s.record_id = p.share_record_id
                WHERE p.user_record_name = \(person) AND z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue))
                    AND z.scope = 'private' AND p.seq < \(bound)
                GROUP BY z.id, z.owner, z.name, z.deleted
            )
            SELECT p.owner, p.name, p.shared = 1 AND \(.live("p")) AS reachable,
                CASE WHEN p.shared = 1 AND \(.live("p")) THEN (SELECT MAX(m) FROM (
                        SELECT p.last_change AS m
                        UNION ALL SELECT (SELECT seq FROM records WHERE zone_id = p.id AND seq < \(bound) ORDER BY seq DESC LIMIT 1)
                        UNION ALL SELECT (SELECT seq FROM zones WHERE id = p.id AND seq < \(bound))) AS latest)
                    ELSE p.last_change END AS last_change
            FROM p
            """)
        let zones = try rows.map { row in
            ChangeFeeds.SharedZoneState(
                owner: try row.text("owner"), name: try row.text("name"), reachable: try row.bool("reachable"), lastChange: try row.integer("last_change")
            )
        }
        return (zones, try figures.bool("unsettled"))
    }
}
