/// A passkey (a WebAuthn public-key credential) registered to an account: what the server needs to check the
/// signatures it makes. The private key never leaves the user's authenticator.
public struct Passkey: Sendable, Hashable {
    public var containerID: String
    /// The credential ID the authenticator chose, base64url without padding; unique in a container.
    public var credentialID: String
    public var userRecordName: String
    /// The credential's public key as the authenticator gave it (a COSE key), base64url without padding.
    public var publicKey: String
    /// The authenticator's signature counter at the last use; 0 for authenticators that keep none.
    public var signCount: Int64
    /// What the user called it ("iPhone", "YubiKey"), for their list.
    public var name: String
    /// Whether the authenticator said the credential is backed up (synced to the user's other devices).
    public var isBackedUp: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    public init(
        containerID: String, credentialID: String, userRecordName: String, publicKey: String, signCount: Int64, name: String,
        isBackedUp: Bool = false, createdAt: Int64, lastUsedAt: Int64? = nil
    ) {
        self.containerID = containerID
        self.credentialID = credentialID
        self.userRecordName = userRecordName
        self.publicKey = publicKey
        self.signCount = signCount
        self.name = name
        self.isBackedUp = isBackedUp
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}

/// A single-use WebAuthn challenge: the random bytes an authenticator signs, kept until one answer redeems them
/// or they expire, with what the ceremony is for.
public struct PasskeyChallenge: Sendable, Hashable {
    /// The ceremony a challenge belongs to.
    public enum Purpose: String, Sendable, Hashable, CaseIterable {
        /// Adds a passkey to an account.
        case register
        /// Makes an account whose only way in is a passkey.
        case signUp = "sign-up"
        /// Signs in with a passkey alone.
        case signIn = "sign-in"
        /// Proves a second factor after a password or a mailed code.
        case secondFactor = "second-factor"
    }

    /// The challenge, base64url without padding; the row's key.
    public var challenge: String
    public var containerID: String
    public var purpose: Purpose
    /// The account the ceremony is for: known for every purpose but ``Purpose/signIn`` (the passkey names it).
    public var userRecordName: String?
    /// What the ceremony carries to its end, as JSON: for ``Purpose/signUp`` the address and names of the account.
    public var details: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var expiresAt: Int64

    public init(
        challenge: String, containerID: String, purpose: Purpose, userRecordName: String?, details: String? = nil, createdAt: Int64,
        expiresAt: Int64
    ) {
        self.challenge = challenge
        self.containerID = containerID
        self.purpose = purpose
        self.userRecordName = userRecordName
        self.details = details
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
