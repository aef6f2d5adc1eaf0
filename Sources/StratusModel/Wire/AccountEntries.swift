/// An account as `GET /admin/1/{container}/accounts` lists it and `POST /admin/1/{container}/accounts/import`
/// takes it: everything but its sessions, with its roles, and its password hash only when asked for (`?secrets=true`).
public struct AccountEntry: Sendable, Hashable, Codable {
    public var userRecordName: String
    public var emailAddress: String
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

    public init(
        userRecordName: String, emailAddress: String, phoneNumber: String?, givenName: String?, familyName: String?,
        discoverable: Bool, createdAt: Int64, passwordHash: String?, roles: [String: [String]] = [:]
    ) {
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

/// A page of `GET /admin/1/{container}/accounts?offset=&limit=`.
public struct AccountEntries: Sendable, Hashable, Codable {
    public var accounts: [AccountEntry]
    public var moreComing: Bool

    public init(accounts: [AccountEntry], moreComing: Bool) {
        self.accounts = accounts
        self.moreComing = moreComing
    }
}
