import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// A second factor: codes from an authenticator app (TOTP), with recovery codes for a lost device.
///
/// A first factor that is right (a password, a mailed code) answers a session only when the account has no second
/// factor and the container requires none; otherwise it answers a `secondFactorToken`, valid 5 minutes, for
/// `signin/second-factor` (or, where the container requires a factor the account lacks, for setting one up).
extension AccountsController {
    func registerSecondFactor(on group: RouterGroup<StratusRequestContext>) {
        group.post("signin/second-factor", use: signInWithSecondFactor)
        group.post("second-factor/totp/setup", use: setUpTOTP)
        group.post("second-factor/totp/confirm", use: confirmTOTP)
        group.post("second-factor/totp/disable", use: disableTOTP)
        group.post("second-factor/recovery-codes", use: renewRecoveryCodes)
    }

    /// The answer to a right first factor: a session, or the second factor's next step.
    func finishSignIn(_ account: Account, container: ContainerInfo, deviceName: String?, status: HTTPResponse.Status = .ok) async throws -> Response {
        let verificationRequired = container.accountSettings.emailVerification == .required
        let purpose: SecondFactors.Purpose? =
            account.hasSecondFactor ? .verify : container.accountSettings.secondFactor == .required ? .setup : nil
        if let purpose {
            let token = server.secondFactors.pendingToken(containerID: container.id, userRecordName: account.userRecordName, purpose: purpose)
            return try JSONResponse.make(
                encoding: SignInResponse(
                    ckWebAuthToken: nil, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified,
                    emailVerificationRequired: verificationRequired, secondFactorRequired: purpose == .verify ? true : nil,
                    secondFactorSetupRequired: purpose == .setup ? true : nil, secondFactorToken: token,
                    secondFactorMethods: Self.secondFactorMethods(of: account, purpose: purpose)
                ),
                status: status
            )
        }
        let token = try await server.authenticator.startSession(for: account, deviceName: deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(
                ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified,
                emailVerificationRequired: verificationRequired
            ),
            status: status
        )
    }

    /// The second factors a pending sign-in can use (`verify`) or set up (`setup`).
    static func secondFactorMethods(of account: Account, purpose: SecondFactors.Purpose) -> [String] {
        if purpose == .setup { return ["totp", "passkey"] }
        var methods: [String] = []
        if account.secondFactor.isTOTPEnabled { methods.append("totp") }
        if account.passkeyCount > 0 { methods.append("passkey") }
        if !account.secondFactor.recoveryCodeHashes.isEmpty { methods.append("recoveryCode") }
        return methods
    }

    /// `POST signin/second-factor` with `{secondFactorToken, code | recoveryCode, deviceName?}`: answers a session.
    @Sendable func signInWithSecondFactor(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(SecondFactorRequest.self, from: request, limit: RequestLimits.jsonBody)
        let account = try await pendingAccount(body, purpose: .verify, authentication)
        try await checkSecondFactor(body, of: account, request, context)
        let token = try await server.authenticator.startSession(for: account, deviceName: body.deviceName)
        return try JSONResponse.make(
            encoding: SignInResponse(ckWebAuthToken: token, userRecordName: account.userRecordName, emailVerified: account.isEmailVerified)
        )
    }

    /// `POST second-factor/totp/setup`, signed in with `{password}`, or with a `{secondFactorToken}` of a sign-in
    /// that must set one up: makes a secret for an authenticator app (`TOTPSetupResponse`), not yet on.
    @Sendable func setUpTOTP(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(SecondFactorRequest.self, from: request, limit: RequestLimits.jsonBody)
        let account: Account
        if body.secondFactorToken != nil {
            account = try await pendingAccount(body, purpose: .setup, authentication)
        } else {
            account = try await signedInAccount(authentication)
            try await confirmIdentity(password: body.password, of: account, authentication, request, context, to: "set up an authenticator app")
        }
        if account.secondFactor.isTOTPEnabled {
            throw APIError.badRequest("an authenticator app is set up already; turn it off first (second-factor/totp/disable)")
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<20).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try await server.store.changeAccount(
            containerID: account.containerID, userRecordName: account.userRecordName, change: .pendingTOTP(sealedSecret: try server.secondFactors.seal(secret))
        )
        let issuer = authentication.container.accountSettings.displayName(containerID: authentication.container.id)
        return try JSONResponse.make(encoding: TOTPSetupResponse(
            secret: Base32.encode(secret), otpauthURI: TOTP.uri(secret: secret, issuer: issuer, account: account.emailAddress ?? account.userRecordName)
        ))
    }

    /// `POST second-factor/totp/confirm` with `{code}` from the app just set up (signed in, or with the setup's
    /// `secondFactorToken`, which then signs in): turns it on and answers the recovery codes, shown this once.
    @Sendable func confirmTOTP(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let body = try await RequestBody.decode(SecondFactorRequest.self, from: request, limit: RequestLimits.jsonBody)
        let viaToken = body.secondFactorToken != nil
        let account = viaToken ? try await pendingAccount(body, purpose: .setup, authentication) : try await signedInAccount(authentication)
        guard !account.secondFactor.isTOTPEnabled, let sealed = account.secondFactor.sealedTOTPSecret, let secret = server.secondFactors.open(sealed) else {
            throw APIError.badRequest("set an authenticator app up first (second-factor/totp/setup)")
        }
        return try await throttled(account, request, context) {
            TOTP.matchingStep(body.code ?? "", secret: secret)
        } onMatch: { step in
            let codes = SecondFactors.makeRecoveryCodes()
            try await server.store.changeAccount(
                containerID: account.containerID, userRecordName: account.userRecordName,
                change: .enableTOTP(recoveryCodeHashes: codes.map { server.mailer.hash(SecondFactors.normalizedRecoveryCode($0)) }, step: step)
            )
            let token = viaToken ? try await server.authenticator.startSession(for: account, deviceName: body.deviceName) : nil
            return try JSONResponse.make(
                encoding: RecoveryCodesResponse(recoveryCodes: codes, ckWebAuthToken: token, userRecordName: viaToken ? account.userRecordName : nil)
            )
        }
    }

