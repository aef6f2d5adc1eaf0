import GRDB
import StratusModel
import StratusStore

/// Reads and changes of the `shares` and `share_participants` tables, shared by the writer and the readers.
enum ShareRows {
    /// The details of a live share record: its link, public permission, owner and participants.
    static func details(ofShareRecord id: Int64, db: Database) throws -> ShareDetails? {
        guard let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT s.root_name, s.public_permission, z.owner,
                    COALESCE((SELECT short_guid FROM records WHERE zone_id = s.zone_id AND name = s.root_name), sr.short_guid) AS guid
                FROM shares s JOIN records sr ON sr.id = s.record_id JOIN zones z ON z.id = s.zone_id
                WHERE s.record_id = ?
                """),
            arguments: [id]
        ) else { return nil }
        return ShareDetails(
            shortGUID: row["guid"] ?? "", publicPermission: SharePermission(rawValue: row["public_permission"]) ?? .none,
            ownerRecordName: row["owner"], rootRecordName: row["root_name"], participants: try participants(ofShareRecord: id, db: db)
        )
    }

    /// Every participant of a share that was not removed, in the order they were added.
    static func participants(ofShareRecord id: Int64, db: Database) throws -> [ShareParticipant] {
        try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT participant_id, user_record_name, email, phone, permission, type, status FROM share_participants
                WHERE share_record_id = ? AND status != 'REMOVED' ORDER BY rowid
                """),
            arguments: [id]
        ).map { row in
            ShareParticipant(
                participantID: row[0], userRecordName: row[1], emailAddress: row[2], phoneNumber: row[3],
                permission: SharePermission(rawValue: row[4]) ?? .none, type: ParticipantType(rawValue: row[5]) ?? .user,
                acceptanceStatus: AcceptanceStatus(rawValue: row[6]) ?? .invited
            )
        }
    }

    /// The name of the zone-wide share of a zone, if it has one.
    static func zoneShare(ofZone zoneID: Int64, db: Database) throws -> String? {
        try String.fetchOne(
            db.cachedStatement(sql: "SELECT sr.name FROM shares s JOIN records sr ON sr.id = s.record_id WHERE s.zone_id = ? AND s.root_name IS NULL"),
            arguments: [zoneID]
        )
    }

    /// Whether a zone holds any share.
    static func zoneHasShares(_ zoneID: Int64, db: Database) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM shares WHERE zone_id = ? LIMIT 1"), arguments: [zoneID]) ?? false
    }

    /// The share covering a record: the zone-wide share, the record itself when it is a share, or the share
    /// of the record or of its nearest ancestor. Tombstones are followed through the parent they had.
    static func coveringShare(ofRecord name: String, zoneID: Int64, db: Database) throws -> String? {
        if let zoneShare = try zoneShare(ofZone: zoneID, db: db) { return zoneShare }
        // One recursive query up the parents, at any depth; the nearest record that is or has a share wins.
        let row = try Row.fetchOne(
            db.cachedStatement(sql: """
                WITH RECURSIVE up(name, type, parent, share_name, depth) AS (
                    SELECT name, type, parent, share_name, 0 FROM records WHERE zone_id = ? AND name = ?
                    UNION ALL
                    SELECT r.name, r.type, r.parent, r.share_name, up.depth + 1 FROM records r JOIN up ON r.zone_id = ? AND r.name = up.parent
                    WHERE up.type != ? AND up.share_name IS NULL AND up.depth < ?
                ) SELECT name, type, share_name FROM up WHERE type = ? OR share_name IS NOT NULL ORDER BY depth LIMIT 1
                """),
            arguments: [zoneID, name, zoneID, ShareRecords.recordType, StorePolicy.ancestorWalkBound, ShareRecords.recordType]
        )
        guard let row else { return nil }
        return (row[1] as String) == ShareRecords.recordType ? row[0] : row[2]
    }

    /// The shares of a zone a user accepted, with what each lets them do.
    static func access(ofZone zoneID: Int64, user: String, db: Database) throws -> ShareAccess {
        let rows = try Row.fetchAll(
            db.cachedStatement(sql: """
                SELECT sr.name, s.root_name, s.public_permission, p.permission, p.type FROM share_participants p
                JOIN shares s ON s.record_id = p.share_record_id JOIN records sr ON sr.id = s.record_id
                WHERE p.zone_id = ? AND p.user_record_name = ? AND p.status = 'ACCEPTED'
                """),
            arguments: [zoneID, user]
        )
        return ShareAccess(grants: rows.map { row in
            let type = ParticipantType(rawValue: row[4]) ?? .user
            let permission = SharePermission(rawValue: type == .publicUser ? row[2] : row[3]) ?? .none
            return ShareAccess.Grant(shareRecordName: row[0], rootRecordName: row[1], permission: permission)
        })
    }

    /// Ends every share of a zone being deleted.
    static func removeShares(ofZone zoneID: Int64, sequence: Int64, db: Database) throws {
        try db.execute(sql: "DELETE FROM shares WHERE zone_id = ?", arguments: [zoneID])
        try db.execute(
            sql: "UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE zone_id = ? AND status != 'REMOVED'",
            arguments: [sequence, zoneID]
        )
    }
}
