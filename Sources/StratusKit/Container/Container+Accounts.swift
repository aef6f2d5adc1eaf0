import Foundation
internal import StratusModel

/// Signing up, in and out, and finding other users.
extension Container {
    /// Creates an account and signs it in.
    /// - Returns: the new user's record ID.
    /// - Throws: ``StratusError`` `serverRecordChanged` (`EXISTS`) when the email address has an account already.
    @discardableResult
    public func signUp(email: String, password: String, givenName: String? = nil, familyName: String? = nil, phoneNumber: String? = nil) async throws -> Record.ID {
        var body: [String: JSONValue] = ["emailAddress": .string(email), "password": .string(password)]
        if let givenName { body["givenName"] = .string(givenName) }
        if let familyName { body["familyName"] = .string(familyName) }
        if let phoneNumber { body["phoneNumber"] = .string(phoneNumber) }
        return try await startSession("signup", body: JSONValue.object(body))
    }

    /// Signs in with an email address and password.
    /// - Throws: ``StratusError`` `notAuthenticated` for a wrong password; `requestRateLimited` (with
    ///   `retryAfter`) after repeated failures.
    @discardableResult
    public func signIn(email: String, password: String) async throws -> Record.ID {
        try await startSession("signin", body: JSONValue.object(["emailAddress": .string(email), "password": .string(password)]))
    }

    /// Ends the session on the server and forgets its token.
    public func signOut() async throws {
        guard webAuthToken != nil else { return }
        defer { session.withLock { $0 = SessionState() } }
        _ = try await send("POST", url("/auth/1/\(identifier)/\(environment.rawValue)/signout"), body: JSONValue.object([:]))
    }

    private func startSession(_ operation: String, body: JSONValue) async throws -> Record.ID {
        let answer = try await send("POST", url("/auth/1/\(identifier)/\(environment.rawValue)/\(operation)", asUser: false), body: body)
        guard let token = answer["ckWebAuthToken"]?.stringValue, let user = answer["userRecordName"]?.stringValue else {
            throw StratusError(.internalError, "the server's \(operation) answer has no ckWebAuthToken")
        }
        session.withLock { $0 = SessionState(webAuthToken: token, userRecordName: user) }
        return Record.ID(recordName: user)
    }

    /// The signed-in user's record ID (the name of their `Users` record).
    /// - Throws: ``StratusError`` `notAuthenticated` when nobody is signed in.
    public func userRecordID() async throws -> Record.ID {
        if let known = currentUserRecordName { return Record.ID(recordName: known) }
        let answer = try await post(.public, "users/caller", .object([:]))
        guard let name = answer["userRecordName"]?.stringValue else {
            throw StratusError(.notAuthenticated, "no user is signed in")
        }
        session.withLock { $0.userRecordName = name }
        return Record.ID(recordName: name)
    }

    /// Lets other users find the signed-in user by email address, phone number or record name, or stops it.
    /// Nobody is discoverable until they say so.
    public func setDiscoverable(_ discoverable: Bool) async throws {
        _ = try await send("POST", url("/auth/1/\(identifier)/\(environment.rawValue)/discoverability"), body: JSONValue.object(["discoverable": .bool(discoverable)]))
    }

    /// The identities of discoverable users matching the lookups; the others are left out.
    public func discoverUserIdentities(_ lookups: [UserIdentity.LookupInfo]) async throws -> [UserIdentity] {
        let answer = try await post(.public, "users/discover", DiscoverUsersRequest(lookupInfos: lookups.map(\.model)))
        return (answer["users"]?.arrayValue ?? []).compactMap { $0.objectValue.flatMap(UserIdentity.init(wire:)) }
    }

    /// The identity of the discoverable user with this email address, if any.
    public func discoverUserIdentity(email: String) async throws -> UserIdentity? {
        try await discoverUserIdentities([.emailAddress(email)]).first
    }
}

/// A user as other users see them (`CKUserIdentity`).
public struct UserIdentity: Sendable, Hashable {
    /// How a user is looked up.
    public enum LookupInfo: Sendable, Hashable {
        case emailAddress(String)
        case phoneNumber(String)
        case userRecordID(Record.ID)

        var model: UserLookupInfo {
            switch self {
            case .emailAddress(let email): UserLookupInfo(emailAddress: email)
            case .phoneNumber(let phone): UserLookupInfo(phoneNumber: phone)
            case .userRecordID(let id): UserLookupInfo(userRecordName: id.recordName)
            }
        }
    }

    public var userRecordID: Record.ID?
    public var givenName: String?
    public var familyName: String?

    init?(wire: [String: JSONValue]) {
        userRecordID = wire["userRecordName"]?.stringValue.map { Record.ID(recordName: $0) }
        let names = wire["nameComponents"]?.objectValue
        givenName = names?["givenName"]?.stringValue
        familyName = names?["familyName"]?.stringValue
    }
}