    /// `POST second-factor/totp/disable` (signed in) with `{password, code | recoveryCode}`.
    @Sendable func disableTOTP(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(SecondFactorRequest.self, from: request, limit: RequestLimits.jsonBody)
        try await confirmIdentity(password: body.password, of: account, authentication, request, context, to: "turn the authenticator app off")
        if account.secondFactor.isTOTPEnabled { try await checkSecondFactor(body, of: account, request, context) }
        try await server.store.changeAccount(containerID: account.containerID, userRecordName: account.userRecordName, change: .disableTOTP)
        return Self.empty()
    }

    /// `POST second-factor/recovery-codes` (signed in) with `{code}`: new recovery codes replace the old ones.
    @Sendable func renewRecoveryCodes(_ request: Request, context: StratusRequestContext) async throws -> Response {
        let authentication = try await authenticate(request, context)
        let account = try await signedInAccount(authentication)
        let body = try await RequestBody.decode(SecondFactorRequest.self, from: request, limit: RequestLimits.jsonBody)
        guard account.secondFactor.isTOTPEnabled, let sealed = account.secondFactor.sealedTOTPSecret, let secret = server.secondFactors.open(sealed) else {
            throw APIError.badRequest("recovery codes come with an authenticator app (second-factor/totp/setup)")
        }
        return try await throttled(account, request, context) {
            TOTP.matchingStep(body.code ?? "", secret: secret).flatMap { $0 > account.secondFactor.lastTOTPStep ? $0 : nil }
        } onMatch: { step in
            let codes = SecondFactors.makeRecoveryCodes()
            try await server.store.changeAccount(
                containerID: account.containerID, userRecordName: account.userRecordName,
                change: .enableTOTP(recoveryCodeHashes: codes.map { server.mailer.hash(SecondFactors.normalizedRecoveryCode($0)) }, step: step)
            )
            return try JSONResponse.make(encoding: RecoveryCodesResponse(recoveryCodes: codes))
        }
    }

    // MARK: - Helpers

    /// The account a `secondFactorToken` proves the first factor of, for `purpose`.
    func pendingAccount(_ body: SecondFactorRequest, purpose: SecondFactors.Purpose, _ authentication: Authentication) async throws -> Account {
        guard let token = body.secondFactorToken, let pending = server.secondFactors.pending(token, containerID: authentication.container.id),
            pending.purpose == purpose,
            let account = try await server.store.account(containerID: pending.containerID, userRecordName: pending.userRecordName)
        else {
            throw APIError(.authenticationFailed, "secondFactorToken is not valid or has expired; sign in again")
        }
        if account.isDisabled { throw Self.disabled }
        return account
    }

    /// Checks a code from the account's authenticator app (each works once) or one of its recovery codes (used up).
    func checkSecondFactor(_ body: SecondFactorRequest, of account: Account, _ request: Request, _ context: StratusRequestContext) async throws {
        if let recovery = body.recoveryCode, !recovery.isEmpty {
            let hash = server.mailer.hash(SecondFactors.normalizedRecoveryCode(recovery))
            try await throttled(account, request, context) {
                account.secondFactor.recoveryCodeHashes.contains(hash) ? 0 : nil
            } onMatch: { _ in
                do {
                    try await server.store.changeAccount(
                        containerID: account.containerID, userRecordName: account.userRecordName, change: .useRecoveryCode(hash: hash)
                    )
                } catch let error as StorageError where error.code == .notFound {
                    throw Self.wrongSecondFactor
                }
            }
            return
        }
        guard account.secondFactor.isTOTPEnabled, let sealed = account.secondFactor.sealedTOTPSecret, let secret = server.secondFactors.open(sealed) else { throw Self.wrongSecondFactor }
        try await throttled(account, request, context) {
            TOTP.matchingStep(body.code ?? "", secret: secret)
        } onMatch: { step in
            do {
                try await server.store.changeAccount(containerID: account.containerID, userRecordName: account.userRecordName, change: .useTOTPStep(step))
            } catch let error as StorageError where error.code == .conflict {
                throw APIError(.authenticationFailed, "this code was used already; wait for the next one")
            }
        }
    }

    static let wrongSecondFactor = APIError(.authenticationFailed, "the code is wrong")

    /// Runs `match` under the sign-in throttle of the account and client address: a `nil` counts as a failure and
    /// answers ``wrongSecondFactor``; a step goes to `onMatch`.
    @discardableResult
    private func throttled<T>(
        _ account: Account, _ request: Request, _ context: StratusRequestContext, match: () -> Int64?, onMatch: (Int64) async throws -> T
    ) async throws -> T {
        let key = account.containerID + "|second-factor|" + account.userRecordName
        let address = ClientAddress.of(request, context, trustForwardedFor: server.configuration.trustForwardedFor)
        if let retryAfter = try await server.signInThrottle.retryAfter(account: key, address: address) {
            throw APIError(.throttled, "too many wrong codes from this address; try again later", retryAfter: retryAfter)
        }
        guard let step = match() else {
            try await server.signInThrottle.recordFailure(account: key, address: address)
            throw Self.wrongSecondFactor
        }
        try await server.signInThrottle.recordSuccess(account: key, address: address)
        return try await onMatch(step)
    }
}
