import Foundation
internal import StratusModel

/// Signing up, in and out, and finding other users.
extension Container {
    /// Creates an account, mails a verification code to its address, and signs it in, unless the container
    /// requires a verified address first: then ``isSignedIn`` stays false until ``verifyEmail(code:email:)``
    /// and a sign-in.
    /// - Parameter deviceName: what the user calls this device, in their list of sessions (``sessions()``).
    /// - Returns: the new user's record ID.
    /// - Throws: ``StratusError`` `serverRecordChanged` (`EXISTS`) when the email address has an account already.
    @discardableResult
    public func signUp(
        email: String, password: String, givenName: String? = nil, familyName: String? = nil, phoneNumber: String? = nil, deviceName: String? = nil
    ) async throws -> Record.ID {
        let body = SignInRequest(
            emailAddress: email, password: password, givenName: givenName, familyName: familyName, phoneNumber: phoneNumber, deviceName: deviceName
        )
        return try await startSession("signup", body: body)
    }

    /// Makes an anonymous account for this device and signs it in, asking the user nothing: every database works
    /// as for any account. ``attachPassword(email:password:)``, a passkey (``addPasskey(_:name:deviceName:)``) or
    /// another way in later keeps the same user record name, data, shares and sync state. Unused anonymous accounts
    /// are removed after the container's period.
    /// - Throws: ``StratusError`` `requestRateLimited` when one network made too many in an hour.
    @discardableResult
    public func signUpAnonymously(deviceName: String? = nil) async throws -> Record.ID {
        try await startSession("signup/anonymous", body: AnonymousSignUpRequest(deviceName: deviceName))
    }

    /// Gives the signed-in anonymous account an address (a verification code is mailed) and a password: it signs in
    /// with them anywhere from then on, as the same user.
    /// - Throws: ``StratusError`` `serverRecordChanged` (`EXISTS`) when the address has an account already.
    public func attachPassword(email: String, password: String) async throws {
        try await send("POST", authURL("account/attach/password"), body: AttachPasswordRequest(emailAddress: email, password: password))
    }

    /// Signs in with Apple: what `ASAuthorizationAppleIDCredential` gave the app (`identityToken`,
    /// `authorizationCode`, and on the first authorization only, `fullName`), with the raw nonce whose SHA-256
    /// (hexadecimal) the app put in the request. With the authorization code, the server keeps a refresh token and
    /// revokes it when the account is deleted, as App Review requires. Signed in already (an anonymous account, or one
    /// with a password), this links the Apple ID to that account.
    /// - Returns: the user's record ID, the same at every sign-in with that Apple ID.
    /// - Throws: ``StratusError`` `notAuthenticated` for a token the server refuses; `serverRecordChanged` (`EXISTS`)
    ///   when the address Apple gives has an account already (sign in to it, then link).
    @discardableResult
    public func signInWithApple(
        identityToken: Data, authorizationCode: Data? = nil, nonce: String, givenName: String? = nil, familyName: String? = nil,
        deviceName: String? = nil
    ) async throws -> Record.ID {
        let body = AppleSignInRequest(
            identityToken: String(decoding: identityToken, as: UTF8.self), nonce: nonce, givenName: givenName, familyName: familyName,
            deviceName: deviceName, authorizationCode: authorizationCode.map { String(decoding: $0, as: UTF8.self) }
        )
        return try adopt(try await send("POST", authURL("signin/apple", asUser: true), body: body, answer: SignInResponse.self))
    }

    /// Claims what the signed-in user had on CloudKit, after the container's public database was imported from there:
    /// with a CloudKit web auth token of theirs (CloudKit JS's, or one `CKFetchWebAuthTokenOperation` gave the app),
    /// the server asks CloudKit who it is, and the records that CloudKit user created become this account's. Once per
    /// account and per CloudKit user.
    /// - Returns: how many public records became the account's.
    /// - Throws: ``StratusError`` `notAuthenticated` for a token CloudKit does not accept; `serverRecordChanged`
    ///   (`EXISTS`) when that CloudKit user was claimed already, or this account claimed one.
    @discardableResult
    public func claimCloudKitIdentity(webAuthToken: String) async throws -> Int {
        let answer = try await send(
            "POST", authURL("account/claim/cloudkit"), body: CloudKitClaimRequest(cloudKitWebAuthToken: webAuthToken), answer: CloudKitClaimResponse.self
        )
        return answer.records
    }

    /// Signs in with an ID token the app got from one of the container's OpenID Connect providers (named as the
    /// container names it), with the raw nonce whose SHA-256 the app sent the provider, if any. Signed in already,
    /// this links the provider to that account.
    @discardableResult
    public func signIn(provider: String, idToken: String, nonce: String? = nil, deviceName: String? = nil) async throws -> Record.ID {
        let body = ProviderSignInRequest(idToken: idToken, nonce: nonce, deviceName: deviceName)
        let name = provider.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? provider
        return try adopt(try await send("POST", authURL("signin/provider/\(name)", asUser: true), body: body, answer: SignInResponse.self))
    }

    /// Signs in with an email address and password.
    /// - Throws: ``StratusError`` `notAuthenticated` for a wrong password or a disabled account, or with a
    ///   ``StratusError/secondFactorToken`` when a second factor must follow; `permissionFailure`
    ///   when the container requires a verified address and this one is not; `requestRateLimited` (with
    ///   `retryAfter`) after repeated failures.
    @discardableResult
    public func signIn(email: String, password: String, deviceName: String? = nil) async throws -> Record.ID {
        try await startSession("signin", body: SignInRequest(emailAddress: email, password: password, deviceName: deviceName))
    }

