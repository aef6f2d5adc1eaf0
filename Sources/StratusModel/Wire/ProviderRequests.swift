/// The body of `auth/1/.../signin/apple`: what `ASAuthorizationAppleIDCredential` gives the app, and the raw
/// nonce whose SHA-256 (hexadecimal) the app put in its request.
public struct AppleSignInRequest: Sendable, Hashable, Codable {
    /// The identity token (a JWT), as text.
    public var identityToken: String
    public var nonce: String
    /// Apple gives the user's name only at the first authorization: the app sends it along then.
    public var givenName: String?
    public var familyName: String?
    public var deviceName: String?
    /// The one-time authorization code Apple gave beside the token (`authorizationCode`): the server exchanges it for
    /// a refresh token, kept sealed, which it revokes when the account is deleted, as Apple requires.
    public var authorizationCode: String?

    public init(
        identityToken: String, nonce: String, givenName: String? = nil, familyName: String? = nil, deviceName: String? = nil,
        authorizationCode: String? = nil
    ) {
        self.authorizationCode = authorizationCode
        self.identityToken = identityToken
        self.nonce = nonce
        self.givenName = givenName
        self.familyName = familyName
        self.deviceName = deviceName
    }
}

/// One way an account signs in, in `GET auth/1/.../account/sign-in-methods`.
public struct SignInMethodEntry: Sendable, Hashable, Codable {
    /// `password`, `passkey`, `apple`, or an OpenID Connect provider's name.
    public var method: String
    /// For a provider: its ID for the user.
    public var subject: String?
    /// For a provider: the address it gave.
    public var emailAddress: String?
    /// Milliseconds since 1970.
    public var created: Int64?

    public init(method: String, subject: String? = nil, emailAddress: String? = nil, created: Int64? = nil) {
        self.method = method
        self.subject = subject
        self.emailAddress = emailAddress
        self.created = created
    }
}

/// The answer to `GET auth/1/.../account/sign-in-methods`.
public struct SignInMethodsResponse: Sendable, Hashable, Codable {
    public var methods: [SignInMethodEntry]

    public init(methods: [SignInMethodEntry]) {
        self.methods = methods
    }
}

/// The body of `auth/1/.../account/sign-in-methods/remove`: the provider identity to unlink.
public struct RemoveSignInMethodRequest: Sendable, Hashable, Codable {
    /// `apple`, or an OpenID Connect provider's name.
    public var method: String
    public var subject: String

    public init(method: String, subject: String) {
        self.method = method
        self.subject = subject
    }
}

/// The body of `auth/1/.../signin/provider/{name}`: an ID token the app got from an OpenID Connect provider.
public struct ProviderSignInRequest: Sendable, Hashable, Codable {
    public var idToken: String
    /// The raw nonce whose SHA-256 (hexadecimal) the app sent the provider, when it sent one.
    public var nonce: String?
    public var givenName: String?
    public var familyName: String?
    public var deviceName: String?

    public init(idToken: String, nonce: String? = nil, givenName: String? = nil, familyName: String? = nil, deviceName: String? = nil) {
        self.idToken = idToken
        self.nonce = nonce
        self.givenName = givenName
        self.familyName = familyName
        self.deviceName = deviceName
    }
}

/// `account/claim/cloudkit`: a CloudKit web auth token of the signed-in user at the container the public database
/// was imported from (CloudKit JS's `ckWebAuthToken`, or one the CloudKit framework gave the app).
public struct CloudKitClaimRequest: Sendable, Hashable, Codable {
    public var cloudKitWebAuthToken: String

    public init(cloudKitWebAuthToken: String) {
        self.cloudKitWebAuthToken = cloudKitWebAuthToken
    }
}

/// What a claim gave the account.
public struct CloudKitClaimResponse: Sendable, Hashable, Codable {
    /// The user's record name at CloudKit, as the imported records named their creator.
    public var cloudKitUserRecordName: String
    /// Public records whose creator or last modifier became the account.
    public var records: Int
    /// Whether the imported `Users` record's fields were given to the account's own.
    public var usersRecordFields: Bool
    /// Milliseconds since 1970.
    public var claimedAt: Int64

    public init(cloudKitUserRecordName: String, records: Int, usersRecordFields: Bool, claimedAt: Int64) {
        self.cloudKitUserRecordName = cloudKitUserRecordName
        self.records = records
        self.usersRecordFields = usersRecordFields
        self.claimedAt = claimedAt
    }
}
