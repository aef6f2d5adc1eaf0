import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Reads and changes of the `shares` and `share_participants` tables, shared by writers and readers.
enum PostgresShareRows {
    /// The details of a live share record: its link, public permission, owner and participants.
    static func details(ofShareRecord id: Int64, connection: PostgresConnection, logger: Logger) async throws -> ShareDetails? {
        let rows = try await connection.rows(
            """
            SELECT s.root_name, s.public_permission, z.owner,
                COALESCE((SELECT short_guid FROM records WHERE zone_id = s.zone_id AND name = s.root_name), sr.short_guid)
            FROM shares s JOIN records sr ON sr.id = s.record_id JOIN zones z ON z.id = s.zone_id
            WHERE s.record_id = \(id)
            """,
            as: (String?, String, String, String?).self, logger: logger
        )
        guard let (root, permission, owner, guid) = rows.first else { return nil }
        return ShareDetails(
            shortGUID: guid ?? "", publicPermission: SharePermission(rawValue: permission) ?? .none, ownerRecordName: owner,
            rootRecordName: root, participants: try await participants(ofShareRecords: [id], connection: connection, logger: logger)[id] ?? []
        )
    }

    /// Every participant of the shares that was not removed, in the order they were added, by share record id.
    static func participants(ofShareRecords ids: [Int64], connection: PostgresConnection, logger: Logger) async throws -> [Int64: [ShareParticipant]] {
        let rows = try await connection.rows(
            """
            SELECT share_record_id, participant_id, user_record_name, email, phone, permission, type, status FROM share_participants
            WHERE share_record_id = ANY(\(ids)) AND status != 'REMOVED' ORDER BY ordinal
            """,
            as: (Int64, String, String?, String?, String?, String, String, String).self, logger: logger
        )
        var participants: [Int64: [ShareParticipant]] = [:]
        for (share, id, user, email, phone, permission, type, status) in rows {
            participants[share, default: []].append(ShareParticipant(
                participantID: id, userRecordName: user, emailAddress: email, phoneNumber: phone,
                permission: SharePermission(rawValue: permission) ?? .none, type: ParticipantType(rawValue: type) ?? .user,
                acceptanceStatus: AcceptanceStatus(rawValue: status) ?? .invited
            ))
        }
        return participants
    }

    /// The name of the zone-wide share of a zone, if it has one, and whether the zone holds any share.
    static func zoneSharing(ofZone zoneID: Int64, connection: PostgresConnection, logger: Logger) async throws -> (zoneShare: String?, hasShares: Bool) {
        let rows = try await connection.rows(ZoneSharing.self, try binds(zoneID), as: (String?, Bool).self, logger: logger)
        return (rows.first?.0, rows.first?.1 ?? false)
    }

    /// The share covering each named record: the zone-wide share, the record itself when it is a share, or the
    /// share of the record or of its nearest ancestor. Tombstones are followed through the parent they had.
    static func coveringShares(of names: [String], zoneID: Int64, connection: PostgresConnection, logger: Logger) async throws -> [String: String] {
        let sharing = try await zoneSharing(ofZone: zoneID, connection: connection, logger: logger)
        if let zoneShare = sharing.zoneShare { return Dictionary(uniqueKeysWithValues: Set(names).map { ($0, zoneShare) }) }
        guard sharing.hasShares else { return [:] }
        // One recursive walk up the parents for every name; the nearest record that is or has a share wins.
        let rows = try await connection.rows(
            """
            WITH RECURSIVE up(start, name, type, parent, share_name, depth) AS (
                SELECT name, name, type, parent, share_name, 0 FROM records WHERE zone_id = \(zoneID) AND name = ANY(\(names))
                UNION ALL
                SELECT up.start, r.name, r.type, r.parent, r.share_name, up.depth + 1
                FROM records r JOIN up ON r.zone_id = \(zoneID) AND r.name = up.parent
                WHERE up.type != \(ShareRecords.recordType) AND up.share_name IS NULL AND up.depth < \(StorePolicy.ancestorWalkBound)
            )
            SELECT DISTINCT ON (start) start, name, type, share_name FROM up
            WHERE type = \(ShareRecords.recordType) OR share_name IS NOT NULL ORDER BY start, depth
            """,
            as: (String, String, String, String?).self, logger: logger
        )
        var covering: [String: String] = [:]
        for (start, name, type, share) in rows {
            covering[start] = type == ShareRecords.recordType ? name : share
        }
        return covering
    }

    /// The shares of a zone a user accepted, with what each lets them do.
    static func access(ofZone zoneID: Int64, user: String, connection: PostgresConnection, logger: Logger) async throws -> ShareAccess {
        let rows = try await connection.rows(
            """
            SELECT sr.name, s.root_name, s.public_permission, p.permission, p.type FROM share_participants p
            JOIN shares s ON s.record_id = p.share_record_id JOIN records sr ON sr.id = s.record_id
            WHERE p.zone_id = \(zoneID) AND p.user_record_name = \(user) AND p.status = 'ACCEPTED'
            """,
            as: (String, String?, String, String, String).self, logger: logger
        )
        return ShareAccess(grants: rows.map { name, root, publicPermission, permission, type in
            let type = ParticipantType(rawValue: type) ?? .user
            return ShareAccess.Grant(
                shareRecordName: name, rootRecordName: root,
                permission: SharePermission(rawValue: type == .publicUser ? publicPermission : permission) ?? .none
            )
        })
    }

    /// Ends every share of a zone being deleted.
    static func removeShares(ofZone zoneID: Int64, position: Int64, connection: PostgresConnection, logger: Logger) async throws {
        try await connection.run("DELETE FROM shares WHERE zone_id = \(zoneID)", logger: logger)
        try await connection.run(
            "UPDATE share_participants SET status = 'REMOVED', seq = \(position) WHERE zone_id = \(zoneID) AND status != 'REMOVED'", logger: logger
        )
    }
}

/// The name of a zone's zone-wide share, and whether the zone holds any share.
private enum ZoneSharing: PreparedText {
    static let name = "zone_sharing"
    static let sql = """
        SELECT (SELECT sr.name FROM shares s JOIN records sr ON sr.id = s.record_id WHERE s.zone_id = $1 AND s.root_name IS NULL),
            EXISTS (SELECT 1 FROM shares WHERE zone_id = $1)
        """
}
