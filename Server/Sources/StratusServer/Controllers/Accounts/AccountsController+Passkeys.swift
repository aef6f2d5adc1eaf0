import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Passkeys (WebAuthn, ES256): made and removed by a signed-in user, made with a new account that has no password,
/// and used to sign in alone or as the second factor after a password or a mailed code.
///
/// Each ceremony takes two requests: `…/options` answers WebAuthn's options with a fresh single-use challenge; the
/// next request brings the authenticator's answer, whose client data names that challenge.
extension AccountsController {
    func registerPasskeys(on group: RouterGroup<StratusRequestContext>) {
        group.get("passkeys", use: listPasskeys)
        group.post("passkeys/register/options", use: passkeyRegistrationOptions)
        group.post("passkeys/register", use: registerPasskey)
        group.post("passkeys/delete", use: removePasskey)
        group.post("signup/passkey/options", use: passkeySignUpOptions)
        group.post("signup/passkey", use: signUpWithPasskey)
        group.post("signin/passkey/options", use: passkeySignInOptions)
        group.post("signin/passkey", use: signInWithPasskey)
    }

    /// What a registration's challenge carries when it finishes a sign-in that must set up a second factor.
    private static let signsInDetails = #"{"signsIn":true}"#

    /// What a sign-up ceremony carries from its options to its end.
    private struct SignUpDetails: Codable {
        var emailAddress: String
        var givenName: String?
        var familyName: String?
        var language: String?
    }

    /// `GET passkeys` (signed in): the account's passkeys (`PasskeysResponse`).
    @Sendable func listPasskeys(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let account = try await signedInAccount(try await authenticate(request, context))
        let passkeys = try await server.store.passkeys(containerID: account.containerID, userRecordName: account.userRecordName)
        return try JSONResponse.make(encoding: PasskeysResponse(passkeys: passkeys.map(Self.entry)))
    }

