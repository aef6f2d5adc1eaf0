import Foundation
internal import StratusModel

/// A share: the records beneath a root record, or a whole zone, opened to chosen people (`CKShare`).
///
/// ```swift
/// var share = Share(rootRecord: list)
/// share.publicPermission = .none
/// share.addParticipant(.userRecordID(friendID), permission: .readWrite)
/// let saved = try await database.save(share)   // the root record must be saved already
/// let url = saved.url                          // send it to the friend
/// ```
public struct Share: Sendable, Hashable {
    /// The record type of shares.
    public static let recordType = "cloudkit.share"

    /// What a participant, or anyone with the link, may do.
    public enum Permission: String, Sendable, Hashable {
        case none = "NONE", readOnly = "READ_ONLY", readWrite = "READ_WRITE"
    }

    /// How a participant came to the share.
    public enum Role: String, Sendable, Hashable {
        case owner = "OWNER", user = "USER", publicUser = "PUBLIC_USER"
    }

    /// Where a participant stands.
    public enum AcceptanceStatus: String, Sendable, Hashable {
        case invited = "INVITED", accepted = "ACCEPTED", removed = "REMOVED", unknown = "UNKNOWN"
    }

    /// One person on a share (`CKShare.Participant`).
    public struct Participant: Sendable, Hashable {
        public internal(set) var participantID: String?
        public internal(set) var userRecordID: Record.ID?
        public internal(set) var lookupInfo: UserIdentity.LookupInfo?
        public var permission: Permission
        public internal(set) var role: Role
        public internal(set) var acceptanceStatus: AcceptanceStatus
    }

    /// The share record itself (save it with its root record).
    public internal(set) var record: Record
    var state: State { record.shareState ?? State() }

    /// A share of a root record and the records beneath it. Its record lives in the root's zone.
    public init(rootRecord: Record, shareID: Record.ID? = nil) {
        var record = Record(recordType: Self.recordType, recordID: shareID ?? Record.ID(zoneID: rootRecord.recordID.zoneID))
        record.shareState = State(rootRecordName: rootRecord.recordID.recordName)
        self.record = record
    }

    /// A share of a whole zone (`cloudkit.zoneshare`).
    public init(recordZoneID: Zone.ID) {
        var record = Record(recordType: Self.recordType, recordID: Record.ID(recordName: "cloudkit.zoneshare", zoneID: recordZoneID))
        record.shareState = State()
        self.record = record
    }

    /// A fetched share record as a share; `nil` for a record of another type.
    public init?(_ record: Record) {
        guard record.recordType == Self.recordType else { return nil }
        var record = record
        if record.shareState == nil { record.shareState = State() }
        self.record = record
    }

    public var recordID: Record.ID { record.recordID }
    /// The share's link, once saved: `https://HOST/share/<shortGUID>`.
    public var url: URL? { state.url }
    /// Everyone on the share, the owner first.
    public var participants: [Participant] { state.participants }
    /// The owner.
    public var owner: Participant? { state.participants.first { $0.role == .owner } }
    /// The signed-in user as a participant, when they are one.
    public var currentUserParticipant: Participant? { state.currentUserParticipant }

    /// What anyone with the link may do; `.none` limits the share to its participants.
    public var publicPermission: Permission {
        get { state.publicPermission }
        set { record.shareState = { var state = self.state; state.publicPermission = newValue; state.publicPermissionChanged = true; return state }() }
    }

    /// The share's title, shown to people it is shared with.
    public var title: String? {
        get { record["cloudkit.title"] as String? }
        set { record["cloudkit.title"] = newValue }
    }

    /// Adds someone, found by record ID, email address or phone number; they see the share once they accept.
    public mutating func addParticipant(_ lookup: UserIdentity.LookupInfo, permission: Permission = .readOnly) {
        var state = self.state
        state.participants.append(Participant(invitee: lookup, permission: permission))
        state.participantsChanged = true
        record.shareState = state
    }

