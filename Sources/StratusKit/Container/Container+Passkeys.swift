import Foundation
internal import StratusModel

/// Passkeys: an account made with one has no password; a passkey signs in alone, or stands as the second factor
/// after a password or a mailed code.
///
/// Each step comes in two calls: options for the platform's authenticator (on Apple platforms,
/// `ASAuthorizationPlatformPublicKeyCredentialProvider`), then what the authenticator answered. The container's
/// relying party ID must be in the app's associated domains (`webcredentials:example.com`).
extension Container {
    /// What an authenticator needs to make a passkey: `createCredentialRegistrationRequest(challenge:name:userID:)`
    /// of a provider for ``relyingPartyID``.
    public struct PasskeyRegistrationOptions: Sendable, Hashable {
        public var relyingPartyID: String
        public var challenge: Data
        /// The user handle the passkey keeps: the account's user record name.
        public var userID: Data
        /// The email address, which the authenticator shows.
        public var userName: String
        public var displayName: String
        /// The account's passkeys, which the authenticator should not make again.
        public var excludedCredentialIDs: [Data]
    }

    /// What an authenticator needs to sign with a passkey: `createCredentialAssertionRequest(challenge:)` of a
    /// provider for ``relyingPartyID``, limited to ``allowedCredentialIDs`` when there are some.
    public struct PasskeyAssertionOptions: Sendable, Hashable {
        public var relyingPartyID: String
        public var challenge: Data
        /// Empty for a sign-in with a passkey alone; the account's passkeys for a second factor.
        public var allowedCredentialIDs: [Data]
        /// Whether the authenticator must verify the user (biometrics or a passcode): always for a passkey alone.
        public var userVerificationRequired: Bool
    }

    /// A passkey as the authenticator made it (from `ASAuthorizationPlatformPublicKeyCredentialRegistration`:
    /// `credentialID`, `rawClientDataJSON`, `rawAttestationObject`).
    public struct NewPasskey: Sendable, Hashable {
        public var credentialID: Data
        public var clientDataJSON: Data
        public var attestationObject: Data

        public init(credentialID: Data, clientDataJSON: Data, attestationObject: Data) {
            self.credentialID = credentialID
            self.clientDataJSON = clientDataJSON
            self.attestationObject = attestationObject
        }
    }

    /// A passkey's signature as the authenticator made it (from `ASAuthorizationPlatformPublicKeyCredentialAssertion`:
    /// `credentialID`, `rawClientDataJSON`, `rawAuthenticatorData`, `signature`, `userID`).
    public struct PasskeySignature: Sendable, Hashable {
        public var credentialID: Data
        public var clientDataJSON: Data
        public var authenticatorData: Data
        public var signature: Data
        public var userID: Data?

        public init(credentialID: Data, clientDataJSON: Data, authenticatorData: Data, signature: Data, userID: Data?) {
            self.credentialID = credentialID
            self.clientDataJSON = clientDataJSON
            self.authenticatorData = authenticatorData
            self.signature = signature
            self.userID = userID
        }
    }

    /// One of the signed-in user's passkeys.
    public struct PasskeyInfo: Sendable, Hashable, Identifiable {
        /// The credential ID, base64url.
        public var id: String
        public var name: String
        /// Whether it is synced to the user's other devices.
        public var isBackedUp: Bool
        public var created: Date
        public var lastUsed: Date?
    }

    // MARK: - Signing up and in

    /// Options for the passkey of a new account that will have no password.
    /// - Throws: ``StratusError`` `serverRecordChanged` (`EXISTS`) when the address has an account already.
    public func passkeySignUpOptions(email: String, givenName: String? = nil, familyName: String? = nil) async throws -> PasskeyRegistrationOptions {
        let body = PasskeySignUpOptionsRequest(emailAddress: email, givenName: givenName, familyName: familyName)
        return try Self.registrationOptions(try await send("POST", authURL("signup/passkey/options", asUser: false), body: body, answer: PasskeyCreationOptions.self))
    }

    /// Makes the account with the passkey the authenticator made from ``passkeySignUpOptions(email:givenName:familyName:)``,
    /// mails a verification code, and signs in unless the container requires a verified address first.
    @discardableResult
    public func signUp(with passkey: NewPasskey, passkeyName: String? = nil, deviceName: String? = nil) async throws -> Record.ID {
        let body = RegisterPasskeyRequest(credential: Self.registration(passkey), name: passkeyName, deviceName: deviceName)
        return try adopt(try await send("POST", authURL("signup/passkey", asUser: false), body: body, answer: SignInResponse.self))
    }

