import Foundation
import Hummingbird
import Logging
import StratusModel
import StratusServices
import StratusStore

/// Verification, recovery, changes of address and password, and sign-in by mailed code.
///
/// The steps that mail a code answer `202 {}` at once, whether or not the address has an account, and do the
/// rest afterwards, so neither the answer nor its timing tells who has an account. Codes are redeemed with the
/// address and the code typed, or with the token of the mail's link.
extension AccountsController {
    func registerRecovery(on group: RouterGroup<StratusRequestContext>) {
        group.post("email/verify/send", use: sendVerification)
        group.post("email/verify", use: verifyEmail)
        group.post("password/reset/send", use: sendPasswordReset)
        group.post("password/reset", use: resetPassword)
        group.post("password/change", use: changePassword)
        group.post("email/change/send", use: sendEmailChange)
        group.post("email/change", use: changeEmail)
        group.post("signin/code/send", use: sendSignInCode)
        group.post("signin/code", use: signInWithCode)
    }

    // MARK: - Mailing codes

    /// `POST email/verify/send`: mails a verification code to the signed-in user's address, or to `emailAddress`.
    @Sendable func sendVerification(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await mailCode(.verifyEmail, request, context) { account in !account.isEmailVerified }
    }

    /// `POST password/reset/send`: mails a reset code to `emailAddress`.
    @Sendable func sendPasswordReset(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await mailCode(.resetPassword, request, context) { _ in true }
    }

    /// `POST signin/code/send`: mails a sign-in code to `emailAddress`.
    @Sendable func sendSignInCode(_ request: Request, context: StratusRequestContext) async throws -> Response {
        try await mailCode(.signIn, request, context) { _ in true }
    }

