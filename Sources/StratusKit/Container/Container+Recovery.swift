import Foundation
internal import StratusModel

/// Verifying an address, recovering an account, changing its password or address, signing in with a mailed
/// code, listing and ending sessions, and deleting the account.
///
/// The steps that mail a code succeed alike whether or not the address has an account, so they tell nobody
/// who has one. A code is six digits, works once, for 30 minutes; the mail also holds a link to the server's
/// page for the same step.
extension Container {
    /// The signed-in user's account.
    public struct Account: Sendable, Hashable {
        public var userRecordID: Record.ID
        /// `nil` for an anonymous account.
        public var emailAddress: String?
        public var isEmailVerified: Bool
        public var givenName: String?
        public var familyName: String?
        public var created: Date
        /// Whether sign-ins ask for a code from an authenticator app.
        public var isAuthenticatorAppOn: Bool
        /// How many recovery codes are left.
        public var recoveryCodesLeft: Int
        /// How many passkeys the account has.
        public var passkeyCount: Int
        /// Whether the account has a password (one made with a passkey has none until a reset sets one).
        public var hasPassword: Bool
        /// Whether the account is anonymous: nothing but this device's session leads to it yet.
        public var isAnonymous: Bool
    }

    /// One of the signed-in user's sessions (a device signed in).
    public struct SignedInSession: Sendable, Hashable, Identifiable {
        public var id: String
        public var deviceName: String?
        public var created: Date
        public var lastUsed: Date
        public var expires: Date
        /// Whether it is this client's own.
        public var isCurrent: Bool
    }

    /// The signed-in user's account.
    public func account() async throws -> Account {
        let answer = try await get(authURL("account"), answer: AccountResponse.self)
        return Account(
            userRecordID: Record.ID(recordName: answer.userRecordName), emailAddress: answer.emailAddress, isEmailVerified: answer.emailVerified,
            givenName: answer.givenName, familyName: answer.familyName, created: Date(milliseconds: answer.created),
            isAuthenticatorAppOn: answer.totpEnabled ?? false, recoveryCodesLeft: answer.recoveryCodesLeft ?? 0,
            passkeyCount: answer.passkeys ?? 0, hasPassword: answer.hasPassword ?? true, isAnonymous: answer.anonymous ?? false
        )
    }

    // MARK: - Mailed codes

    /// Mails a verification code to the signed-in user's address, or to `email` (when the container requires a
    /// verified address before anyone signs in).
    public func sendEmailVerification(to email: String? = nil) async throws {
        try await send("POST", authURL("email/verify/send"), body: MailCodeRequest(emailAddress: email ?? ""))
    }

    /// Verifies the address with the mailed code: for the signed-in user, or the account of `email`.
    public func verifyEmail(code: String, email: String? = nil) async throws {
        try await send("POST", authURL("email/verify"), body: RedeemCodeRequest(emailAddress: email, code: code))
    }

    /// Mails a password reset code to `email`.
    public func sendPasswordReset(to email: String) async throws {
        try await send("POST", authURL("password/reset/send", asUser: false), body: MailCodeRequest(emailAddress: email))
    }

    /// Sets a new password with the mailed reset code. Every session of the account ends, this one's too: sign
    /// in with the new password next.
    public func resetPassword(email: String, code: String, newPassword: String) async throws {
        try await send(
            "POST", authURL("password/reset", asUser: false), body: RedeemCodeRequest(emailAddress: email, code: code, newPassword: newPassword)
        )
        session.withLock { $0 = SessionState() }
    }

    /// Changes the signed-in user's password; their other sessions end, this one stays.
    /// - Throws: ``StratusError`` `notAuthenticated` when `currentPassword` is wrong.
    public func changePassword(from currentPassword: String, to newPassword: String) async throws {
        try await send("POST", authURL("password/change"), body: ChangePasswordRequest(password: currentPassword, newPassword: newPassword))
    }

    /// Mails a code to `newEmail`; ``confirmEmailChange(code:)`` then makes it the signed-in user's address.
    /// - Parameter password: the account's; an account without one (made with a passkey) calls this within 5
    ///   minutes of signing in.
    public func changeEmail(to newEmail: String, password: String?) async throws {
        try await send("POST", authURL("email/change/send"), body: ChangeEmailRequest(newEmailAddress: newEmail, password: password))
    }

    /// Makes the address the code was mailed to the signed-in user's.
    public func confirmEmailChange(code: String) async throws {
        try await send("POST", authURL("email/change"), body: RedeemCodeRequest(code: code))
    }

    /// Mails a sign-in code to `email`: signing in without a password.
    public func sendSignInCode(to email: String) async throws {
        try await send("POST", authURL("signin/code/send", asUser: false), body: MailCodeRequest(emailAddress: email))
    }

    /// Signs in with a mailed code (which also verifies the address).
    @discardableResult
    public func signIn(email: String, code: String, deviceName: String? = nil) async throws -> Record.ID {
        let url = authURL("signin/code", asUser: false)
        let body = RedeemCodeRequest(emailAddress: email, code: code, deviceName: deviceName)
        return try adopt(try await send("POST", url, body: body, answer: SignInResponse.self))
    }

    // MARK: - Sessions

    /// The signed-in user's sessions, newest first.
    public func sessions() async throws -> [SignedInSession] {
        try await get(authURL("sessions"), answer: SessionsResponse.self).sessions.map { entry in
            SignedInSession(
                id: entry.sessionID, deviceName: entry.deviceName, created: Date(milliseconds: entry.created),
                lastUsed: Date(milliseconds: entry.lastUsed), expires: Date(milliseconds: entry.expires), isCurrent: entry.current
            )
        }
    }

    /// Ends one of the signed-in user's sessions: that device is signed out at once.
    public func endSession(_ id: String) async throws {
        try await send("POST", authURL("sessions/end"), body: EndSessionsRequest(sessionID: id))
    }

    /// Ends every session of the signed-in user but this one.
    public func endOtherSessions() async throws {
        try await send("POST", authURL("sessions/end"), body: EndSessionsRequest(allOthers: true))
    }

    // MARK: - Export and deletion

    /// The signed-in user's data in this environment, as a container archive (a tar, docs/import-export.md): their
    /// account, private database with its files, the public records they created, and their subscriptions.
    public func exportAccountData() async throws -> Data {
        try await getBody(authURL("account/export"))
    }

    /// Mails the signed-in user a code that confirms the deletion of their account.
    public func sendAccountDeletionCode() async throws {
        try await send("POST", authURL("account/delete/send"), body: MailCodeRequest(emailAddress: ""))
    }

    /// Deletes the signed-in user's account at once and for good: sessions, private database, shares,
    /// subscriptions, and public records as the container says. Confirmed by the password, a code from
    /// ``sendAccountDeletionCode()``, or, with neither, a sign-in less than 5 minutes old.
    public func deleteAccount(password: String? = nil, code: String? = nil) async throws {
        try await send("POST", authURL("account/delete"), body: DeleteAccountRequest(password: password, code: code))
        session.withLock { $0 = SessionState() }
    }
}