    /// Ends the session on the server and forgets its token.
    public func signOut() async throws {
        guard webAuthToken != nil else { return }
        defer { session.withLock { $0 = SessionState() } }
        try await send("POST", url("/auth/1/\(identifier)/\(environment.rawValue)/signout"), body: EmptyRequest())
    }

    private func startSession(_ operation: String, body: some Encodable) async throws -> Record.ID {
        let url = url("/auth/1/\(identifier)/\(environment.rawValue)/\(operation)", asUser: false)
        return try adopt(try await send("POST", url, body: body, answer: SignInResponse.self))
    }

    /// Keeps the session a sign-in answered; throws for an answer that asks for a second factor first.
    func adopt(_ answer: SignInResponse) throws -> Record.ID {
        if let pending = answer.secondFactorToken {
            let setup = answer.secondFactorSetupRequired == true
            var error = StratusError(
                .notAuthenticated,
                setup ? "the container requires a second factor: set up an authenticator app or a passkey" : "confirm the sign-in with a second factor",
                serverErrorCode: setup ? "SECOND_FACTOR_SETUP_REQUIRED" : "SECOND_FACTOR_REQUIRED"
            )
            error.secondFactorToken = pending
            error.secondFactorMethods = answer.secondFactorMethods ?? []
            throw error
        }
        if let token = answer.ckWebAuthToken {
            session.withLock { $0 = SessionState(webAuthToken: token, userRecordName: answer.userRecordName) }
        }
        return Record.ID(recordName: answer.userRecordName)
    }

    /// `/auth/1/{container}/{environment}/{operation}`, as the signed-in user when there is one.
    func authURL(_ operation: String, asUser: Bool = true) -> URL {
        url("/auth/1/\(identifier)/\(environment.rawValue)/\(operation)", asUser: asUser)
    }

    /// The signed-in user's record ID (the name of their `Users` record).
    /// - Throws: ``StratusError`` `notAuthenticated` when nobody is signed in.
    public func userRecordID() async throws -> Record.ID {
        if let known = currentUserRecordName { return Record.ID(recordName: known) }
        let name = try await post(.public, "users/caller", EmptyRequest(), answer: CallerResponse.self).identity.userRecordName
        session.withLock { $0.userRecordName = name }
        return Record.ID(recordName: name)
    }

    /// Lets other users find the signed-in user by email address, phone number or record name, or stops it.
    /// Nobody is discoverable until they say so.
    public func setDiscoverable(_ discoverable: Bool) async throws {
        let url = url("/auth/1/\(identifier)/\(environment.rawValue)/discoverability")
        _ = try await send("POST", url, body: DiscoverabilityRequest(discoverable: discoverable), answer: DiscoverabilityResponse.self)
    }

    /// Whether other users can find the signed-in user (``setDiscoverable(_:)``).
    public func isDiscoverable() async throws -> Bool {
        try await get(url("/auth/1/\(identifier)/\(environment.rawValue)/discoverability"), answer: DiscoverabilityResponse.self).discoverable
    }

    /// The identities of discoverable users matching the lookups; the others are left out.
    public func discoverUserIdentities(_ lookups: [UserIdentity.LookupInfo]) async throws -> [UserIdentity] {
        let answer = try await post(.public, "users/discover", DiscoverUsersRequest(lookupInfos: lookups.map(\.model)), answer: UsersResponse.self)
        return answer.users.map(UserIdentity.init(entry:))
    }

    /// The signed-in user's contacts who use the app and are discoverable (CloudKit's address-book discovery,
    /// `GET users/discover`). A Stratus server keeps no address books, so it names nobody; find people with
    /// ``discoverUserIdentities(_:)``.
    public func discoverAllUserIdentities() async throws -> [UserIdentity] {
        try await get(databaseURL(.public, "users/discover"), answer: UsersResponse.self).users.map(UserIdentity.init(entry:))
    }

    /// The identity of the discoverable user with this email address, if any.
    public func discoverUserIdentity(email: String) async throws -> UserIdentity? {
        try await discoverUserIdentities([.emailAddress(email)]).first
    }
}

/// A user as other users see them (`CKUserIdentity`).
public struct UserIdentity: Sendable, Hashable {
    /// How a user is looked up.
    public enum LookupInfo: Sendable, Hashable, Codable {
        case emailAddress(String)
        case phoneNumber(String)
        case userRecordID(Record.ID)

        init?(model: UserLookupInfo) {
            if let email = model.emailAddress {
                self = .emailAddress(email)
            } else if let phone = model.phoneNumber {
                self = .phoneNumber(phone)
            } else if let name = model.userRecordName {
                self = .userRecordID(Record.ID(recordName: name))
            } else {
                return nil
            }
        }

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
    /// What found the user (``Container/discoverUserIdentities(_:)``), or what they are known by.
    public var lookupInfo: LookupInfo?

    init(entry: UserIdentityEntry) {
        userRecordID = Record.ID(recordName: entry.userRecordName)
        givenName = entry.nameComponents?.givenName
        familyName = entry.nameComponents?.familyName
        lookupInfo = entry.lookupInfo.flatMap(LookupInfo.init(model:))
    }
}
