/// An account's identity at a sign-in provider (Sign in with Apple, an OpenID Connect provider): the provider's
/// stable ID for the user (`sub`) and what it last said about them.
public struct AccountIdentity: Sendable, Hashable {
    public var containerID: String
    /// `apple`, or the name a container gave an OpenID Connect provider.
    public var provider: String
    /// The provider's stable ID for the user; unique per provider in a container.
    public var subject: String
    public var userRecordName: String
    /// The address the provider gave, if any (with Apple, perhaps a private relay address).
    public var emailAddress: String?
    public var isEmailVerified: Bool
    /// Whether the address is Apple's private relay for this user.
    public var isPrivateEmail: Bool
    /// A refresh token the provider issued, sealed with the server's secrets key: with it, the server revokes the
    /// user's authorization when the account is deleted.
    public var sealedRefreshToken: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64
    public var lastUsedAt: Int64?

    public init(
        containerID: String, provider: String, subject: String, userRecordName: String, emailAddress: String?, isEmailVerified: Bool,
        isPrivateEmail: Bool = false, sealedRefreshToken: String? = nil, createdAt: Int64, lastUsedAt: Int64? = nil
    ) {
        self.containerID = containerID
        self.provider = provider
        self.subject = subject
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.isEmailVerified = isEmailVerified
        self.isPrivateEmail = isPrivateEmail
        self.sealedRefreshToken = sealedRefreshToken
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
