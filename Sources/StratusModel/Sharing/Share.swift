/// The record type of every share (`docs/protocol.md#sharing`).
public enum ShareRecords {
    /// The record type of shares, record-wide and zone-wide alike.
    public static let recordType = "cloudkit.share"
    /// The record name of a zone's zone-wide share.
    public static let zoneShareName = "cloudkit.zoneshare"
    /// The fields a share record may hold beside its participants, with their types.
    public static let fieldTypes: [String: FieldType] = [
        "cloudkit.title": FieldType(.string),
        "cloudkit.type": FieldType(.string),
        "cloudkit.thumbnailImageData": FieldType(.bytes),
    ]

    /// The share's stable URL on a server: `https://HOST/share/<shortGUID>`.
    public static func url(shortGUID: String, baseURL: String) -> String {
        "\(baseURL)/share/\(shortGUID)"
    }
}

/// What a participant, or anyone holding a share's link, may do with the shared records.
public enum SharePermission: String, Sendable, Hashable, CaseIterable, Codable {
    case none = "NONE"
    case readOnly = "READ_ONLY"
    case readWrite = "READ_WRITE"

    /// Whether this permission lets its holder read.
    public var allowsReading: Bool { self != .none }
    /// Whether this permission lets its holder write.
    public var allowsWriting: Bool { self == .readWrite }
}

/// How a participant came to a share.
public enum ParticipantType: String, Sendable, Hashable, CaseIterable, Codable {
    /// The user whose zone holds the share.
    case owner = "OWNER"
    /// Added by the owner.
    case user = "USER"
    /// Joined through the share's link, with its public permission.
    case publicUser = "PUBLIC_USER"
}

/// Where a participant stands with a share.
public enum AcceptanceStatus: String, Sendable, Hashable, CaseIterable, Codable {
    case invited = "INVITED"
    case accepted = "ACCEPTED"
    case removed = "REMOVED"
}

/// One person on a share, identified by user record name, email address or phone number.
public struct ShareParticipant: Sendable, Hashable {
    public var participantID: String
    /// Known once the participant was added by record name or accepted the share.
    public var userRecordName: String?
    public var emailAddress: String?
    public var phoneNumber: String?
    public var permission: SharePermission
    public var type: ParticipantType
    public var acceptanceStatus: AcceptanceStatus

    public init(
        participantID: String, userRecordName: String?, emailAddress: String? = nil, phoneNumber: String? = nil,
        permission: SharePermission, type: ParticipantType, acceptanceStatus: AcceptanceStatus
    ) {
        self.participantID = participantID
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.permission = permission
        self.type = type
        self.acceptanceStatus = acceptanceStatus
    }

    /// Writes the Share Participant dictionary.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("acceptanceStatus")
        writer.string(acceptanceStatus.rawValue)
        writer.key("participantId")
        writer.string(participantID)
        writer.key("permission")
        writer.string(permission.rawValue)
        writer.key("type")
        writer.string(type.rawValue)
        writer.key("userIdentity")
        writer.beginObject()
        writer.key("lookupInfo")
        writer.beginObject()
        if let emailAddress {
            writer.key("emailAddress")
            writer.string(emailAddress)
        }
        if let phoneNumber {
            writer.key("phoneNumber")
            writer.string(phoneNumber)
        }
        if let userRecordName {
            writer.key("userRecordName")
            writer.string(userRecordName)
        }
        writer.endObject()
        if let userRecordName {
            writer.key("userRecordName")
            writer.string(userRecordName)
        }
        writer.endObject()
        writer.endObject()
    }
}

/// What makes a record a share: its link, its public permission and its participants.
public struct ShareDetails: Sendable, Hashable {
    /// The share's short GUID: the last path segment of its URL.
    public var shortGUID: String
    public var publicPermission: SharePermission
    /// The user whose private zone holds the share.
    public var ownerRecordName: String
    /// The shared root record; `nil` for a zone-wide share.
    public var rootRecordName: String?
    /// Everyone added or joined, the owner excluded; removed participants are not listed.
    public var participants: [ShareParticipant]
    /// The share's URL as a server answered it (servers write it from their base URL; see ``RecordRendering``).
    public var url: String?

    public init(
        shortGUID: String, publicPermission: SharePermission, ownerRecordName: String, rootRecordName: String?,
        participants: [ShareParticipant]
    ) {
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.ownerRecordName = ownerRecordName
        self.rootRecordName = rootRecordName
        self.participants = participants
    }

    /// The owner as a participant.
    public var owner: ShareParticipant {
        ShareParticipant(
            participantID: ownerRecordName, userRecordName: ownerRecordName, permission: .readWrite, type: .owner,
            acceptanceStatus: .accepted
        )
    }

    /// The participant a user is, if any: the owner, or an invited or joined participant not removed.
    public func participant(_ userRecordName: String?) -> ShareParticipant? {
        guard let userRecordName else { return nil }
        if userRecordName == ownerRecordName { return owner }
        guard var found = participants.first(where: { $0.userRecordName == userRecordName && $0.acceptanceStatus != .removed }) else {
            return nil
        }
        found.permission = effectivePermission(of: found)
        return found
    }

    /// What a participant may do: a public user's permission follows the share's public permission.
    public func effectivePermission(of participant: ShareParticipant) -> SharePermission {
        participant.type == .publicUser ? publicPermission : participant.permission
    }
}

extension ShareParticipant: Decodable, JSONWritable {
    private enum Key: String, CodingKey {
        case acceptanceStatus, participantId, permission, type, userIdentity
    }

    private struct Identity: Decodable {
        struct LookupInfo: Decodable {
            var emailAddress: String?
            var phoneNumber: String?
            var userRecordName: String?
        }
        var userRecordName: String?
        var lookupInfo: LookupInfo?
    }

    /// Reads the Share Participant dictionary ``write(to:)`` writes.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let identity = try container.decodeIfPresent(Identity.self, forKey: .userIdentity)
        self.init(
            participantID: try container.decodeIfPresent(String.self, forKey: .participantId) ?? "",
            userRecordName: identity?.userRecordName ?? identity?.lookupInfo?.userRecordName,
            emailAddress: identity?.lookupInfo?.emailAddress, phoneNumber: identity?.lookupInfo?.phoneNumber,
            permission: try container.decodeIfPresent(SharePermission.self, forKey: .permission) ?? .none,
            type: try container.decodeIfPresent(ParticipantType.self, forKey: .type) ?? .user,
            acceptanceStatus: try container.decodeIfPresent(AcceptanceStatus.self, forKey: .acceptanceStatus) ?? .invited
        )
    }
}
