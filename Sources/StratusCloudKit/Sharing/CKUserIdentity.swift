import Foundation
import StratusKit

/// A user as other users of the app see them: their record ID, their name when they made themselves
/// discoverable, and what found them (`CKUserIdentity`).
public final class CKUserIdentity: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public typealias LookupInfo = CKUserIdentityLookupInfo

    public let userRecordID: CKRecord.ID?
    public let lookupInfo: LookupInfo?
    public let nameComponents: PersonNameComponents?
    /// Whether the identity names an account of this container. Stratus knows only its own accounts, so an
    /// identity with a user record ID has one.
    public var hasiCloudAccount: Bool { userRecordID != nil }
    /// Stratus keeps no address books: always empty.
    public let contactIdentifiers: [String] = []

    init(userRecordID: CKRecord.ID?, lookupInfo: LookupInfo?, nameComponents: PersonNameComponents?) {
        self.userRecordID = userRecordID
        self.lookupInfo = lookupInfo
        self.nameComponents = nameComponents
    }

    convenience init(_ identity: UserIdentity) {
        var name: PersonNameComponents?
        if identity.givenName != nil || identity.familyName != nil {
            name = PersonNameComponents()
            name?.givenName = identity.givenName
            name?.familyName = identity.familyName
        }
        self.init(
            userRecordID: identity.userRecordID.map(CKRecord.ID.init), lookupInfo: identity.lookupInfo.map(LookupInfo.init),
            nameComponents: name
        )
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(userRecordID, forKey: "userRecordID")
        coder.encode(lookupInfo, forKey: "lookupInfo")
        coder.encode(nameComponents?.givenName.map { $0 as NSString }, forKey: "givenName")
        coder.encode(nameComponents?.familyName.map { $0 as NSString }, forKey: "familyName")
    }

    public init?(coder: NSCoder) {
        userRecordID = coder.decodeObject(of: CKRecord.ID.self, forKey: "userRecordID")
        lookupInfo = coder.decodeObject(of: LookupInfo.self, forKey: "lookupInfo")
        let given = coder.decodeObject(of: NSString.self, forKey: "givenName") as String?
        let family = coder.decodeObject(of: NSString.self, forKey: "familyName") as String?
        if given != nil || family != nil {
            var name = PersonNameComponents()
            name.givenName = given
            name.familyName = family
            nameComponents = name
        } else {
            nameComponents = nil
        }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override var description: String {
        "<CKUserIdentity: userRecordID=\(userRecordID?.recordName ?? "nil"), lookupInfo=\(lookupInfo?.description ?? "nil")>"
    }
}

/// How a user is looked up: by email address, phone number or user record ID (`CKUserIdentity.LookupInfo`).
public final class CKUserIdentityLookupInfo: NSObject, NSSecureCoding, NSCopying, @unchecked Sendable {
    public let emailAddress: String?
    public let phoneNumber: String?
    public let userRecordID: CKRecord.ID?

    public init(emailAddress: String) {
        self.emailAddress = emailAddress
        phoneNumber = nil
        userRecordID = nil
    }

    public init(phoneNumber: String) {
        emailAddress = nil
        self.phoneNumber = phoneNumber
        userRecordID = nil
    }

    public init(userRecordID: CKRecord.ID) {
        emailAddress = nil
        phoneNumber = nil
        self.userRecordID = userRecordID
    }

    convenience init(_ lookup: UserIdentity.LookupInfo) {
        switch lookup {
        case .emailAddress(let email): self.init(emailAddress: email)
        case .phoneNumber(let phone): self.init(phoneNumber: phone)
        case .userRecordID(let id): self.init(userRecordID: CKRecord.ID(id))
        }
    }

    public static func lookupInfos(withEmails emails: [String]) -> [CKUserIdentityLookupInfo] {
        emails.map(CKUserIdentityLookupInfo.init(emailAddress:))
    }

    public static func lookupInfos(withPhoneNumbers phoneNumbers: [String]) -> [CKUserIdentityLookupInfo] {
        phoneNumbers.map(CKUserIdentityLookupInfo.init(phoneNumber:))
    }

    public static func lookupInfos(with recordIDs: [CKRecord.ID]) -> [CKUserIdentityLookupInfo] {
        recordIDs.map(CKUserIdentityLookupInfo.init(userRecordID:))
    }

    var stratus: UserIdentity.LookupInfo {
        if let emailAddress { return .emailAddress(emailAddress) }
        if let phoneNumber { return .phoneNumber(phoneNumber) }
        return .userRecordID(userRecordID?.stratus ?? Record.ID(recordName: ""))
    }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(emailAddress.map { $0 as NSString }, forKey: "emailAddress")
        coder.encode(phoneNumber.map { $0 as NSString }, forKey: "phoneNumber")
        coder.encode(userRecordID, forKey: "userRecordID")
    }

    public init?(coder: NSCoder) {
        emailAddress = coder.decodeObject(of: NSString.self, forKey: "emailAddress") as String?
        phoneNumber = coder.decodeObject(of: NSString.self, forKey: "phoneNumber") as String?
        userRecordID = coder.decodeObject(of: CKRecord.ID.self, forKey: "userRecordID")
        if emailAddress == nil && phoneNumber == nil && userRecordID == nil { return nil }
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? CKUserIdentityLookupInfo else { return false }
        return emailAddress == other.emailAddress && phoneNumber == other.phoneNumber && userRecordID == other.userRecordID
    }

    public override var hash: Int { stratus.hashValue }

    public override var description: String {
        emailAddress.map { "email \($0)" } ?? phoneNumber.map { "phone \($0)" } ?? "user \(userRecordID?.recordName ?? "")"
    }
}