    /// Admits the request, answers `202 {}`, and mails a code to the account (signed in, or of `emailAddress`)
    /// when it exists, is enabled and `wanted` says so.
    private func mailCode(
        _ purpose: AccountCode.Purpose, _ request: Request, _ context: StratusRequestContext, wanted: @escaping @Sendable (Account) -> Bool
    ) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(MailCodeRequest.self, from: request, limit: RequestLimits.jsonBody)
        let containerID = authentication.container.id
        let email: String
        if let user = authentication.userRecordName, body.emailAddress.isEmpty {
            guard let account = try await server.store.account(containerID: containerID, userRecordName: user) else {
                throw APIError(.authenticationFailed, "the account no longer exists")
            }
            guard let address = account.emailAddress, !address.isEmpty else {
                throw APIError.badRequest("this account has no email address; attach one first (account/attach/password)")
            }
            email = address
        } else {
            email = try EmailAddress.normalized(body.emailAddress)
        }
        try await admitMail(to: email, containerID: containerID, request, context)
        mailLater(
            purpose, to: email, containerID: containerID, environment: authentication.environment, languages: Self.languages(body.language, request),
            baseURL: DatabaseCall.baseURL(of: request, server), wanted: wanted
        )
        return Self.accepted()
    }

    /// Mails a code of `purpose` to `email` after the request has been answered, when the address has an enabled
    /// account that `wanted` accepts: the answer and its timing are the same whether or not it has one.
    func mailLater(
        _ purpose: AccountCode.Purpose, to email: String, containerID: String, environment: StratusModel.Environment, languages: [String],
        baseURL: String, wanted: @escaping @Sendable (Account) -> Bool = { _ in true }
    ) {
        let server = server
        Task {
            do {
                guard let account = try await server.store.account(containerID: containerID, emailAddress: email), !account.isDisabled,
                    wanted(account)
                else { return }
                let container = try await server.authenticator.container(containerID)
                try await server.mailer.send(
                    purpose, for: account, to: email, container: container, environment: environment, languages: languages, baseURL: baseURL
                )
            } catch {
                Logger(label: "stratus.accounts").warning(
                    "a code could not be mailed", metadata: ["stratus.error": "\(String(reflecting: error))", "stratus.purpose": "\(purpose.rawValue)"]
                )
            }
        }
    }

    /// `POST email/change/send` (signed in): checks the password and mails a code to `newEmailAddress`.
    @Sendable func sendEmailChange(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(ChangeEmailRequest.self, from: request, limit: RequestLimits.jsonBody)
        let newEmail = try EmailAddress.normalized(body.newEmailAddress)
        try await confirmIdentity(password: body.password, of: account, authentication, request, context, to: "change the address")
        try await admitMail(to: newEmail, containerID: account.containerID, request, context)
        try await server.mailer.send(
            .changeEmail, for: account, to: newEmail, container: authentication.container, environment: authentication.environment,
            languages: Self.languages(body.language, request), baseURL: DatabaseCall.baseURL(of: request, server)
        )
        return Self.accepted()
    }

    // MARK: - Redeeming codes

    /// `POST email/verify`: marks the address verified. Answers `{userRecordName, emailVerified}`.
    @Sendable func verifyEmail(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, body) = try await redemption(request, context)
        let code = try await findCode(.verifyEmail, body, authentication, request, context)
        let account = try await redeem(code, change: .verifyEmail)
        return try JSONResponse.make(encoding: SignInResponse(ckWebAuthToken: nil, userRecordName: account.userRecordName, emailVerified: true))
    }

    /// `POST password/reset`: sets `newPassword` and ends every session of the account. Answers `{userRecordName}`.
    @Sendable func resetPassword(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, body) = try await redemption(request, context)
        let password = try Self.validPassword(body.newPassword ?? "", field: "newPassword")
        let code = try await findCode(.resetPassword, body, authentication, request, context)
        let hash = try server.passwordHasher.hash(password)
        let account = try await redeem(code, change: .password(hash: hash, keepingSession: nil))
        return try JSONResponse.make(
            encoding: SignInResponse(ckWebAuthToken: nil, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified)
        )
    }

    /// `POST email/change`: makes the address the code was mailed to the account's. Answers `{userRecordName, emailVerified}`.
    @Sendable func changeEmail(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, body) = try await redemption(request, context)
        let code = try await findCode(.changeEmail, body, authentication, request, context)
        guard let newEmail = code.newEmailAddress else { throw Self.invalidCode }
        let account = try await redeem(code, change: .emailAddress(newEmail))
        return try JSONResponse.make(encoding: SignInResponse(ckWebAuthToken: nil, userRecordName: account.userRecordName, emailVerified: true))
    }

    /// `POST signin/code`: signs in with a mailed code (and so verifies the address). Answers like `signin`.
    @Sendable func signInWithCode(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let (authentication, body) = try await redemption(request, context)
        let code = try await findCode(.signIn, body, authentication, request, context)
        let account = try await redeem(code, change: .verifyEmail)
        return try await finishSignIn(account, container: authentication.container, deviceName: body.deviceName)
    }

    /// `POST password/change` (signed in): checks the current password, sets the new one, and ends every other
    /// session. Answers `{}`.
    @Sendable func changePassword(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(ChangePasswordRequest.self, from: request, limit: RequestLimits.jsonBody)
        let password = try Self.validPassword(body.newPassword, field: "newPassword")
        try await checkPassword(body.password, of: account, request, context)
        try await server.store.changeAccount(
            containerID: account.containerID, userRecordName: account.userRecordName,
            change: .password(hash: try server.passwordHasher.hash(password), keepingSession: authentication.sessionID)
        )
        return Self.empty()
    }

    private func redemption(_ request: Request, _ context: StratusRequestContext) async throws -> (Authentication, RedeemCodeRequest) {
        let authentication = try await authenticate(request, context)
        return (authentication, try await RequestBody.decode(RedeemCodeRequest.self, from: request, limit: RequestLimits.jsonBody))
    }

    static let invalidCode = APIError(.authenticationFailed, "the code is wrong, was used already, or has expired; ask for a new one")

    /// The live code of `purpose` that the request names by link token, or by the code typed for the signed-in
    /// user or the account of `emailAddress`. Wrong codes count against the code and the sign-in throttle.
    func findCode(
        _ purpose: AccountCode.Purpose, _ body: RedeemCodeRequest, _ authentication: Authentication, _ request: Request,
        _ context: StratusRequestContext
    ) async throws -> AccountCode {
        let containerID = authentication.container.id
        let now = ServerClock.now()
        if let token = body.token, !token.isEmpty {
            guard let code = try await server.store.accountCode(containerID: containerID, linkHash: server.mailer.hash(token), now: now),
                code.purpose == purpose
            else { throw Self.invalidCode }
            return code
        }
        guard let typed = body.code?.filter({ !$0.isWhitespace }), !typed.isEmpty else {
            throw APIError.badRequest("send the code typed (code, with emailAddress unless signed in) or the link's token")
        }
        let account: Account?
        let throttleKey: String
        if let email = body.emailAddress, !email.isEmpty {
            let normalized = try EmailAddress.normalized(email)
            throttleKey = containerID + "|" + normalized
            account = try await server.store.account(containerID: containerID, emailAddress: normalized)
        } else if let user = authentication.userRecordName {
            throttleKey = containerID + "|" + user
            account = try await server.store.account(containerID: containerID, userRecordName: user)
        } else {
            throw APIError.badRequest("emailAddress is required with a code, unless signed in")
        }
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        if let retryAfter = try await server.signInThrottle.retryAfter(account: throttleKey, address: address) {
            throw APIError(.throttled, "too many wrong codes from this address; try again later", retryAfter: retryAfter)
        }
        var stored: AccountCode?
        if let account {
            stored = try await server.store.accountCode(containerID: containerID, userRecordName: account.userRecordName, purpose: purpose, now: now)
        }
        guard let stored, Tokens.constantTimeEquals(server.mailer.hash(typed), stored.codeHash) else {
            if let stored { try await server.store.recordFailedCodeAttempt(id: stored.id, limit: AccountMailer.allowedWrongCodes) }
            try await server.signInThrottle.recordFailure(account: throttleKey, address: address)
            throw Self.invalidCode
        }
        try await server.signInThrottle.recordSuccess(account: throttleKey, address: address)
        return stored
    }

    /// Uses the code up and makes `change`; refuses disabled accounts.
    func redeem(_ code: AccountCode, change: AccountChange) async throws -> Account {
        if let account = try await server.store.account(containerID: code.containerID, userRecordName: code.userRecordName), account.isDisabled {
            throw Self.disabled
        }
        do {
            return try await server.store.redeemAccountCode(id: code.id, now: ServerClock.now(), change: change)
        } catch let error as StorageError where error.code == .notFound {
            throw Self.invalidCode
        }
    }

    static let disabled = APIError(.authenticationFailed, "this account is disabled")

    // MARK: - Helpers

    /// The signed-in caller's account.
    /// - Throws: `AUTHENTICATION_REQUIRED` without a web auth token.
    func signedInAccount(_ authentication: Authentication) async throws -> Account {
        guard let user = authentication.userRecordName else {
            throw APIError(.authenticationRequired, "this needs a signed-in user (ckWebAuthToken)")
        }
        guard let account = try await server.store.account(containerID: authentication.container.id, userRecordName: user) else {
            throw APIError(.authenticationFailed, "the account no longer exists")
        }
        return account
    }

    /// Checks the password of a signed-in account, throttled like sign-in.
    func checkPassword(_ password: String, of account: Account, _ request: Request, _ context: StratusRequestContext) async throws {
        let key = account.containerID + "|" + (account.emailAddress ?? account.userRecordName)
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        if let retryAfter = try await server.signInThrottle.retryAfter(account: key, address: address) {
            throw APIError(.throttled, "too many wrong passwords from this address; try again later", retryAfter: retryAfter)
        }
        guard server.passwordHasher.verify(password, against: account.passwordHash) else {
            try await server.signInThrottle.recordFailure(account: key, address: address)
            throw APIError(.authenticationFailed, "the password is wrong")
        }
    }

    /// The languages a mail may be written in, best first: the body's, then the `Accept-Language` header's.
    static func languages(_ given: String?, _ request: Request) -> [String] {
        var languages: [String] = given.map { [$0] } ?? []
        if let header = request.headers[.acceptLanguage] {
            languages += header.split(separator: ",").compactMap { part in
                let tag = part.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
                return tag.isEmpty || tag == "*" ? nil : tag
            }
        }
        return languages
    }

    /// `202 {}`: the request was taken; what follows happens after the answer.
    static func accepted() -> Response {
        empty(status: .accepted)
    }

    /// `{}`, the answer of a step that returns nothing more.
    static func empty(status: HTTPResponse.Status = .ok) -> Response {
        var writer = JSONWriter()
        writer.beginObject()
        writer.endObject()
        return JSONResponse.make(writer, status: status)
    }

    /// A password a user's account may have (``PasswordPolicy/user``).
    static func validPassword(_ password: String, field: String = "password") throws -> String {
        if let refusal = PasswordPolicy.user.refusal(of: password) { throw APIError.badRequest("\(field) \(refusal)") }
        return password
    }
}
