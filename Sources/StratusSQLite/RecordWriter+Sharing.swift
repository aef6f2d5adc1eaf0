import GRDB
import StratusModel
import StratusStore

/// Share records, parents, and participants writing in a zone shared with them (`ckws-protocol.md` §8).
extension RecordWriter {
    private var owner: String { zone.zone.database.ownerRecordName }

    // MARK: - Participants

    /// The shares the caller accepted in this zone, when the caller writes in another user's private zone.
    func participantAccess() throws -> ShareAccess? {
        guard zone.zone.database.scope == .private, let user = caller.userRecordName, user != owner else { return nil }
        return try ShareRows.access(ofZone: zone.id, user: user, db: db)
    }

    /// Checks a participant's operation against the shares they accepted, in this transaction.
    ///
    /// - Returns: the outcome when the operation is a participant leaving (deleting the share record).
    /// - Throws: ``StorageError/Code/accessDenied`` for a write the shares do not allow.
    func checkParticipant(_ operation: RecordOperation, live: RecordRow?, access: ShareAccess) throws -> RecordOperationResult? {
        if live?.type == ShareRecords.recordType || (live == nil && operation.recordType == ShareRecords.recordType) {
            if operation.type.isDelete, let live, access.permission(viaShare: live.name) != nil, let user = caller.userRecordName {
                try db.cachedStatement(sql: """
                    UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE share_record_id = ? AND user_record_name = ? AND status != 'REMOVED'
                    """).execute(arguments: [store.nextSequence(), live.id, user])
                return .deleted(DeletedRecord(recordName: live.name, recordType: live.type, zoneID: zone.zone.wireZoneID))
            }
            throw StorageError(.accessDenied, "only the owner of a share changes it; a participant can only leave it by deleting it")
        }
        let refusal = StorageError(.accessDenied, "record \(operation.recordName) is not shared with you for writing")
        if let zoneWide = access.zoneWide {
            guard zoneWide.permission.allowsWriting else { throw refusal }
            return nil
        }
        if let live {
            guard try isWritable(live.name, access) else { throw refusal }
            if operation.type.isDelete && live.share != nil {
                throw StorageError(.accessDenied, "only the owner deletes the root record of a share")
            }
        }
        guard !operation.type.isDelete else { return nil }
        switch operation.parent {
        case .set(let parent):
            guard try isWritable(parent, access) else { throw refusal }
        case .removed:
            guard live?.share != nil else { throw refusal }
        case .unchanged:
            guard live != nil else {
                throw StorageError(.accessDenied, "a record created in a zone shared with you needs a parent among the records shared with you for writing")
            }
        }
        return nil
    }

    private func isWritable(_ recordName: String, _ access: ShareAccess) throws -> Bool {
        guard let share = try ShareRows.coveringShare(ofRecord: recordName, zoneID: zone.id, db: db) else { return false }
        return access.permission(viaShare: share)?.allowsWriting == true
    }

    /// The accepted participants who may read a record through a share, for subscriptions.
    func sharedReaders(of recordName: String) throws -> [String] {
        guard zone.zone.database.scope == .private, !zone.zone.isDefault, try ShareRows.zoneHasShares(zone.id, db: db),
            let share = try ShareRows.coveringShare(ofRecord: recordName, zoneID: zone.id, db: db),
            let row = try RecordRow.fetch(zoneID: zone.id, name: share, db: db), !row.deleted,
            let details = try ShareRows.details(ofShareRecord: row.id, db: db)
        else { return [] }
        return details.participants.compactMap { participant in
            guard participant.acceptanceStatus == .accepted, details.effectivePermission(of: participant).allowsReading else { return nil }
            return participant.userRecordName
        }
    }

    // MARK: - Parents

    /// The parent a save leaves the record with, checked: a live record of this zone, no cycle, no share inside a share.
    func resolveParent(_ operation: RecordOperation, live: RecordRow?) throws -> String? {
        switch operation.parent {
        case .unchanged: return live?.parent
        case .removed: return nil
        case .set(let parent):
            guard parent != operation.recordName else { throw StorageError(.invalidArgument, "a record cannot be its own parent") }
            guard let row = try RecordRow.fetch(zoneID: zone.id, name: parent, db: db), !row.deleted else {
                throw StorageError(.invalidArgument, "parent record \(parent) does not exist in zone \(zone.zone.zoneName)")
            }
            guard row.type != ShareRecords.recordType else { throw StorageError(.invalidArgument, "a share record cannot be a parent") }
            if let above = row.parent, try ShareRows.isAncestor(operation.recordName, of: above, zoneID: zone.id, db: db) {
                throw StorageError(.invalidArgument, "parent \(parent) is beneath record \(operation.recordName): parents cannot form a cycle")
            }
            if live != nil, parent != live?.parent, try ShareRows.coveringShare(ofRecord: parent, zoneID: zone.id, db: db) != nil,
                try ShareRows.zoneShare(ofZone: zone.id, db: db) == nil,
                try ShareRows.treeHasShare(under: operation.recordName, zoneID: zone.id, db: db)
            {
                throw StorageError(.invalidArgument, "record \(operation.recordName) holds a share and cannot move beneath another shared record")
            }
            return parent
        }
    }

