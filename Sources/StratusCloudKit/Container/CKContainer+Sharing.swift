import Foundation
import StratusKit

extension CKContainer {
    /// What an app asks the user for.
    public struct ApplicationPermissions: OptionSet, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        /// Being found by other users of the app by email address, phone number or record ID.
        public static let userDiscoverability = ApplicationPermissions(rawValue: 1 << 0)
    }

    /// Where a permission stands. Stratus asks no one: requesting discoverability grants it, and a user who is
    /// not discoverable is in the initial state (asking again grants it).
    public enum ApplicationPermissionStatus: Int, Sendable {
        case initialState = 0, couldNotComplete = 1, denied = 2, granted = 3
    }

    public typealias ApplicationPermissionBlock = @Sendable (ApplicationPermissionStatus, (any Error)?) -> Void

    // MARK: - Discoverability

    /// Makes the signed-in user discoverable by other users of the app.
    /// - Throws: `CKError.notAuthenticated` without a signed-in user.
    public func requestApplicationPermission(_ applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        try await call { try await self.stratusContainer.setDiscoverable(true) }
        return .granted
    }

    public func requestApplicationPermission(_ applicationPermission: ApplicationPermissions, completionHandler: @escaping ApplicationPermissionBlock) {
        Task {
            do { completionHandler(try await requestApplicationPermission(applicationPermission), nil) } catch { completionHandler(.couldNotComplete, error) }
        }
    }

    /// `.granted` when the signed-in user is discoverable, else `.initialState`.
    public func applicationPermissionStatus(for applicationPermission: ApplicationPermissions) async throws -> ApplicationPermissionStatus {
        try await call { try await self.stratusContainer.isDiscoverable() } ? .granted : .initialState
    }

    public func status(forApplicationPermission applicationPermission: ApplicationPermissions, completionHandler: @escaping ApplicationPermissionBlock) {
        Task {
            do { completionHandler(try await applicationPermissionStatus(for: applicationPermission), nil) } catch { completionHandler(.couldNotComplete, error) }
        }
    }

    // MARK: - Finding users

    /// The discoverable users the lookups name, by lookup; the others are left out.
    func discover(_ lookups: [CKUserIdentity.LookupInfo]) async throws -> [CKUserIdentity.LookupInfo: CKUserIdentity] {
        guard !lookups.isEmpty else { return [:] }
        let identities = try await call { try await self.stratusContainer.discoverUserIdentities(lookups.map(\.stratus)) }
        var found: [CKUserIdentity.LookupInfo: CKUserIdentity] = [:]
        for identity in identities {
            let match = lookups.first { identity.lookupInfo == $0.stratus || identity.userRecordID == $0.userRecordID?.stratus }
            guard let lookup = match ?? (lookups.count == 1 ? lookups[0] : nil) else { continue }
            found[lookup] = CKUserIdentity(identity)
        }
        return found
    }

    public func userIdentity(forEmailAddress email: String) async throws -> CKUserIdentity? {
        try await discover([.init(emailAddress: email)]).values.first
    }

    public func userIdentity(forPhoneNumber phoneNumber: String) async throws -> CKUserIdentity? {
        try await discover([.init(phoneNumber: phoneNumber)]).values.first
    }

    public func userIdentity(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKUserIdentity? {
        try await discover([.init(userRecordID: userRecordID)]).values.first
    }

    /// The discoverable users among these addresses, by address.
    public func userIdentities(forEmailAddresses emails: [String]) async throws -> [String: CKUserIdentity] {
        let found = try await discover(CKUserIdentity.LookupInfo.lookupInfos(withEmails: emails))
        return Dictionary(found.compactMap { lookup, identity in lookup.emailAddress.map { ($0, identity) } }, uniquingKeysWith: { $1 })
    }

    /// The discoverable users among these record IDs, by record ID.
    public func userIdentities(forUserRecordIDs userRecordIDs: [CKRecord.ID]) async throws -> [CKRecord.ID: CKUserIdentity] {
        let found = try await discover(CKUserIdentity.LookupInfo.lookupInfos(with: userRecordIDs))
        return Dictionary(found.compactMap { lookup, identity in lookup.userRecordID.map { ($0, identity) } }, uniquingKeysWith: { $1 })
    }

    public func discoverUserIdentity(withEmailAddress email: String, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await userIdentity(forEmailAddress: email), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func discoverUserIdentity(withPhoneNumber phoneNumber: String, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await userIdentity(forPhoneNumber: phoneNumber), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func discoverUserIdentity(withUserRecordID userRecordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKUserIdentity?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await userIdentity(forUserRecordID: userRecordID), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// The user's contacts who use the app. A Stratus server keeps no address books, so the answer names nobody
    /// (docs/cloudkit.md); look people up by email address, phone number or record ID instead.
    public func discoverAllIdentities() async throws -> [CKUserIdentity] {
        try await call { try await self.stratusContainer.discoverAllUserIdentities() }.map(CKUserIdentity.init)
    }

    public func discoverAllIdentities(completionHandler: @escaping @Sendable ([CKUserIdentity]?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await discoverAllIdentities(), nil) } catch { completionHandler(nil, error) }
        }
    }

    // MARK: - Share participants

    /// A participant to add to a share: the user the lookup names, with their name when they are discoverable.
    /// Someone not found yet (an email address of nobody here) is invited by that address.
    func shareParticipant(for lookup: CKUserIdentity.LookupInfo) async throws -> CKShare.Participant {
        let identity = try await discover([lookup])[lookup]
        return CKShare.Participant(Share.Participant(invitee: lookup.stratus, permission: .readOnly), identity: identity.map {
            CKUserIdentity(userRecordID: $0.userRecordID ?? lookup.userRecordID, lookupInfo: lookup, nameComponents: $0.nameComponents)
        })
    }

    public func shareParticipant(forEmailAddress emailAddress: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: .init(emailAddress: emailAddress))
    }

    public func shareParticipant(forPhoneNumber phoneNumber: String) async throws -> CKShare.Participant {
        try await shareParticipant(for: .init(phoneNumber: phoneNumber))
    }

    public func shareParticipant(forUserRecordID userRecordID: CKRecord.ID) async throws -> CKShare.Participant {
        try await shareParticipant(for: .init(userRecordID: userRecordID))
    }

    public func fetchShareParticipant(withEmailAddress emailAddress: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await shareParticipant(forEmailAddress: emailAddress), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func fetchShareParticipant(withPhoneNumber phoneNumber: String, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await shareParticipant(forPhoneNumber: phoneNumber), nil) } catch { completionHandler(nil, error) }
        }
    }

    public func fetchShareParticipant(withUserRecordID userRecordID: CKRecord.ID, completionHandler: @escaping @Sendable (CKShare.Participant?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await shareParticipant(forUserRecordID: userRecordID), nil) } catch { completionHandler(nil, error) }
        }
    }

    // MARK: - Share links

    /// What a share link opens, for the signed-in user (or anyone, for a link with a public permission).
    /// - Throws: `CKError.permissionFailure` when the share is not for the caller, `unknownItem` for an unknown link.
    public func shareMetadata(for url: URL, shouldFetchRootRecord: Bool = false, rootRecordDesiredKeys: [CKRecord.FieldKey]? = nil) async throws -> CKShare.Metadata {
        let metadata = try await call { try await self.stratusContainer.shareMetadata(for: url, shouldFetchRootRecord: shouldFetchRootRecord) }
        return CKShare.Metadata(metadata)
    }

    /// What several links open, by link.
    public func shareMetadatas(for urls: [URL]) async throws -> [URL: Result<CKShare.Metadata, any Error>] {
        await resultsByItem(urls) { try await shareMetadata(for: $0) }
    }

    public func fetchShareMetadata(with url: URL, completionHandler: @escaping @Sendable (CKShare.Metadata?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await shareMetadata(for: url), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Accepts a share: its zone appears in the user's shared database. Answers the share as accepted.
    @discardableResult
    public func accept(_ metadata: CKShare.Metadata) async throws -> CKShare {
        CKShare.Metadata(try await call { try await self.stratusContainer.accept(metadata.stratus) }).share
    }

    /// Accepts several shares, each with its own result.
    public func accept(_ metadatas: [CKShare.Metadata]) async throws -> [CKShare.Metadata: Result<CKShare, any Error>] {
        await resultsByItem(metadatas) { try await accept($0) }
    }

    public func accept(_ metadata: CKShare.Metadata, completionHandler: @escaping @Sendable (CKShare?, (any Error)?) -> Void) {
        Task {
            do { completionHandler(try await accept(metadata), nil) } catch { completionHandler(nil, error) }
        }
    }
}
