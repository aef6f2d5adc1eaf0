import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// Accounts that start anonymous: made for a device without asking anything, used with every database, and later
/// given an address and password, a passkey or a provider; the user record name, the data, the shares and the
/// sync state stay the same.
extension AccountsController {
    func registerAnonymous(on group: RouterGroup<StratusRequestContext>) {
        group.post("signup/anonymous", use: signUpAnonymously)
        group.post("account/attach/password", use: attachPassword)
    }

    /// How many anonymous accounts one client address may make in an hour.
    static let anonymousSignUpsPerHour = 100

    /// `POST signup/anonymous` with `{deviceName?}`: makes an anonymous account and answers `201` with its session.
    /// - Throws: `THROTTLED` after ``anonymousSignUpsPerHour`` from one client address.
    @Sendable func signUpAnonymously(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(AnonymousSignUpRequest.self, from: request, limit: RequestLimits.formBody)
        let client = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        try await MailThrottle.admit(
            [("anonymous-from:" + client, Self.anonymousSignUpsPerHour)], window: 3_600_000, store: server.store, now: ServerClock.now(),
            refusal: "too many anonymous accounts were made from this address; try again later"
        )
        let account = Account(
            containerID: authentication.container.id, userRecordName: "_" + Tokens.randomHex(bytes: 16), emailAddress: nil,
            passwordHash: "", givenName: nil, familyName: nil, isAnonymous: true, createdAt: ServerClock.now()
        )
        try await server.store.createAccount(account)
        let token = try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: false, anonymous: true),
            status: .created
        )
    }

    /// `POST account/attach/password` (signed in, as an account without an address) with `{emailAddress, password,
    /// language?}`: the account keeps its user record name, data and sessions, gets the address (unverified: a
    /// code is mailed) and password, and is no longer anonymous.
    @Sendable func attachPassword(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(AttachPasswordRequest.self, from: request, limit: RequestLimits.jsonBody)
        guard account.emailAddress == nil, !account.hasPassword else {
            throw APIError.badRequest("this account has an address already: change it (email/change/send) or set a password (password/reset/send)")
        }
        let email = try EmailAddress.normalized(body.emailAddress)
        let password = try Self.validPassword(body.password)
        try await admitMail(to: email, containerID: account.containerID, request, context)
        let changed: Account
        do {
            changed = try await server.store.changeAccount(
                containerID: account.containerID, userRecordName: account.userRecordName,
                change: .attachPassword(emailAddress: email, hash: try server.passwordHasher.hash(password))
            )
        } catch let error as StorageError where error.code == .alreadyExists {
            throw APIError(.exists, "an account with this email address exists already")
        }
        try await server.mailer.send(
            .verifyEmail, for: changed, to: email, container: authentication.container, environment: authentication.environment,
            languages: Self.languages(body.language, request), baseURL: DatabaseCall.baseURL(of: request, server)
        )
        return try await self.account(request, context: context)
    }
}
