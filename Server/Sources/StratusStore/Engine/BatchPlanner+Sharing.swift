import StratusModel

/// Share records, parents, and participants writing in a zone shared with them (`docs/protocol.md#sharing`).
extension BatchPlanner {
    private var owner: String { database.ownerRecordName }

    // MARK: - Covering shares

    /// The share covering a record: the zone-wide share, the record itself when it is a share, or the share
    /// of the record or of its nearest ancestor. Tombstones are followed through the parent they had.
    mutating func coveringShare(of name: String) throws -> String? {
        if let zoneShare = try zoneSharing().zoneShare { return zoneShare }
        for row in try chain(from: name) {
            if row.type == ShareRecords.recordType { return row.key.recordName }
            if let share = row.share { return share }
        }
        return nil
    }

    /// Whether a record or any live record beneath it is the root of a share.
    mutating func treeHasShare(under name: String) throws -> Bool {
        guard let roots = state.shareRoots else {
            needs.shareRoots = true
            throw NeedsLoading()
        }
        for root in roots where try chain(from: root, stopAtTombstones: true).contains(where: { $0.key.recordName == name }) {
            return true
        }
        return false
    }

    /// The details of a live share of the batch's zone.
    mutating func shareDetails(ofShareRecord name: String) throws -> ShareDetails? {
        guard let share = try share(name) else { return nil }
        let guid = share.rootRecordName.flatMap { state.records[key($0)]?.shortGUID } ?? state.records[key(name)]?.shortGUID
        return ShareDetails(
            shortGUID: guid ?? "", publicPermission: share.publicPermission, ownerRecordName: owner,
            rootRecordName: share.rootRecordName, participants: share.participants
        )
    }

    /// The accepted participants who may read a record through a share, for subscriptions.
    mutating func sharedReaders(of name: String) throws -> [String] {
        guard isSharedZoneCandidate, try zoneSharing().hasShares, let shareName = try coveringShare(of: name),
            let row = try liveRow(shareName), row.type == ShareRecords.recordType, let details = try shareDetails(ofShareRecord: shareName)
        else { return [] }
        return details.participants.compactMap { participant in
            guard participant.acceptanceStatus == .accepted, details.effectivePermission(of: participant).allowsReading else { return nil }
            return participant.userRecordName
        }
    }

    // MARK: - Participants