    /// `POST passkeys/register/options`, signed in with `{password}` (or nothing within 5 minutes of signing in), or
    /// with the `{secondFactorToken}` of a sign-in that must set up a second factor: options for a new passkey.
    @Sendable func passkeyRegistrationOptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(PasskeyRegistrationOptionsRequest.self, from: request, limit: RequestLimits.jsonBody)
        let account: Account
        let signsIn = body.secondFactorToken != nil
        if signsIn {
            account = try await pendingAccount(SecondFactorRequest(secondFactorToken: body.secondFactorToken), purpose: .setup, authentication)
        } else {
            account = try await signedInAccount(authentication)
            try await confirmRecentSignIn(password: body.password, of: account, authentication, request, context, to: "add a passkey")
        }
        let party = relyingParty(authentication, request)
        let existing = try await server.store.passkeys(containerID: account.containerID, userRecordName: account.userRecordName)
        let challenge = try await issueChallenge(
            .register, container: authentication.container, userRecordName: account.userRecordName, details: signsIn ? Self.signsInDetails : nil
        )
        return try JSONResponse.make(encoding: creationOptions(
            challenge: challenge, party: party, userRecordName: account.userRecordName, userName: Self.userName(of: account),
            displayName: Self.displayName(account.givenName, account.familyName) ?? Self.userName(of: account),
            excluding: existing.map(\.credentialID)
        ))
    }

    /// `POST passkeys/register` with `{credential, name?, deviceName?}`: keeps the new passkey. Answers
    /// `RegisterPasskeyResponse`, with a session when it finished a sign-in that had to set up a second factor.
    @Sendable func registerPasskey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(RegisterPasskeyRequest.self, from: request, limit: RequestLimits.jsonBody)
        let (clientData, challenge) = try await redeemChallenge(body.credential.response.clientDataJSON, authentication, purposes: [.register])
        guard let user = challenge.userRecordName else { throw Self.wrongChallenge }
        let signsIn = challenge.details == Self.signsInDetails
        if !signsIn, authentication.userRecordName != user {
            throw APIError(.authenticationRequired, "a passkey is added by the signed-in user who asked for the options")
        }
        guard let account = try await server.store.account(containerID: authentication.container.id, userRecordName: user), !account.isDisabled else {
            throw Self.disabled
        }
        let passkey = try verifiedPasskey(body, clientData: clientData, userRecordName: user, authentication, request)
        do {
            try await server.store.addPasskey(passkey)
        } catch let error as StorageError where error.code == .alreadyExists {
            throw APIError(.exists, "this passkey is registered already")
        }
        let token = signsIn ? try await server.authenticator.startSession(for: account, deviceName: body.deviceName) : nil
        return try JSONResponse.make(
            encoding: RegisterPasskeyResponse(passkey: Self.entry(passkey), ckWebAuthToken: token, userRecordName: signsIn ? user : nil),
            status: .created
        )
    }

    /// `POST passkeys/delete` (signed in) with `{credentialID, password?}` (no password within 5 minutes of signing
    /// in): removes one of the account's passkeys.
    @Sendable func removePasskey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(RemovePasskeyRequest.self, from: request, limit: RequestLimits.jsonBody)
        try await confirmRecentSignIn(password: body.password, of: account, authentication, request, context, to: "remove a passkey")
        let passkeys = try await server.store.passkeys(containerID: account.containerID, userRecordName: account.userRecordName)
        guard passkeys.contains(where: { $0.credentialID == body.credentialID }) else {
            throw APIError(.notFound, "the account has no passkey with credentialID \(body.credentialID)")
        }
        let identities = try await server.store.identities(containerID: account.containerID, userRecordName: account.userRecordName)
        try Self.requireAnotherWayIn(account, identities: identities.count, removing: "this passkey")
        do {
            try await server.store.removePasskey(containerID: account.containerID, userRecordName: account.userRecordName, credentialID: body.credentialID)
        } catch let error as StorageError where error.code == .notFound {
            throw APIError(.notFound, "the account has no passkey with credentialID \(body.credentialID)")
        }
        return Self.empty()
    }

    /// `POST signup/passkey/options` with `{emailAddress, givenName?, familyName?, language?}`: options for the
    /// passkey of a new account that will have no password.
    @Sendable func passkeySignUpOptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(PasskeySignUpOptionsRequest.self, from: request, limit: RequestLimits.jsonBody)
        let email = try EmailAddress.normalized(body.emailAddress)
        if try await server.store.account(containerID: authentication.container.id, emailAddress: email) != nil {
            throw APIError(.exists, "an account with this email address exists already")
        }
        let details = SignUpDetails(
            emailAddress: email, givenName: body.givenName.flatMap(Self.nonEmpty), familyName: body.familyName.flatMap(Self.nonEmpty),
            language: body.language
        )
        let userRecordName = "_" + Tokens.randomHex(bytes: 16)
        let challenge = try await issueChallenge(
            .signUp, container: authentication.container, userRecordName: userRecordName,
            details: String(decoding: try JSONEncoder().encode(details), as: UTF8.self)
        )
        return try JSONResponse.make(encoding: creationOptions(
            challenge: challenge, party: relyingParty(authentication, request), userRecordName: userRecordName, userName: email,
            displayName: Self.displayName(details.givenName, details.familyName) ?? email, excluding: []
        ))
    }

    /// `POST signup/passkey` with `{credential, name?, deviceName?}`: makes the account with its passkey, mails a
    /// verification code, and answers `201` with a session unless the container requires a verified address first.
    @Sendable func signUpWithPasskey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(RegisterPasskeyRequest.self, from: request, limit: RequestLimits.jsonBody)
        let (clientData, challenge) = try await redeemChallenge(body.credential.response.clientDataJSON, authentication, purposes: [.signUp])
        guard let user = challenge.userRecordName, let text = challenge.details,
            let details = try? JSONDecoder().decode(SignUpDetails.self, from: Data(text.utf8))
        else { throw Self.wrongChallenge }
        let passkey = try verifiedPasskey(body, clientData: clientData, userRecordName: user, authentication, request)
        let container = authentication.container
        try await admitMail(to: details.emailAddress, containerID: container.id, request, context)
        let account = Account(
            containerID: container.id, userRecordName: user, emailAddress: details.emailAddress, passwordHash: "",
            givenName: details.givenName, familyName: details.familyName, passkeyCount: 1, createdAt: ServerClock.now()
        )
        do {
            try await server.store.createAccount(account, passkey: passkey)
        } catch let error as StorageError where error.code == .alreadyExists {
            throw APIError(.exists, error.message)
        }
        try await server.mailer.send(
            .verifyEmail, for: account, to: details.emailAddress, container: container, environment: authentication.environment,
            languages: Self.languages(details.language, request), baseURL: DatabaseCall.baseURL(of: request, server)
        )
        let verificationRequired = container.accountSettings.emailVerification == .required
        let token = verificationRequired ? nil : try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(
                ckWebAuthToken: token, userRecordName: user, emailVerified: false, emailVerificationRequired: verificationRequired
            ),
            status: .created
        )
    }

    /// `POST signin/passkey/options` with `{}` for a sign-in with a passkey alone (the authenticator offers the
    /// user's passkeys), or `{secondFactorToken}` to finish a password or mailed-code sign-in with one.
    @Sendable func passkeySignInOptions(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(PasskeySignInOptionsRequest.self, from: request, limit: RequestLimits.jsonBody)
        return try JSONResponse.make(encoding: try await passkeyRequestOptions(secondFactorToken: body.secondFactorToken, authentication, request))
    }

    /// `POST signin/passkey` with `{credential, deviceName?}`: checks the passkey's signature and answers a session.
    /// A passkey alone must have verified the user (biometrics or a PIN), so no second factor follows.
    @Sendable func signInWithPasskey(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(PasskeySignInRequest.self, from: request, limit: RequestLimits.jsonBody)
        let account = try await passkeyAccount(body.credential, authentication, request)
        let token = try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(
                ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified,
                emailVerificationRequired: authentication.container.accountSettings.emailVerification == .required
            )
        )
    }

    /// Options for a passkey sign-in: alone (no token: any of the user's passkeys, user verification required), or
    /// finishing the first factor a `secondFactorToken` proves (the account's passkeys).
    func passkeyRequestOptions(secondFactorToken: String?, _ authentication: Authentication, _ request: Request) async throws -> PasskeyRequestOptions {
        let party = relyingParty(authentication, request)
        guard let secondFactorToken else {
            let challenge = try await issueChallenge(.signIn, container: authentication.container, userRecordName: nil, details: nil)
            return PasskeyRequestOptions(
                challenge: challenge, rpId: party.id, timeout: Int(RelyingParty.challengeLifetime), userVerification: "required", allowCredentials: []
            )
        }
        let account = try await pendingAccount(SecondFactorRequest(secondFactorToken: secondFactorToken), purpose: .verify, authentication)
        let passkeys = try await server.store.passkeys(containerID: account.containerID, userRecordName: account.userRecordName)
        guard !passkeys.isEmpty else { throw APIError.badRequest("this account has no passkey; use its other second factor") }
        let challenge = try await issueChallenge(.secondFactor, container: authentication.container, userRecordName: account.userRecordName, details: nil)
        return PasskeyRequestOptions(
            challenge: challenge, rpId: party.id, timeout: Int(RelyingParty.challengeLifetime), userVerification: "preferred",
            allowCredentials: passkeys.map { PasskeyDescriptor(id: $0.credentialID) }
        )
    }

    /// The account a passkey's answer to a sign-in challenge signs in to, once every check passes.
    /// - Throws: `AUTHENTICATION_FAILED` for a check that fails or a disabled account, `ACCESS_DENIED` for an address
    ///   the container requires verified first, `BAD_REQUEST` for an answer that does not parse.
    func passkeyAccount(_ credential: PasskeyAssertion, _ authentication: Authentication, _ request: Request) async throws -> Account {
        let (clientData, challenge) = try await redeemChallenge(credential.response.clientDataJSON, authentication, purposes: [.signIn, .secondFactor])
        let container = authentication.container
        guard let passkey = try await server.store.passkey(containerID: container.id, credentialID: credential.id) else {
            throw APIError(.authenticationFailed, "this passkey is not registered here (it may have been removed)")
        }
        if let expected = challenge.userRecordName, expected != passkey.userRecordName {
            throw APIError(.authenticationFailed, "this passkey belongs to another account than the one signing in")
        }
        if let handle = credential.response.userHandle, !handle.isEmpty, try Self.bytes(handle, "userHandle") != Array(passkey.userRecordName.utf8) {
            throw APIError(.authenticationFailed, "the passkey's user handle does not match its account")
        }
        let data = try relyingParty(authentication, request).verifyAssertion(
            clientData, clientDataJSON: try Self.bytes(credential.response.clientDataJSON, "clientDataJSON"),
            authenticatorData: try Self.bytes(credential.response.authenticatorData, "authenticatorData"),
            signature: try Self.bytes(credential.response.signature, "signature"),
            publicKey: try Self.bytes(passkey.publicKey, "publicKey"), requireUserVerification: challenge.purpose == .signIn
        )
        do {
            try await server.store.usePasskey(
                containerID: container.id, credentialID: passkey.credentialID, signCount: Int64(data.signCount), at: ServerClock.now()
            )
        } catch let error as StorageError where error.code == .conflict || error.code == .notFound {
            throw APIError(.authenticationFailed, error.message)
        }
        guard let account = try await server.store.account(containerID: container.id, userRecordName: passkey.userRecordName) else {
            throw APIError(.authenticationFailed, "the account no longer exists")
        }
        if account.isDisabled { throw Self.disabled }
        if container.accountSettings.emailVerification == .required && !account.isEmailVerified {
            throw APIError(
                .accessDenied,
                "the email address is not verified yet: enter the code mailed to it (email/verify), or ask for another (email/verify/send)"
            )
        }
        return account
    }

    // MARK: - Helpers

    /// The container's relying party, as this request sees the server.
    func relyingParty(_ authentication: Authentication, _ request: Request) -> RelyingParty {
        RelyingParty(
            settings: authentication.container.accountSettings, containerID: authentication.container.id,
            baseURL: DatabaseCall.baseURL(of: request, server)
        )
    }

    /// Stores a fresh challenge for a ceremony and returns it (base64url).
    private func issueChallenge(_ purpose: PasskeyChallenge.Purpose, container: ContainerInfo, userRecordName: String?, details: String?) async throws
        -> String
    {
        var generator = SystemRandomNumberGenerator()
        let challenge = WebAuthTokens.base64URL((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let now = ServerClock.now()
        try await server.store.createPasskeyChallenge(PasskeyChallenge(
            challenge: challenge, containerID: container.id, purpose: purpose, userRecordName: userRecordName, details: details, createdAt: now,
            expiresAt: now + RelyingParty.challengeLifetime
        ))
        return challenge
    }

    /// Reads a ceremony's client data and uses up the challenge it answers, which must be of one of `purposes`.
    private func redeemChallenge(_ clientDataJSON: String, _ authentication: Authentication, purposes: Set<PasskeyChallenge.Purpose>) async throws
        -> (ClientData, PasskeyChallenge)
    {
        let clientData = try ClientData(try Self.bytes(clientDataJSON, "clientDataJSON"))
        guard let challenge = try await server.store.redeemPasskeyChallenge(
            clientData.challenge, containerID: authentication.container.id, now: ServerClock.now()
        ), purposes.contains(challenge.purpose) else { throw Self.wrongChallenge }
        return (clientData, challenge)
    }

    static let wrongChallenge = APIError(
        .authenticationFailed, "the passkey answered a challenge that was used, has expired or was not issued for this step; ask for new options"
    )

    /// The passkey a registration makes, once its checks pass.
    private func verifiedPasskey(
        _ body: RegisterPasskeyRequest, clientData: ClientData, userRecordName: String, _ authentication: Authentication, _ request: Request
    ) throws -> Passkey {
        let registration = try relyingParty(authentication, request).verifyRegistration(
            clientData, attestationObject: try Self.bytes(body.credential.response.attestationObject, "attestationObject"),
            requireUserVerification: true
        )
        let credentialID = WebAuthTokens.base64URL(registration.credentialID)
        guard body.credential.id == credentialID else {
            throw APIError.badRequest("the credential's id is not the credential ID in its authenticatorData")
        }
        let name = (body.name ?? body.deviceName).flatMap(Self.nonEmpty).map { String($0.prefix(100)) } ?? "Passkey"
        return Passkey(
            containerID: authentication.container.id, credentialID: credentialID, userRecordName: userRecordName,
            publicKey: WebAuthTokens.base64URL(registration.publicKey), signCount: Int64(registration.signCount), name: name,
            isBackedUp: registration.backedUp, createdAt: ServerClock.now()
        )
    }

    /// Checks the password of an account that has one; an account without one (made with a passkey) must have
    /// signed in within 5 minutes.
    func confirmIdentity(
        password: String?, of account: Account, _ authentication: Authentication, _ request: Request, _ context: StratusRequestContext,
        to action: String
    ) async throws {
        if account.hasPassword {
            try await checkPassword(password ?? "", of: account, request, context)
        } else {
            try await confirmRecentSignIn(password: nil, of: account, authentication, request, context, to: action)
        }
    }

    /// Checks that the signed-in user is who they say, for a step that changes how the account signs in: the
    /// password when given (and the account has one), else a session started within 5 minutes. A refusal names only
    /// what the step takes: the password where the request can carry one (`takesPassword`).
    func confirmRecentSignIn(
        password: String?, of account: Account, _ authentication: Authentication, _ request: Request, _ context: StratusRequestContext,
        to action: String, takesPassword: Bool = true
    ) async throws {
        // An anonymous account's session is its only way in: holding it is all the proof there is.
        if account.isAnonymous { return }
        if let password, account.hasPassword {
            try await checkPassword(password, of: account, request, context)
            return
        }
        guard try await signedInRecently(authentication) else {
            throw APIError(
                .authenticationRequired,
                account.hasPassword && takesPassword
                    ? "to \(action), give the password or sign in again" : "to \(action), sign in again (within 5 minutes)"
            )
        }
    }

    /// The name an authenticator shows for the account's passkeys: its address, or for an account without one the
    /// start of its user record name.
    private static func userName(of account: Account) -> String {
        account.emailAddress ?? "account " + account.userRecordName.dropFirst().prefix(8)
    }

    private func creationOptions(
        challenge: String, party: RelyingParty, userRecordName: String, userName: String, displayName: String, excluding: [String]
    ) -> PasskeyCreationOptions {
        PasskeyCreationOptions(
            challenge: challenge, rp: .init(id: party.id, name: party.name),
            user: .init(id: WebAuthTokens.base64URL(Array(userRecordName.utf8)), name: userName, displayName: displayName),
            timeout: Int(RelyingParty.challengeLifetime), excludeCredentials: excluding.map(PasskeyDescriptor.init(id:))
        )
    }

    static func entry(_ passkey: Passkey) -> PasskeyEntry {
        PasskeyEntry(
            credentialID: passkey.credentialID, name: passkey.name, backedUp: passkey.isBackedUp, created: passkey.createdAt,
            lastUsed: passkey.lastUsedAt
        )
    }

    /// The bytes of a base64url field.
    /// - Throws: `BAD_REQUEST` naming the field.
    static func bytes(_ text: String, _ field: String) throws -> [UInt8] {
        guard text.utf8.allSatisfy({ $0.isBase64URLCharacter }), let bytes = WebAuthTokens.bytes(base64URL: text) else {
            throw APIError.badRequest("\(field) is not base64url")
        }
        return bytes
    }

    private static func displayName(_ given: String?, _ family: String?) -> String? {
        let name = [given, family].compactMap { $0 }.joined(separator: " ")
        return name.isEmpty ? nil : name
    }
}

extension UInt8 {
    /// A letter, digit, `-` or `_`: base64url's alphabet.
    fileprivate var isBase64URLCharacter: Bool {
        (0x41...0x5a).contains(self) || (0x61...0x7a).contains(self) || (0x30...0x39).contains(self) || self == 0x2d || self == 0x5f
    }
}