    /// Options for signing in with a passkey: alone, or with the `secondFactorToken` of a sign-in that asked for a
    /// second factor.
    public func passkeySignInOptions(secondFactorToken: String? = nil) async throws -> PasskeyAssertionOptions {
        let answer = try await send(
            "POST", authURL("signin/passkey/options", asUser: false), body: PasskeySignInOptionsRequest(secondFactorToken: secondFactorToken),
            answer: PasskeyRequestOptions.self
        )
        return PasskeyAssertionOptions(
            relyingPartyID: answer.rpId, challenge: try Self.data(answer.challenge),
            allowedCredentialIDs: try answer.allowCredentials.map { try Self.data($0.id) }, userVerificationRequired: answer.userVerification == "required"
        )
    }

    /// Signs in with the signature the authenticator made from ``passkeySignInOptions(secondFactorToken:)``.
    /// - Throws: ``StratusError`` `notAuthenticated` for a passkey the server does not know or a check that fails.
    @discardableResult
    public func signIn(with signature: PasskeySignature, deviceName: String? = nil) async throws -> Record.ID {
        let assertion = PasskeyAssertion(
            id: Self.base64URL(signature.credentialID), clientDataJSON: Self.base64URL(signature.clientDataJSON),
            authenticatorData: Self.base64URL(signature.authenticatorData), signature: Self.base64URL(signature.signature),
            userHandle: signature.userID.map(Self.base64URL)
        )
        let body = PasskeySignInRequest(credential: assertion, deviceName: deviceName)
        return try adopt(try await send("POST", authURL("signin/passkey", asUser: false), body: body, answer: SignInResponse.self))
    }

    // MARK: - The signed-in user's passkeys

    /// Options for another passkey of the signed-in user: with the password, or none within 5 minutes of signing
    /// in; or, without a user, with the `secondFactorToken` of a sign-in that must set up a second factor.
    public func passkeyRegistrationOptions(password: String? = nil, secondFactorToken: String? = nil) async throws -> PasskeyRegistrationOptions {
        let body = PasskeyRegistrationOptionsRequest(password: password, secondFactorToken: secondFactorToken)
        let url = authURL("passkeys/register/options", asUser: secondFactorToken == nil)
        return try Self.registrationOptions(try await send("POST", url, body: body, answer: PasskeyCreationOptions.self))
    }

    /// Keeps the passkey the authenticator made from ``passkeyRegistrationOptions(password:secondFactorToken:)``;
    /// signs in when those options came with a `secondFactorToken`.
    @discardableResult
    public func addPasskey(_ passkey: NewPasskey, name: String? = nil, deviceName: String? = nil) async throws -> PasskeyInfo {
        let body = RegisterPasskeyRequest(credential: Self.registration(passkey), name: name, deviceName: deviceName)
        let answer = try await send("POST", authURL("passkeys/register"), body: body, answer: RegisterPasskeyResponse.self)
        if let token = answer.ckWebAuthToken {
            session.withLock { $0 = SessionState(webAuthToken: token, userRecordName: answer.userRecordName) }
        }
        return Self.info(answer.passkey)
    }

    /// The signed-in user's passkeys, oldest first.
    public func passkeys() async throws -> [PasskeyInfo] {
        try await get(authURL("passkeys"), answer: PasskeysResponse.self).passkeys.map(Self.info)
    }

    /// Removes one of the signed-in user's passkeys: with the password, or none within 5 minutes of signing in.
    public func removePasskey(id: String, password: String? = nil) async throws {
        try await send("POST", authURL("passkeys/delete"), body: RemovePasskeyRequest(credentialID: id, password: password))
    }

    // MARK: - Helpers

    private static func registrationOptions(_ options: PasskeyCreationOptions) throws -> PasskeyRegistrationOptions {
        PasskeyRegistrationOptions(
            relyingPartyID: options.rp.id, challenge: try data(options.challenge), userID: try data(options.user.id), userName: options.user.name,
            displayName: options.user.displayName, excludedCredentialIDs: try options.excludeCredentials.map { try data($0.id) }
        )
    }

    private static func registration(_ passkey: NewPasskey) -> PasskeyRegistration {
        PasskeyRegistration(
            id: base64URL(passkey.credentialID), clientDataJSON: base64URL(passkey.clientDataJSON), attestationObject: base64URL(passkey.attestationObject)
        )
    }

    private static func info(_ entry: PasskeyEntry) -> PasskeyInfo {
        PasskeyInfo(
            id: entry.credentialID, name: entry.name, isBackedUp: entry.backedUp, created: Date(milliseconds: entry.created),
            lastUsed: entry.lastUsed.map(Date.init(milliseconds:))
        )
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func data(_ base64URL: String) throws -> Data {
        var text = base64URL.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else { throw StratusError(.internalError, "the server sent a value that is not base64url") }
        return data
    }
}