    /// Checks a participant's operation against the shares they accepted.
    ///
    /// - Returns: the outcome when the operation is a participant leaving (deleting the share record).
    /// - Throws: ``StorageError/Code/accessDenied`` for a write the shares do not allow.
    mutating func checkParticipant(_ operation: RecordOperation, live: StoredRecord?, access: ShareAccess) throws -> RecordOperationResult? {
        if live?.type == ShareRecords.recordType || (live == nil && operation.recordType == ShareRecords.recordType) {
            if operation.type.isDelete, let live, access.permission(viaShare: live.key.recordName) != nil, let user = caller.userRecordName {
                plan.writes.append(.leaveShare(shareRecord: live.key.recordName, userRecordName: user, sequence: takeSequence()))
                var record = live.record(in: database)
                record.modified = RecordStamp(timestamp: batch.timestamp, userRecordName: user, deviceID: caller.deviceID)
                plan.events.append(RecordEvent(kind: .participantLeft, zone: database.zone(live.key.zoneName), record: record, fields: [:]))
                return .deleted(DeletedRecord(recordName: live.key.recordName, recordType: live.type, zoneID: batch.zone.wireZoneID))
            }
            throw StorageError(.accessDenied, "only the owner of a share changes it; a participant can only leave it by deleting it")
        }
        let refusal = StorageError(.accessDenied, "record \(operation.recordName) is not shared with you for writing")
        if let zoneWide = access.zoneWide {
            guard zoneWide.permission.allowsWriting else { throw refusal }
            return nil
        }
        if let live {
            guard try isWritable(live.key.recordName, access) else { throw refusal }
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

    private mutating func isWritable(_ name: String, _ access: ShareAccess) throws -> Bool {
        guard let share = try coveringShare(of: name) else { return false }
        return access.permission(viaShare: share)?.allowsWriting == true
    }

    // MARK: - Parents

    /// The parent a save leaves the record with, checked: a live record of this zone, no cycle, no share inside a share.
    mutating func resolveParent(_ operation: RecordOperation, live: StoredRecord?) throws -> String? {
        switch operation.parent {
        case .unchanged: return live?.parent
        case .removed: return nil
        case .set(let parent):
            guard parent != operation.recordName else { throw StorageError(.invalidArgument, "a record cannot be its own parent") }
            guard let row = try liveRow(parent) else {
                throw StorageError(.invalidArgument, "parent record \(parent) does not exist in zone \(zoneName)")
            }
            guard row.type != ShareRecords.recordType else { throw StorageError(.invalidArgument, "a share record cannot be a parent") }
            if try chain(from: parent).contains(where: { $0.key.recordName == operation.recordName }) {
                throw StorageError(.invalidArgument, "parent \(parent) is beneath record \(operation.recordName): parents cannot form a cycle")
            }
            if live != nil, parent != live?.parent, try coveringShare(of: parent) != nil, try zoneSharing().zoneShare == nil,
                try treeHasShare(under: operation.recordName)
            {
                throw StorageError(.invalidArgument, "record \(operation.recordName) holds a share and cannot move beneath another shared record")
            }
            return parent
        }
    }

    // MARK: - Share records

    /// Creates or updates a share record, owner only: its root, public permission and participants.
    mutating func saveShare(_ operation: RecordOperation, existing: StoredRecord?, live: StoredRecord?) throws -> RecordOperationResult {
        guard isSharedZoneCandidate else {
            throw StorageError(.invalidArgument, "shares live in the custom zones of a private database")
        }
        let change = operation.share ?? ShareChange()
        let fields = try shareFields(operation, live: live)
        let name = operation.recordName
        if let live {
            guard var share = try share(live.key.recordName) else {
                throw StorageError(.internalFailure, "share record \(live.key.recordName) has no share")
            }
            if let root = change.rootRecordName, root != share.rootRecordName {
                throw StorageError(.invalidArgument, "a share's forRecord cannot change; delete the share and share the other record")
            }
            var record = try write(name: name, type: ShareRecords.recordType, fields: fields, existing: existing, live: live, imported: operation.imported)
            if let permission = change.publicPermission {
                // Public users' reach follows the public permission: their shared databases see the change.
                plan.writes.append(.setPublicPermission(shareRecord: name, permission, sequence: takeSequence()))
                share.publicPermission = permission
            }
            state.shares[name] = share
            if let participants = change.participants {
                try applyParticipants(participants, shareRecord: name)
            }
            record.shareDetails = try shareDetails(ofShareRecord: name)
            return .saved(record)
        }
        let root = try newShareRoot(operation, change: change)
        var record = try write(name: name, type: ShareRecords.recordType, fields: fields, existing: existing, live: nil, imported: operation.imported.map {
            ImportedMetadata(created: $0.created, modified: $0.modified)
        })
        plan.writes.append(.createShare(shareRecord: name, rootRecordName: root?.key.recordName, publicPermission: change.publicPermission ?? .none))
        state.shares[name] = ShareState(rootRecordName: root?.key.recordName, publicPermission: change.publicPermission ?? .none, participants: [])
        state.zoneSharing = RecordSnapshot.ZoneSharing(zoneShare: root == nil ? name : state.zoneSharing?.zoneShare, hasShares: true)
        if let root {
            let guid = root.shortGUID ?? input.newShortGUID()
            plan.writes.append(.markShareRoot(root.key, share: name, shortGUID: guid, sequence: takeSequence()))
            state.records[root.key]?.share = name
            state.records[root.key]?.shortGUID = guid
            state.shareRoots?.insert(root.key.recordName)
            sharedRoots[root.key.recordName] = name
        } else {
            setShortGUID(name, operation.imported?.shortGUID ?? input.newShortGUID())
        }
        try applyParticipants(change.participants ?? [], shareRecord: name)
        record.shareDetails = try shareDetails(ofShareRecord: name)
        return .saved(record)
    }

    /// The record a new share is for (`nil` for a zone-wide share), checked: not shared already, alone in its hierarchy.
    private mutating func newShareRoot(_ operation: RecordOperation, change: ShareChange) throws -> StoredRecord? {
        if operation.recordName == ShareRecords.zoneShareName {
            guard change.rootRecordName == nil else {
                throw StorageError(.invalidArgument, "the zone-wide share \(ShareRecords.zoneShareName) shares the whole zone; it takes no forRecord")
            }
            guard try !zoneSharing().hasShares else {
                throw StorageError(.alreadyExists, "zone \(zoneName) holds record shares; delete them before sharing the whole zone")
            }
            return nil
        }
        guard let rootName = change.rootRecordName else {
            throw StorageError(.invalidArgument, "a share record needs forRecord naming the record it shares, or the name \(ShareRecords.zoneShareName) to share the whole zone")
        }
        guard let root = try liveRow(rootName), root.type != ShareRecords.recordType else {
            throw StorageError(.invalidArgument, "forRecord: record \(rootName) does not exist in zone \(zoneName)")
        }
        if let share = root.share {
            throw StorageError(.alreadyExists, "record \(rootName) is shared already, by share \(share)")
        }
        if try zoneSharing().zoneShare != nil {
            throw StorageError(.alreadyExists, "zone \(zoneName) is shared as a whole already")
        }
        if let parent = root.parent, try coveringShare(of: parent) != nil {
            throw StorageError(.alreadyExists, "a record above \(rootName) is shared already; a record belongs to one share")
        }
        if try treeHasShare(under: rootName) {
            throw StorageError(.alreadyExists, "a record beneath \(rootName) is shared already; a record belongs to one share")
        }
        return root
    }

    /// A share record's own fields: `cloudkit.title`, `cloudkit.type` and `cloudkit.thumbnailImageData`.
    private func shareFields(_ operation: RecordOperation, live: StoredRecord?) throws -> PreparedFields {
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
    private mutating func applyParticipants(_ changes: [ParticipantChange], shareRecord: String) throws {
        guard var share = try share(shareRecord) else { return }
        let current = share.participants
        let sequence = takeSequence()
        var kept = Set<String>()
        var invited: [ShareParticipant] = []
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
                    let participant = try invite(lookup, permission: change.permission)
                    plan.writes.append(.addParticipant(shareRecord: shareRecord, participant, sequence: sequence))
                    invited.append(participant)
                    kept.insert(participant.participantID)
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
                plan.writes.append(.setParticipantPermission(shareRecord: shareRecord, participantID: match.participantID, change.permission, sequence: sequence))
                if let index = share.participants.firstIndex(where: { $0.participantID == match.participantID }) {
                    share.participants[index].permission = change.permission
                }
            }
        }
        for participant in current where !kept.contains(participant.participantID) {
            plan.writes.append(.removeParticipant(shareRecord: shareRecord, participantID: participant.participantID, sequence: sequence))
        }
        share.participants = share.participants.filter { kept.contains($0.participantID) } + invited
        state.shares[shareRecord] = share
    }

    private static func participant(_ participant: ShareParticipant, matches lookup: ParticipantLookup) -> Bool {
        switch lookup {
        case .userRecordName(let name): participant.userRecordName == name
        case .emailAddress(let email): participant.emailAddress == email
        case .phoneNumber(let phone): participant.phoneNumber == phone
        }
    }

    /// Someone new, invited. A user record name must be a user of this container; an email address or phone
    /// number is matched to a user when they accept.
    private mutating func invite(_ lookup: ParticipantLookup, permission: SharePermission) throws -> ShareParticipant {
        var participant = ShareParticipant(
            participantID: input.newShortGUID(), userRecordName: nil, permission: permission, type: .user, acceptanceStatus: .invited
        )
        switch lookup {
        case .userRecordName(let name):
            guard try userExists(name) else { throw StorageError(.invalidArgument, "no user \(name) in container \(database.containerID)") }
            participant.userRecordName = name
        case .emailAddress(let address): participant.emailAddress = address
        case .phoneNumber(let number): participant.phoneNumber = number
        }
        return participant
    }
}
