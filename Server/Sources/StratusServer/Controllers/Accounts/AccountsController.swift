import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Sign-up, sign-in and sign-out under `/auth/1/{container}/{environment}`.
struct AccountsController {
    let server: ServerState

    func register(on router: Router<StratusRequestContext>) {
        let group = router.group("auth/1/:container/:environment")
        group.post("signup", use: signUp)
        group.post("signin", use: signIn)
        group.post("signout", use: signOut)
        group.post("discoverability", use: discoverability)
        group.get("discoverability", use: discoverabilityStatus)
        registerRecovery(on: group)
        registerSessions(on: group)
        registerDeletion(on: group)
        registerSecondFactor(on: group)
        registerExport(on: group)
        registerPasskeys(on: group)
        registerAnonymous(on: group)
        registerApple(on: group)
        registerSignInMethods(on: group)
        registerOpenID(on: group)
        registerCloudKitClaim(on: group)
    }

    /// Lets the signed-in user be found by other users (`users/discover`), or stops it: Stratus's
    /// counterpart of CloudKit asking the user for permission. Answers `{discoverable, userRecordName}`.
    @Sendable func discoverability(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        guard let user = authentication.userRecordName else {
            throw APIError(.authenticationRequired, "discoverability is set by a signed-in user (ckWebAuthToken)")
        }
        let body = try await RequestBody.decode(DiscoverabilityRequest.self, from: request, limit: RequestLimits.jsonBody)
        try await server.store.setDiscoverable(body.discoverable, containerID: authentication.container.id, userRecordName: user)
        return JSONResponse.make(DiscoverabilityResponse(discoverable: body.discoverable, userRecordName: user))
    }

    /// `GET discoverability`: whether the signed-in user can be found by other users (CloudKit's permission
    /// status). Answers `{discoverable, userRecordName}`.
    @Sendable func discoverabilityStatus(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        guard let user = authentication.userRecordName else {
            throw APIError(.authenticationRequired, "discoverability is read by a signed-in user (ckWebAuthToken)")
        }
        let account = try await server.store.account(containerID: authentication.container.id, userRecordName: user)
        return JSONResponse.make(DiscoverabilityResponse(discoverable: account?.isDiscoverable ?? false, userRecordName: user))
    }

    /// Counts a message to `email` against the mail limits (per address and per client, ``MailThrottle``), or
    /// refuses it: every message an address gets counts, a sign-up's verification as much as a reset.
    /// - Throws: `THROTTLED` with `retryAfter`.
    func admitMail(to email: String, containerID: String, _ request: Request, _ context: StratusRequestContext) async throws {
        let client = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        try await server.mailThrottle.admit(recipient: containerID + "|" + email, client: client)
    }

    func authenticate(_ request: Request, _ context: StratusRequestContext) async throws -> Authentication {
        try await server.authenticator.authenticate(
            request, containerID: try context.parameters.require("container"),
            environment: try context.parameters.require("environment")
        )
    }

    /// `POST signup`: creates an account and mails a verification code to its address. Answers `201` with a
    /// session, unless the container requires a verified address first (`emailVerificationRequired`).
    @Sendable func signUp(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(SignInRequest.self, from: request, limit: RequestLimits.jsonBody)
        let email = try EmailAddress.normalized(body.emailAddress)
        let password = try Self.validPassword(body.password)
        let container = authentication.container
        if try await server.store.account(containerID: container.id, emailAddress: email) != nil {
            throw APIError(.exists, "an account with this email address exists already")
        }
        let phoneNumber = try body.phoneNumber.flatMap(Self.nonEmpty).map(PhoneNumber.normalized)
        if let phoneNumber, try await server.store.account(containerID: container.id, phoneNumber: phoneNumber) != nil {
            throw APIError(.exists, "an account with this phone number exists already")
        }
        try await admitMail(to: email, containerID: container.id, request, context)
        let account = Account(
            containerID: container.id, userRecordName: "_" + Tokens.randomHex(bytes: 16), emailAddress: email,
            passwordHash: try server.passwordHasher.hash(password),
            givenName: body.givenName.flatMap(Self.nonEmpty), familyName: body.familyName.flatMap(Self.nonEmpty),
            phoneNumber: phoneNumber, createdAt: ServerClock.now()
        )
        try await server.store.createAccount(account)
        try await server.mailer.send(
            .verifyEmail, for: account, to: email, container: container, environment: authentication.environment,
            languages: Self.languages(body.language, request), baseURL: DatabaseCall.baseURL(of: request, server)
        )
        if container.accountSettings.emailVerification == .required {
            return try JSONResponse.make(
                encoding: SignInResponse(ckWebAuthToken: nil, userRecordName: account.userRecordName, emailVerified: false, emailVerificationRequired: true),
                status: .created
            )
        }
        return try await finishSignIn(account, container: container, deviceName: body.deviceName, status: .created)
    }

    /// `POST signin`: checks the password, and answers a session unless the account is disabled or must verify its
    /// address first.
    @Sendable func signIn(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(SignInRequest.self, from: request, limit: RequestLimits.jsonBody)
        let account = try await passwordAccount(body.emailAddress, body.password, container: authentication.container, request, context)
        return try await finishSignIn(account, container: authentication.container, deviceName: body.deviceName)
    }

    /// The account an email address and password sign in to, checked under the sign-in throttle.
    /// - Throws: `AUTHENTICATION_FAILED` for a wrong pair or a disabled account, `ACCESS_DENIED` for an address the
    ///   container requires verified first, `THROTTLED` after repeated failures.
    func passwordAccount(_ emailAddress: String, _ password: String, container: ContainerInfo, _ request: Request, _ context: StratusRequestContext)
        async throws -> Account
    {
        let email = try EmailAddress.normalized(emailAddress)
        let throttleKey = container.id + "|" + email
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        if let retryAfter = try await server.signInThrottle.retryAfter(account: throttleKey, address: address) {
            throw APIError(.throttled, "too many failed sign-ins from this address; try again later", retryAfter: retryAfter)
        }
        let account = try await server.store.account(containerID: container.id, emailAddress: email)
        // An unknown address costs a hash too, so timing does not tell which addresses have accounts.
        // An account made with a passkey has no password: it costs the decoy's hash and fails like a wrong one.
        let stored = account.flatMap { $0.hasPassword ? $0.passwordHash : nil }
        let valid = server.passwordHasher.verify(password, against: stored ?? server.decoyPasswordHash) && stored != nil
        guard let account, valid else {
            try await server.signInThrottle.recordFailure(account: throttleKey, address: address)
            throw APIError(.authenticationFailed, "the email address or password is wrong")
        }
        try await server.signInThrottle.recordSuccess(account: throttleKey, address: address)
        if account.isDisabled { throw Self.disabled }
        if container.accountSettings.emailVerification == .required && !account.isEmailVerified {
            throw APIError(
                .accessDenied,
                "the email address is not verified yet: enter the code mailed to it (email/verify), or ask for another (email/verify/send)"
            )
        }
        return account
    }

    @Sendable func signOut(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        guard let token = authentication.webAuthToken else {
            throw APIError(.authenticationRequired, "sign-out needs the ckWebAuthToken to revoke")
        }
        try await server.authenticator.endSession(token: token, containerID: authentication.container.id)
        return Self.empty()
    }

    /// `text` without surrounding white space, or `nil` when nothing is left.
    static func nonEmpty(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}
