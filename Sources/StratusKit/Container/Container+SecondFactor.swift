import Foundation
internal import StratusModel

/// A second factor: codes from an authenticator app (TOTP), with recovery codes for a lost device.
extension Container {
    /// A secret to put in an authenticator app: as text to type, and as the `otpauth://` URI a QR code shows.
    public struct AuthenticatorSetup: Sendable, Hashable {
        public var secret: String
        public var otpauthURI: String
    }

    /// Makes a secret for an authenticator app for the signed-in user (not on until ``confirmAuthenticatorApp(code:secondFactorToken:deviceName:)``).
    public func setUpAuthenticatorApp(password: String) async throws -> AuthenticatorSetup {
        try await setUp(SecondFactorRequest(password: password))
    }

    /// Makes a secret for an authenticator app during a sign-in that must set one up (the `secondFactorToken` of
    /// its `SECOND_FACTOR_SETUP_REQUIRED` error).
    public func setUpAuthenticatorApp(secondFactorToken: String) async throws -> AuthenticatorSetup {
        try await setUp(SecondFactorRequest(secondFactorToken: secondFactorToken))
    }

    private func setUp(_ body: SecondFactorRequest) async throws -> AuthenticatorSetup {
        let answer = try await send("POST", authURL("second-factor/totp/setup", asUser: body.secondFactorToken == nil), body: body, answer: TOTPSetupResponse.self)
        return AuthenticatorSetup(secret: answer.secret, otpauthURI: answer.otpauthURI)
    }

    /// Turns the app just set up on with a code from it, and answers the recovery codes to keep (shown this
    /// once). With the `secondFactorToken` of a sign-in that had to set one up, it also signs in.
    public func confirmAuthenticatorApp(code: String, secondFactorToken: String? = nil, deviceName: String? = nil) async throws -> [String] {
        let body = SecondFactorRequest(secondFactorToken: secondFactorToken, code: code, deviceName: deviceName)
        let answer = try await send("POST", authURL("second-factor/totp/confirm", asUser: secondFactorToken == nil), body: body, answer: RecoveryCodesResponse.self)
        if let token = answer.ckWebAuthToken {
            session.withLock { $0 = SessionState(webAuthToken: token, userRecordName: answer.userRecordName) }
        }
        return answer.recoveryCodes
    }

    /// Finishes a sign-in that asked for a second factor: a code from the app, or a recovery code (used up).
    @discardableResult
    public func signIn(secondFactorToken: String, code: String? = nil, recoveryCode: String? = nil, deviceName: String? = nil) async throws -> Record.ID {
        let body = SecondFactorRequest(secondFactorToken: secondFactorToken, code: code, recoveryCode: recoveryCode, deviceName: deviceName)
        return try adopt(try await send("POST", authURL("signin/second-factor", asUser: false), body: body, answer: SignInResponse.self))
    }

    /// Turns the authenticator app off, with the password and a code (or a recovery code).
    public func turnOffAuthenticatorApp(password: String, code: String? = nil, recoveryCode: String? = nil) async throws {
        try await send("POST", authURL("second-factor/totp/disable"), body: SecondFactorRequest(code: code, recoveryCode: recoveryCode, password: password))
    }

    /// New recovery codes, replacing the old ones, for a code from the app.
    public func renewRecoveryCodes(code: String) async throws -> [String] {
        try await send("POST", authURL("second-factor/recovery-codes"), body: SecondFactorRequest(code: code), answer: RecoveryCodesResponse.self).recoveryCodes
    }
}
