import Foundation
import StratusKit

/// The record type of shares.
public let CKRecordTypeShare = Share.recordType
/// The record name of a zone's share (`CKShare(recordZoneID:)`).
public let CKRecordNameZoneWideShare = "cloudkit.zoneshare"

/// A share: a root record and the records beneath it, or a whole zone, opened to chosen people or to anyone
/// with its link. Save it with its root record (`CKModifyRecordsOperation(recordsToSave: [root, share], …)`);
/// the saved share has its ``url``.
open class CKShare: CKRecord, @unchecked Sendable {
    public typealias Participant = CKShareParticipant
    public typealias Metadata = CKShareMetadata

    /// What a participant, or anyone with the link, may do.
    public enum ParticipantPermission: Int, Sendable {
        case unknown = 0, none = 1, readOnly = 2, readWrite = 3
    }

    /// A participant's place on the share. Stratus names no administrators.
    public enum ParticipantRole: Int, Sendable {
        case unknown = 0, owner = 1, administrator = 2, privateUser = 3, publicUser = 4
    }

    /// CloudKit's older name of a participant's role.
    public enum ParticipantType: Int, Sendable {
        case unknown = 0, owner = 1, administrator = 2, privateUser = 3, publicUser = 4
    }

    /// Where a participant stands.
    public enum ParticipantAcceptanceStatus: Int, Sendable {
        case unknown = 0, pending = 1, accepted = 2, removed = 3
    }

    /// The share's own fields, set with the record subscript (`share[CKShare.SystemFieldKey.title] = "Trip"`).
    public enum SystemFieldKey {
        public static let title: CKRecord.FieldKey = "cloudkit.title"
        public static let thumbnailImageData: CKRecord.FieldKey = "cloudkit.thumbnailImageData"
        public static let shareType: CKRecord.FieldKey = "cloudkit.type"
    }

    private let participantsLock = NSLock()
    private var participantObjects: [CKShareParticipant] = []

    /// A share of `rootRecord` and the records beneath it, in the root's zone.
    public convenience init(rootRecord: CKRecord) {
        self.init(Share(rootRecord: rootRecord.stratus).record)
    }

    public convenience init(rootRecord: CKRecord, shareID: CKRecord.ID) {
        self.init(Share(rootRecord: rootRecord.stratus, shareID: shareID.stratus).record)
    }

    /// A share of a whole zone; its record is named ``CKRecordNameZoneWideShare``.
    public convenience init(recordZoneID: CKRecordZone.ID) {
        self.init(Share(recordZoneID: recordZoneID.stratus).record)
    }

    override init(_ record: Record) {
        super.init(record)
        participantObjects = Self.objects(of: record)
    }

    public required init?(coder: NSCoder) {
        super.init(coder: coder)
        participantObjects = Self.objects(of: stored)
    }

    /// The participants of a share record as objects; a share not saved yet has the signed-in user as its owner,
    /// as in CloudKit.
    private static func objects(of record: Record) -> [CKShareParticipant] {
        guard let share = Share(record) else { return [] }
        if share.participants.isEmpty && record.recordChangeTag == nil { return [CKShareParticipant.unsavedOwner()] }
        return share.participants.map { CKShareParticipant($0) }
    }

    private var shareValue: Share { Share(stored) ?? Share(recordZoneID: stored.recordID.zoneID) }

    /// The share as it is to be saved: with its participants as the app left them.
    override var stratus: Record {
        var share = shareValue
        let participants = participantsLock.withLock { participantObjects }
        share.replaceParticipants(participants.filter { $0.role != .owner || $0.model.participantID != nil }.map(\.model))
        return share.record
    }

    /// The share's link, once it is saved.
    open var url: URL? { shareValue.url }

    /// What anyone with the link may do; `.none` (the default) limits the share to its participants.
    open var publicPermission: ParticipantPermission {
        get { ParticipantPermission(shareValue.publicPermission) }
        set {
            update { record in
                guard var share = Share(record) else { return }
                share.publicPermission = newValue.stratus
                record = share.record
            }
        }
    }

    /// Everyone on the share, the owner first.
    open var participants: [Participant] { participantsLock.withLock { participantObjects } }

    /// The owner.
    open var owner: Participant {
        participants.first { $0.role == .owner } ?? CKShareParticipant.unsavedOwner()
    }

    /// The signed-in user as a participant, when they are one.
    open var currentUserParticipant: Participant? {
        guard let current = shareValue.currentUserParticipant else { return nil }
        return participants.first { $0.model.participantID == current.participantID && current.participantID != nil } ?? CKShareParticipant(current)
    }

    /// Adds a participant (from `CKContainer.shareParticipant(for…)`); they see the share once they accept it.
    open func addParticipant(_ participant: Participant) {
        participantsLock.withLock {
            guard !participantObjects.contains(where: { $0 === participant }) else { return }
            participantObjects.append(participant)
        }
    }

    /// Removes a participant; their access ends when the share is saved.
    open func removeParticipant(_ participant: Participant) {
        participantsLock.withLock { participantObjects.removeAll { $0 === participant || $0.model == participant.model } }
    }

    open override var description: String {
        "<CKShare: recordID=\(recordID.recordName):(\(recordID.zoneID.zoneName):\(recordID.zoneID.ownerName)), url=\(url?.absoluteString ?? "nil"), participants=\(participants.count)>"
    }
}

extension CKShare.ParticipantPermission {
    init(_ permission: Share.Permission) {
        self = switch permission {
        case .none: .none
        case .readOnly: .readOnly
        case .readWrite: .readWrite
        }
    }