    /// Sets everyone on the share at once (the owner is kept as the server has it); StratusCloudKit's `CKShare`
    /// keeps its participants as objects and hands them over when it is saved.
    package mutating func replaceParticipants(_ participants: [Participant]) {
        var state = self.state
        guard state.participants != participants else { return }
        state.participants = participants
        state.participantsChanged = true
        record.shareState = state
    }

    /// Removes a participant; their access ends as soon as the share is saved.
    public mutating func removeParticipant(_ participant: Participant) {
        var state = self.state
        state.participants.removeAll { $0 == participant }
        state.participantsChanged = true
        record.shareState = state
    }

    /// Changes a participant's permission.
    public mutating func setPermission(_ permission: Permission, for participant: Participant) {
        var state = self.state
        if let index = state.participants.firstIndex(of: participant) {
            state.participants[index].permission = permission
            state.participantsChanged = true
        }
        record.shareState = state
    }
}

extension Share {
    /// What makes a record a share, as the server last answered it and as changed since.
    struct State: Sendable, Hashable {
        var rootRecordName: String?
        var publicPermission: Permission = .none
        var publicPermissionChanged = false
        var participants: [Participant] = []
        var participantsChanged = false
        var currentUserParticipant: Participant?
        var url: URL?
        var shortGUID: String?

        init(rootRecordName: String? = nil) {
            self.rootRecordName = rootRecordName
            publicPermissionChanged = true
        }

        init(model details: ShareDetails, currentUser: String?) {
            publicPermission = Permission(rawValue: details.publicPermission.rawValue) ?? .none
            participants = ([details.owner] + details.participants).map(Participant.init(model:))
            currentUserParticipant = details.participant(currentUser).map(Participant.init(model:))
            url = details.url.flatMap(URL.init(string:))
            shortGUID = details.shortGUID
        }

        /// The share keys of a record to save: what is new or changed.
        func write(into input: inout RecordInput) {
            if let rootRecordName { input.forRecord = RecordNameInput(recordName: rootRecordName) }
            if publicPermissionChanged { input.publicPermission = publicPermission.rawValue }
            if participantsChanged {
                input.participants = participants.filter { $0.role != .owner }.map(\.input)
            }
        }
    }
}

extension Share.Participant {
    /// Someone invited by record ID, email address or phone number, who has not accepted yet.
    package init(invitee lookup: UserIdentity.LookupInfo, permission: Share.Permission) {
        self.init(participantID: nil, userRecordID: nil, lookupInfo: lookup, permission: permission, role: .user, acceptanceStatus: .invited)
        if case .userRecordID(let id) = lookup { userRecordID = id }
    }

    /// The owner of a share not saved yet, as CloudKit shows them: the signed-in user under the name CloudKit gives
    /// the current user before the server answers.
    package init(unsavedOwnerNamed name: String) {
        self.init(participantID: nil, userRecordID: Record.ID(recordName: name), lookupInfo: nil, permission: .readWrite, role: .owner, acceptanceStatus: .accepted)
    }

    init(model: ShareParticipant) {
        participantID = model.participantID
        userRecordID = model.userRecordName.map { Record.ID(recordName: $0) }
        if let email = model.emailAddress {
            lookupInfo = .emailAddress(email)
        } else if let phone = model.phoneNumber {
            lookupInfo = .phoneNumber(phone)
        } else if let name = model.userRecordName {
            lookupInfo = .userRecordID(Record.ID(recordName: name))
        }
        permission = Share.Permission(rawValue: model.permission.rawValue) ?? .none
        role = Share.Role(rawValue: model.type.rawValue) ?? .user
        acceptanceStatus = Share.AcceptanceStatus(rawValue: model.acceptanceStatus.rawValue) ?? .unknown
    }

    /// The participant as an owner sends it.
    var input: ParticipantInput {
        ParticipantInput(
            participantId: participantID, userIdentity: lookupInfo.map { ParticipantInput.Identity(lookupInfo: $0.model) },
            permission: permission.rawValue
        )
    }
}

