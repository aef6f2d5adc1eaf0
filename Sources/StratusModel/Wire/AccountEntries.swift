/// An account as `GET /admin/1/{container}/accounts` lists it and `POST /admin/1/{container}/accounts/import`
/// takes it: everything but its sessions and second factors, with its roles, and its password hash and passkeys
/// only when asked for (`?secrets=true`). (An authenticator app's secret is sealed with the server's own key, so
/// it does not move: its user sets it up again.)
public struct AccountEntry: Sendable, Hashable, Codable {
    public var userRecordName: String
    /// Absent for an account without an address (an anonymous one).
    public var emailAddress: String?
    public var phoneNumber: String?
    public var givenName: String?
    public var familyName: String?
    public var discoverable: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// The salted hash of the password; without it an imported account cannot sign in until it is given one.
    public var passwordHash: String?
    /// The user's custom roles (`Admin`...) by environment name.
    public var roles: [String: [String]]
    /// Whether the address was verified.
    public var emailVerified: Bool?
    /// The account's passkeys (public keys), so that an account without a password still signs in.
    public var passkeys: [PasskeyArchiveEntry]?
    /// Whether the account is anonymous (nothing but its sessions led to it).
    public var anonymous: Bool?
    /// The account's identities at sign-in providers (Apple, OpenID Connect), so that they still sign in.
    public var identities: [IdentityArchiveEntry]?

    public init(
        userRecordName: String, emailAddress: String?, phoneNumber: String?, givenName: String?, familyName: String?,
        discoverable: Bool, createdAt: Int64, passwordHash: String?, roles: [String: [String]] = [:], emailVerified: Bool? = nil,
        passkeys: [PasskeyArchiveEntry]? = nil, anonymous: Bool? = nil, identities: [IdentityArchiveEntry]? = nil
    ) {
        self.identities = identities
        self.anonymous = anonymous
        self.emailVerified = emailVerified
        self.passkeys = passkeys
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.phoneNumber = phoneNumber
        self.givenName = givenName
        self.familyName = familyName
        self.discoverable = discoverable
        self.createdAt = createdAt
        self.passwordHash = passwordHash
        self.roles = roles
    }
}

/// A passkey in an ``AccountEntry``: what checks its signatures (binary values base64url).
public struct PasskeyArchiveEntry: Sendable, Hashable, Codable {
    public var credentialID: String
    /// The COSE key.
    public var publicKey: String
    public var signCount: Int64
    public var name: String
    public var backedUp: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(credentialID: String, publicKey: String, signCount: Int64, name: String, backedUp: Bool, createdAt: Int64) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.signCount = signCount
        self.name = name
        self.backedUp = backedUp
        self.createdAt = createdAt
    }
}

/// A provider identity in an ``AccountEntry``.
public struct IdentityArchiveEntry: Sendable, Hashable, Codable {
    /// `apple`, or an OpenID Connect provider's name.
    public var provider: String
    public var subject: String
    public var emailAddress: String?
    public var emailVerified: Bool
    public var privateEmail: Bool
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(provider: String, subject: String, emailAddress: String?, emailVerified: Bool, privateEmail: Bool, createdAt: Int64) {
        self.provider = provider
        self.subject = subject
        self.emailAddress = emailAddress
        self.emailVerified = emailVerified
        self.privateEmail = privateEmail
        self.createdAt = createdAt
    }
}

/// A page of `GET /admin/1/{container}/accounts?offset=&limit=`.
public struct AccountEntries: Sendable, Hashable, Codable {
    public var accounts: [AccountEntry]
    public var moreComing: Bool

    public init(accounts: [AccountEntry], moreComing: Bool) {
        self.accounts = accounts
        self.moreComing = moreComing
    }
}