    var stratus: Share.Permission {
        switch self {
        case .readWrite: .readWrite
        case .readOnly: .readOnly
        case .none, .unknown: .none
        }
    }
}

extension CKShare.ParticipantRole {
    init(_ role: Share.Role) {
        self = switch role {
        case .owner: .owner
        case .user: .privateUser
        case .publicUser: .publicUser
        }
    }
}

extension CKShare.ParticipantAcceptanceStatus {
    init(_ status: Share.AcceptanceStatus) {
        self = switch status {
        case .invited: .pending
        case .accepted: .accepted
        case .removed: .removed
        case .unknown: .unknown
        }
    }
}

/// One person on a share (`CKShare.Participant`): get one from `CKContainer.shareParticipant(forUserRecordID:)`
/// or by email address, set its ``permission``, and add it to the share.
public final class CKShareParticipant: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    private let lock = NSLock()
    private var participant: Share.Participant
    public let userIdentity: CKUserIdentity

    init(_ participant: Share.Participant, identity: CKUserIdentity? = nil) {
        self.participant = participant
        userIdentity = identity ?? CKUserIdentity(
            userRecordID: participant.userRecordID.map(CKRecord.ID.init), lookupInfo: participant.lookupInfo.map(CKUserIdentity.LookupInfo.init),
            nameComponents: nil
        )
    }

    /// The owner of a share not saved yet: the signed-in user, named as CloudKit names them before the server
    /// answers (``CKCurrentUserDefaultName``).
    static func unsavedOwner() -> CKShareParticipant {
        CKShareParticipant(Share.Participant(unsavedOwnerNamed: CKCurrentUserDefaultName))
    }

    var model: Share.Participant { lock.withLock { participant } }

    /// What the participant may do; set it before saving the share.
    public var permission: CKShare.ParticipantPermission {
        get { CKShare.ParticipantPermission(model.permission) }
        set { lock.withLock { participant.permission = newValue.stratus } }
    }

    public var role: CKShare.ParticipantRole { CKShare.ParticipantRole(model.role) }
    /// CloudKit's older name of ``role``.
    public var type: CKShare.ParticipantType { CKShare.ParticipantType(rawValue: role.rawValue) ?? .unknown }
    public var acceptanceStatus: CKShare.ParticipantAcceptanceStatus { CKShare.ParticipantAcceptanceStatus(model.acceptanceStatus) }
    /// The participant's ID on the share, once the share is saved.
    public var participantID: String { model.participantID ?? "" }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        if let data = try? JSONEncoder().encode(model) { coder.encode(data as NSData, forKey: "participant") }
        coder.encode(userIdentity, forKey: "userIdentity")
    }

    public init?(coder: NSCoder) {
        guard let data = coder.decodeObject(of: NSData.self, forKey: "participant"),
            let participant = try? JSONDecoder().decode(Share.Participant.self, from: data as Data),
            let identity = coder.decodeObject(of: CKUserIdentity.self, forKey: "userIdentity")
        else { return nil }
        self.participant = participant
        userIdentity = identity
    }

    public func copy(with zone: NSZone? = nil) -> Any { CKShareParticipant(model, identity: userIdentity) }

    public override var description: String {
        "<CKShareParticipant: \(userIdentity.lookupInfo?.description ?? participantID), role=\(role), permission=\(permission), acceptanceStatus=\(acceptanceStatus)>"
    }
}

/// What a share link opens (`CKShare.Metadata`): the share, its root record, its owner, and the signed-in
/// user's place on it. Accept it with `CKContainer.accept(_:)` or ``CKAcceptSharesOperation``.
public final class CKShareMetadata: NSObject, NSCopying, @unchecked Sendable {
    let stratus: Share.Metadata
    public let containerIdentifier: String
    public let share: CKShare
    /// The shared root record's ID; `nil` for a zone's share.
    public let hierarchicalRootRecordID: CKRecord.ID?
    /// Fetched when asked for (`shouldFetchRootRecord`).
    public let rootRecord: CKRecord?
    public let ownerIdentity: CKUserIdentity
    public let participantRole: CKShare.ParticipantRole
    public let participantStatus: CKShare.ParticipantAcceptanceStatus
    public let participantPermission: CKShare.ParticipantPermission

    init(_ metadata: Share.Metadata) {
        stratus = metadata
        containerIdentifier = metadata.containerIdentifier
        share = CKShare(metadata.share.record)
        hierarchicalRootRecordID = metadata.rootRecordID.map(CKRecord.ID.init)
        rootRecord = metadata.rootRecord.map(CKRecord.made)
        ownerIdentity = metadata.ownerIdentity.map(CKUserIdentity.init) ?? CKUserIdentity(
            userRecordID: CKRecord.ID(recordName: metadata.zoneID.ownerName), lookupInfo: nil, nameComponents: nil
        )
        participantRole = CKShare.ParticipantRole(metadata.participantRole)
        participantStatus = CKShare.ParticipantAcceptanceStatus(metadata.participantStatus)
        participantPermission = CKShare.ParticipantPermission(metadata.participantPermission)
    }

    /// CloudKit's older name of ``hierarchicalRootRecordID``; a zone's share answers its own ID.
    public var rootRecordID: CKRecord.ID { hierarchicalRootRecordID ?? share.recordID }
    /// CloudKit's older name of ``participantRole``.
    public var participantType: CKShare.ParticipantType { CKShare.ParticipantType(rawValue: participantRole.rawValue) ?? .unknown }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}