extension Share {
    /// What a share link opens (`CKShare.Metadata`): the share, its root, its owner, and the caller's place.
    public struct Metadata: Sendable, Hashable {
        public var containerIdentifier: String
        public var share: Share
        public var zoneID: Zone.ID
        public var rootRecordID: Record.ID?
        public var rootRecord: Record?
        public var ownerIdentity: UserIdentity?
        public var participantPermission: Permission
        public var participantStatus: AcceptanceStatus
        public var participantRole: Role
        /// The share link's short GUID.
        public var shortGUID: String
    }
}

extension Container {
    /// Resolves a share link: what it shares, and what the signed-in user (or anyone, for links with a public
    /// permission) may do with it.
    /// - Throws: ``StratusError`` `permissionFailure` when the share is not for the caller, `unknownItem` for an unknown link.
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false) async throws -> Share.Metadata {
        try await shareLink("resolve", shortGUID: url.lastPathComponent, fetchRoot: shouldFetchRootRecord)
    }

    /// Accepts a share: its zone appears in the user's shared database.
    @discardableResult
    public func accept(_ metadata: Share.Metadata) async throws -> Share.Metadata {
        try await shareLink("accept", shortGUID: metadata.shortGUID, fetchRoot: false)
    }

    private func shareLink(_ operation: String, shortGUID: String, fetchRoot: Bool) async throws -> Share.Metadata {
        let request = ShortGUIDsRequest(shortGUIDs: [ShortGUIDInput(value: shortGUID, shouldFetchRootRecord: fetchRoot)])
        let answer = try await post(.public, "records/\(operation)", request, answer: ShareLinkResponse.self)
        switch answer.results.first {
        case .result(let result)?:
            return try Share.Metadata(result, currentUser: currentUserRecordName)
        case .failure(let failure)?:
            throw Container.error(serverErrorCode: failure.serverErrorCode, reason: failure.reason)
        case nil:
            throw StratusError(.internalError, "records/\(operation) answered no result")
        }
    }
}

extension Share.Metadata {
    init(_ result: ShareLinkResult, currentUser: String?) throws {
        guard let share = Share(try Record(model: result.share, currentUser: currentUser)) else {
            throw StratusError(.internalError, "a share link answered a \(result.share.recordType) record as its share")
        }
        let zoneID = Zone.ID(model: result.zoneID, currentUser: currentUser)
        self.init(
            containerIdentifier: result.containerIdentifier, share: share, zoneID: zoneID,
            rootRecordID: result.rootRecordName.map { Record.ID(recordName: $0, zoneID: zoneID) },
            rootRecord: try result.rootRecord.map { try Record(model: $0, currentUser: currentUser) },
            ownerIdentity: UserIdentity(entry: result.ownerIdentity),
            participantPermission: Share.Permission(rawValue: result.participantPermission.rawValue) ?? .none,
            participantStatus: Share.AcceptanceStatus(rawValue: result.participantStatus.rawValue) ?? .unknown,
            participantRole: Share.Role(rawValue: result.participantType.rawValue) ?? .user,
            shortGUID: result.shortGUID.value
        )
    }
}

extension Database {
    /// Saves a share (CloudKit's `save(_:)` with a `CKShare`) and returns it as saved, with its ``Share/url``.
    /// A record share's root record must exist already; to create both at once, save them together with
    /// ``modifyRecords(saving:deleting:savePolicy:atomically:)``.
    /// - Throws: ``StratusError``, the share record's own error (`invalidArguments` when the root does not exist).
    @discardableResult
    public func save(_ share: Share) async throws -> Share {
        let saved = try await save(share.record)
        guard let savedShare = Share(saved) else { throw StratusError(.internalError, "the saved share came back as a \(saved.recordType) record") }
        return savedShare
    }
}

/// Shares kept on the device, as records are (see ``Record``'s `Codable` conformance).
extension Share: Codable {}
extension Share.Permission: Codable {}
extension Share.Role: Codable {}
extension Share.AcceptanceStatus: Codable {}
extension Share.Participant: Codable {}
extension Share.State: Codable {}
