import StratusModel

/// What saving a share record asks for, checked for shape (`docs/protocol.md#sharing`).
public struct ShareChange: Sendable, Hashable {
    /// The record shared, for a new record share; `nil` for a zone-wide share or an update.
    public var rootRecordName: String?
    /// `nil` keeps the share's public permission (`NONE` for a new share).
    public var publicPermission: SharePermission?
    /// `nil` keeps the participants; otherwise the participants to have, the owner aside.
    public var participants: [ParticipantChange]?

    public init(rootRecordName: String? = nil, publicPermission: SharePermission? = nil, participants: [ParticipantChange]? = nil) {
        self.rootRecordName = rootRecordName
        self.publicPermission = publicPermission
        self.participants = participants
    }
}

/// One participant an owner wants on a share.
public struct ParticipantChange: Sendable, Hashable {
    /// Names a participant the share has already; `nil` for someone new, found by ``lookup``.
    public var participantID: String?
    public var lookup: ParticipantLookup?
    public var permission: SharePermission

    public init(participantID: String? = nil, lookup: ParticipantLookup?, permission: SharePermission) {
        self.participantID = participantID
        self.lookup = lookup
        self.permission = permission
    }
}

/// How an owner names a participant. Email addresses are lower-cased and phone numbers normalized before.
public enum ParticipantLookup: Sendable, Hashable {
    case userRecordName(String)
    case emailAddress(String)
    case phoneNumber(String)
}
