import StratusModel

/// Shares seen from outside the owner's zone: links, acceptance, and what participants may reach.
///
/// Shares are created, changed and deleted as share records through ``RecordStore/modifyRecords(_:)``;
/// a batch in a private zone by a caller who is not its owner is a participant's, checked against
/// the shares they accepted in the same transaction.
public protocol ShareStore: Sendable {
    /// The live share a short GUID names, with its zone.
    func share(shortGUID: String) async throws -> StoredShare?

    /// Makes a user a participant who accepted: an invited participant matching the user's record name,
    /// email address or phone number, or, when the share's public permission allows, a new public user.
    /// Accepting twice changes nothing; the owner accepting is a no-op.
    /// - Throws: ``StorageError/Code/notFound`` for an unknown link; ``StorageError/Code/accessDenied`` for
    ///   someone the share is not for.
    func acceptShare(shortGUID: String, user: ShareUser) async throws -> StoredShare

    /// Removes a participant from every share of a zone (leaving it).
    /// - Returns: whether the user was on any of them.
    func leaveShares(in zone: ZoneRef, user: String) async throws -> Bool

    /// The zones other users shared with `user` and that `user` accepted, named with their owners.
    func sharedZones(of user: String, containerID: String, environment: Environment) async throws -> [ZoneRef]

    /// Zones of the user's shared database that changed since a token: shared zones whose records changed,
    /// that were accepted, or that the user can no longer reach (reported deleted).
    func sharedDatabaseChanges(
        of user: String, containerID: String, environment: Environment, since syncToken: String?, limit: Int
    ) async throws -> DatabaseChanges

    /// What a participant may reach in a zone, from the shares they accepted.
    func shareAccess(in zone: ZoneRef, user: String) async throws -> ShareAccess

    /// The share covering each named record that has one: its own share as a root or zone record, its
    /// nearest ancestor's, or itself for a share record. Deleted records are followed through what they were.
    func coveringShares(of recordNames: [String], in zone: ZoneRef) async throws -> [String: String]

    /// A participant's lookup in a zone shared with them, from one read: their access, the named records, and the
    /// share covering each found record.
    func sharedLookup(_ recordNames: [String], in zone: ZoneRef, user: String) async throws -> SharedLookup
}

/// A share and where it lives.
public struct StoredShare: Sendable {
    /// The owner's private zone holding the share.
    public var zone: ZoneRef
    /// The share record, with its details.
    public var record: Record

    public init(zone: ZoneRef, record: Record) {
        self.zone = zone
        self.record = record
    }

    public var details: ShareDetails {
        record.shareDetails ?? ShareDetails(
            shortGUID: "", publicPermission: .none, ownerRecordName: zone.database.ownerRecordName, rootRecordName: nil, participants: []
        )
    }
}

/// Who is accepting a share: a signed-in user and what identifies them.
public struct ShareUser: Sendable, Hashable {
    public var userRecordName: String
    /// Lower-cased.
    public var emailAddress: String?
    /// Normalized as accounts store it.
    public var phoneNumber: String?

    public init(userRecordName: String, emailAddress: String?, phoneNumber: String?) {
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
    }
}

/// The shares of one zone a participant accepted, with what each lets them do.
public struct ShareAccess: Sendable, Hashable {
    public struct Grant: Sendable, Hashable {
        public var shareRecordName: String
        /// `nil` for a zone-wide share.
        public var rootRecordName: String?
        public var permission: SharePermission

        public init(shareRecordName: String, rootRecordName: String?, permission: SharePermission) {
            self.shareRecordName = shareRecordName
            self.rootRecordName = rootRecordName
            self.permission = permission
        }
    }

    /// Only shares whose permission allows reading.
    public var grants: [Grant]

    public init(grants: [Grant]) {
        self.grants = grants.filter { $0.permission.allowsReading }
    }

    /// Whether the participant reaches nothing in the zone.
    public var isEmpty: Bool { grants.isEmpty }
    /// The zone-wide share's grant, if the participant accepted one.
    public var zoneWide: Grant? { grants.first { $0.rootRecordName == nil } }
    /// The roots of the record shares accepted; `nil` when a zone-wide share covers everything.
    public var roots: [String]? { zoneWide == nil ? grants.compactMap(\.rootRecordName) : nil }

    /// The permission a share gives, if the participant accepted it.
    public func permission(viaShare shareRecordName: String) -> SharePermission? {
        grants.first { $0.shareRecordName == shareRecordName }?.permission
    }
}

extension ShareDetails {
    /// The participant a user is: the owner, a participant with their record name, or one invited by their
    /// email address or phone number who has not accepted as someone else.
    public func participant(matching user: ShareUser) -> ShareParticipant? {
        if let found = participant(user.userRecordName) { return found }
        return participants.first { participant in
            guard participant.userRecordName == nil, participant.acceptanceStatus != .removed else { return false }
            if let email = participant.emailAddress, email == user.emailAddress { return true }
            if let phone = participant.phoneNumber, phone == user.phoneNumber { return true }
            return false
        }
    }
}