    // MARK: - Share records

    /// Creates or updates a share record, owner only: its root, public permission and participants.
    func saveShare(_ operation: RecordOperation, existing: RecordRow?, live: RecordRow?) throws -> RecordOperationResult {
        guard zone.zone.database.scope == .private, !zone.zone.isDefault else {
            throw StorageError(.invalidArgument, "shares live in the custom zones of a private database")
        }
        let change = operation.share ?? ShareChange()
        let fields = try shareFields(operation, live: live)
        if let live {
            guard let details = try ShareRows.details(ofShareRecord: live.id, db: db) else {
                throw StorageError(.internalFailure, "share record \(live.name) has no share")
            }
            if let root = change.rootRecordName, root != details.rootRecordName {
                throw StorageError(.invalidArgument, "a share's forRecord cannot change; delete the share and share the other record")
            }
            var record = try write(name: live.name, type: ShareRecords.recordType, fields: fields, replacing: existing, live: live)
            if let permission = change.publicPermission {
                try db.cachedStatement(sql: "UPDATE shares SET public_permission = ? WHERE record_id = ?").execute(arguments: [permission.rawValue, live.id])
                // Public users' reach follows the public permission: their shared databases see the change.
                try db.cachedStatement(sql: "UPDATE share_participants SET seq = ? WHERE share_record_id = ? AND type = 'PUBLIC_USER' AND status = 'ACCEPTED'")
                    .execute(arguments: [store.nextSequence(), live.id])
            }
            if let participants = change.participants {
                try applyParticipants(participants, shareRecordID: live.id)
            }
            record.shareDetails = try ShareRows.details(ofShareRecord: live.id, db: db)
            return .saved(record)
        }
        let root = try newShareRoot(operation, change: change)
        var record = try write(name: operation.recordName, type: ShareRecords.recordType, fields: fields, replacing: existing, live: nil)
        guard let recordID = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM records WHERE zone_id = ? AND name = ?"), arguments: [zone.id, operation.recordName]
        ) else { throw StorageError(.internalFailure, "the share record was not written") }
        try db.cachedStatement(sql: "INSERT INTO shares (record_id, zone_id, root_name, public_permission) VALUES (?, ?, ?, ?)")
            .execute(arguments: [recordID, zone.id, root?.name, (change.publicPermission ?? .none).rawValue])
        if let root {
            let guid = try String.fetchOne(db, sql: "SELECT short_guid FROM records WHERE id = ?", arguments: [root.id]) ?? ShareRows.newShortGUID()
            try db.cachedStatement(sql: "UPDATE records SET share_name = ?, short_guid = ?, seq = ? WHERE id = ?")
                .execute(arguments: [operation.recordName, guid, store.nextSequence(), root.id])
        } else {
            try db.cachedStatement(sql: "UPDATE records SET short_guid = ? WHERE id = ?").execute(arguments: [ShareRows.newShortGUID(), recordID])
        }
        try applyParticipants(change.participants ?? [], shareRecordID: recordID)
        record.shareDetails = try ShareRows.details(ofShareRecord: recordID, db: db)
        if let root { events.sharedRoots[root.name] = operation.recordName }
        return .saved(record)
    }

    /// The record a new share is for (`nil` for a zone-wide share), checked: not shared already, alone in its hierarchy.
    private func newShareRoot(_ operation: RecordOperation, change: ShareChange) throws -> RecordRow? {
        if operation.recordName == ShareRecords.zoneShareName {
            guard change.rootRecordName == nil else {
                throw StorageError(.invalidArgument, "the zone-wide share \(ShareRecords.zoneShareName) shares the whole zone; it takes no forRecord")
            }
            guard try !ShareRows.zoneHasShares(zone.id, db: db) else {
                throw StorageError(.alreadyExists, "zone \(zone.zone.zoneName) holds record shares; delete them before sharing the whole zone")
            }
            return nil
        }
        guard let rootName = change.rootRecordName else {
            throw StorageError(.invalidArgument, "a share record needs forRecord naming the record it shares, or the name \(ShareRecords.zoneShareName) to share the whole zone")
        }
        guard let root = try RecordRow.fetch(zoneID: zone.id, name: rootName, db: db), !root.deleted, root.type != ShareRecords.recordType else {
            throw StorageError(.invalidArgument, "forRecord: record \(rootName) does not exist in zone \(zone.zone.zoneName)")
        }
        if let share = root.share {
            throw StorageError(.alreadyExists, "record \(rootName) is shared already, by share \(share)")
        }
        if try ShareRows.zoneShare(ofZone: zone.id, db: db) != nil {
            throw StorageError(.alreadyExists, "zone \(zone.zone.zoneName) is shared as a whole already")
        }
        if let parent = root.parent, try ShareRows.coveringShare(ofRecord: parent, zoneID: zone.id, db: db) != nil {
            throw StorageError(.alreadyExists, "a record above \(rootName) is shared already; a record belongs to one share")
        }
        if try ShareRows.treeHasShare(under: rootName, zoneID: zone.id, db: db) {
            throw StorageError(.alreadyExists, "a record beneath \(rootName) is shared already; a record belongs to one share")
        }
        return root
    }

    /// A share record's own fields: `cloudkit.title`, `cloudkit.type` and `cloudkit.thumbnailImageData`.
    private func shareFields(_ operation: RecordOperation, live: RecordRow?) throws -> PreparedFields {
        var values: [String: FieldValue] = [:]
        if let live, operation.type == .update || operation.type == .forceUpdate {
            values = try live.fields.decode()
        }
        for (name, input) in operation.fields ?? [:] {
            guard let type = ShareRecords.fieldTypes[name] else {
                throw StorageError(.invalidArgument, "share records hold only the fields \(ShareRecords.fieldTypes.keys.sorted().joined(separator: ", ")), not \(name)")
            }
            if input.value == .null {
                values[name] = nil
                continue
            }
            do {
                values[name] = try FieldValue(json: input.value, as: type)
            } catch {
                throw StorageError(.invalidArgument, "field \(name): \(error.message)")
            }
        }
        return PreparedFields(values: values, type: nil)
    }

    /// Makes a share's participants the ones listed: known ones keep their status, new ones are invited,
    /// the ones left out are removed. The owner, if listed, is skipped.
    private func applyParticipants(_ changes: [ParticipantChange], shareRecordID: Int64) throws {
        let current = try ShareRows.participants(ofShareRecord: shareRecordID, db: db)
        let sequence = store.nextSequence()
        var kept = Set<String>()
        for change in changes {
            var match: ShareParticipant?
            if let id = change.participantID {
                if id == owner { continue }
                guard let found = current.first(where: { $0.participantID == id }) else {
                    throw StorageError(.invalidArgument, "participant \(id) is not on this share; add new participants by userIdentity.lookupInfo")
                }
                match = found
            } else if let lookup = change.lookup {
                if lookup == .userRecordName(owner) { continue }
                match = current.first { Self.participant($0, matches: lookup) }
                if match == nil {
                    let id = try insertParticipant(lookup, permission: change.permission, shareRecordID: shareRecordID, sequence: sequence)
                    kept.insert(id)
                    continue
                }
            } else {
                throw StorageError(.invalidArgument, "each participant needs a participantId, or a userIdentity with lookupInfo")
            }
            guard let match else { continue }
            guard kept.insert(match.participantID).inserted else {
                throw StorageError(.invalidArgument, "participant \(match.participantID) is listed twice")
            }
            if match.type == .user && match.permission != change.permission {
                try db.cachedStatement(sql: "UPDATE share_participants SET permission = ?, seq = ? WHERE share_record_id = ? AND participant_id = ?")
                    .execute(arguments: [change.permission.rawValue, sequence, shareRecordID, match.participantID])
            }
        }
        for participant in current where !kept.contains(participant.participantID) {
            try db.cachedStatement(sql: "UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE share_record_id = ? AND participant_id = ?")
                .execute(arguments: [sequence, shareRecordID, participant.participantID])
        }
    }

    private static func participant(_ participant: ShareParticipant, matches lookup: ParticipantLookup) -> Bool {
        switch lookup {
        case .userRecordName(let name): participant.userRecordName == name
        case .emailAddress(let email): participant.emailAddress == email
        case .phoneNumber(let phone): participant.phoneNumber == phone
        }
    }

    /// Invites someone new. A user record name must be a user of this container; an email address or phone
    /// number is matched to a user when they accept.
    private func insertParticipant(_ lookup: ParticipantLookup, permission: SharePermission, shareRecordID: Int64, sequence: Int64) throws -> String {
        var user: String?
        var email: String?
        var phone: String?
        switch lookup {
        case .userRecordName(let name):
            let exists = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM accounts WHERE container_id = ? AND user_record_name = ?"),
                arguments: [zone.zone.database.containerID, name]
            ) ?? false
            guard exists else { throw StorageError(.invalidArgument, "no user \(name) in container \(zone.zone.database.containerID)") }
            user = name
        case .emailAddress(let address): email = address
        case .phoneNumber(let number): phone = number
        }
        let id = ShareRows.newShortGUID()
        try db.cachedStatement(sql: """
            INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
            VALUES (?, ?, ?, ?, ?, ?, ?, 'USER', 'INVITED', ?)
            """).execute(arguments: [shareRecordID, zone.id, id, user, email, phone, permission.rawValue, sequence])
        return id
    }
}
