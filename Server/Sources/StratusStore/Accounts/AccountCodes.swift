/// A single-use proof mailed to an account's owner: a short code to type and a link to follow, stored only as
/// keyed hashes, valid until ``expiresAt`` and for a few wrong guesses.
public struct AccountCode: Sendable, Hashable {
    /// What redeeming the code does.
    public enum Purpose: String, Sendable, Hashable, Codable, CaseIterable {
        /// Confirms the account's address.
        case verifyEmail = "verify-email"
        /// Sets a new password without the old one.
        case resetPassword = "reset-password"
        /// Confirms a new address (``AccountCode/newEmailAddress``), sent to that address.
        case changeEmail = "change-email"
        /// Signs in without a password.
        case signIn = "sign-in"
        /// Confirms the deletion of the account.
        case deleteAccount = "delete-account"
    }

    /// Random, for the code's row; never mailed.
    public var id: String
    public var containerID: String
    public var userRecordName: String
    public var purpose: Purpose
    /// The keyed hash of the code the mail shows.
    public var codeHash: String
    /// The keyed hash of the token in the mail's link.
    public var linkHash: String
    /// For ``Purpose/changeEmail``: the address that becomes the account's.
    public var newEmailAddress: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var expiresAt: Int64
    /// Wrong codes typed against it so far.
    public var failedAttempts: Int

    public init(
        id: String, containerID: String, userRecordName: String, purpose: Purpose, codeHash: String, linkHash: String,
        newEmailAddress: String? = nil, createdAt: Int64, expiresAt: Int64, failedAttempts: Int = 0
    ) {
        self.id = id
        self.containerID = containerID
        self.userRecordName = userRecordName
        self.purpose = purpose
        self.codeHash = codeHash
        self.linkHash = linkHash
        self.newEmailAddress = newEmailAddress
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.failedAttempts = failedAttempts
    }
}

/// A change to an account that the store makes in one transaction, ending sessions where it must.
public enum AccountChange: Sendable, Hashable {
    /// Marks the address verified.
    case verifyEmail
    /// Marks the address as not verified (mail to it no longer arrives).
    case unverifyEmail
    /// Replaces the password hash; ends every session but `keepingSession` (the caller's, when it changed its
    /// own password knowing the old one; `nil` after a reset).
    case password(hash: String, keepingSession: String?)
    /// Replaces the address (verified, since a code sent to it came back).
    /// - Throws: ``StorageError/Code/alreadyExists`` when another account has it.
    case emailAddress(String)
    /// Gives an anonymous account an address (unverified) and a password: it is an account like any other since.
    /// - Throws: ``StorageError/Code/alreadyExists`` when another account has the address.
    case attachPassword(emailAddress: String, hash: String)
    /// Disables the account (ending every session) or enables it.
    case disabled(Bool)
    /// Keeps a new TOTP secret (sealed), not yet on: it is turned on once a code from it is confirmed.
    case pendingTOTP(sealedSecret: String)
    /// Turns TOTP on with fresh recovery codes (their keyed hashes), having used the code of time step `step`.
    case enableTOTP(recoveryCodeHashes: [String], step: Int64)
    /// Turns TOTP off and forgets the secret and the recovery codes.
    case disableTOTP
    /// Uses the TOTP code of time step `step`: refused (``StorageError/Code/conflict``) when that step or a later
    /// one was used already, so a code works once.
    case useTOTPStep(Int64)
    /// Uses up a recovery code: refused (``StorageError/Code/notFound``) when the account has no such code left.
    case useRecoveryCode(hash: String)
    /// Removes every second factor (the authenticator app, its recovery codes and every passkey) and ends every
    /// session: an operator's help for a user who lost them.
    case removeSecondFactors
    /// Changes nothing: for codes whose redemption only proves something (a sign-in, a deletion's confirmation).
    case none
}
