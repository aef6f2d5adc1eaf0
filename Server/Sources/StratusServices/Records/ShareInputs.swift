import StratusModel
import StratusStore

/// Reads the share keys of a record dictionary (`forRecord`, `publicPermission`, `participants`) into a
/// ``ShareChange``, refusing what cannot be understood.
package enum ShareInputs {
    /// The share change a record dictionary asks for; `nil` when it is not a share record and names no share key.
    package static func change(from record: RecordInput, at index: Int) throws -> ShareChange? {
        let isShare = record.recordType == ShareRecords.recordType || record.recordName == ShareRecords.zoneShareName
        guard isShare || record.forRecord != nil || record.publicPermission != nil || record.participants != nil else { return nil }
        guard isShare else {
            throw ServiceError.invalidArgument("operations[\(index)]: forRecord, publicPermission and participants belong to share records (recordType \(ShareRecords.recordType))")
        }
        var change = ShareChange(rootRecordName: record.forRecord?.recordName)
        if let permission = record.publicPermission {
            guard let parsed = SharePermission(rawValue: permission) else {
                throw ServiceError.invalidArgument("operations[\(index)]: publicPermission must be NONE, READ_ONLY or READ_WRITE, not '\(permission)'")
            }
            change.publicPermission = parsed
        }
        change.participants = try record.participants?.enumerated().map { position, participant in
            try self.participant(participant, at: "operations[\(index)].record.participants[\(position)]")
        }
        return change
    }

    private static func participant(_ input: ParticipantInput, at path: String) throws -> ParticipantChange {
        let permission = try input.permission.map { text in
            guard let parsed = SharePermission(rawValue: text), parsed != .none else {
                throw ServiceError.invalidArgument("\(path).permission must be READ_ONLY or READ_WRITE, not '\(text)'")
            }
            return parsed
        } ?? .readOnly
        if let type = input.type, ParticipantType(rawValue: type) == nil {
            throw ServiceError.invalidArgument("\(path).type must be OWNER, USER or PUBLIC_USER, not '\(type)'")
        }
        let lookup = try self.lookup(input.userIdentity, at: path)
        guard input.participantId != nil || lookup != nil else {
            throw ServiceError.invalidArgument("\(path) needs a participantId, or a userIdentity with lookupInfo (userRecordName, emailAddress or phoneNumber)")
        }
        if input.participantId == nil, input.type == ParticipantType.publicUser.rawValue {
            throw ServiceError.invalidArgument("\(path): public users join through the share's link; they cannot be added")
        }
        return ParticipantChange(participantID: input.participantId, lookup: lookup, permission: permission)
    }

    private static func lookup(_ identity: ParticipantInput.Identity?, at path: String) throws -> ParticipantLookup? {
        let info = identity?.lookupInfo
        if let name = info?.userRecordName ?? identity?.userRecordName, !name.isEmpty {
            return .userRecordName(name)
        }
        if let email = info?.emailAddress, !email.isEmpty {
            return .emailAddress(try EmailAddress.normalized(email))
        }
        if let phone = info?.phoneNumber, !phone.isEmpty {
            return .phoneNumber(try PhoneNumber.normalized(phone))
        }
        return nil
    }
}
