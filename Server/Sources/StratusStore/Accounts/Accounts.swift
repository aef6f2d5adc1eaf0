import StratusModel

/// A container: the unit an app owns, with its API token.
public struct ContainerInfo: Sendable, Hashable {
    /// `iCloud.com.example.App`.
    public var id: String
    /// 64 hexadecimal characters, sent by clients as `ckAPIToken`.
    public var apiToken: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// How the container's accounts verify, recover and delete themselves.
    public var accountSettings: AccountSettings

    public init(id: String, apiToken: String, createdAt: Int64, accountSettings: AccountSettings = AccountSettings()) {
        self.id = id
        self.apiToken = apiToken
        self.createdAt = createdAt
        self.accountSettings = accountSettings
    }
}

/// A user's account in one container, shared by both environments.
public struct Account: Sendable, Hashable {
    public var containerID: String
    /// `_` + 32 lowercase hex digits; also the name of the user's `Users` record.
    public var userRecordName: String
    /// Lowercased; `nil` for an account that has none (an anonymous one, or one that signs in with a provider that
    /// gave none); empty for a container's developer.
    public var emailAddress: String?
    /// A salted slow hash in a self-describing form (see `PasswordHasher` in the server).
    public var passwordHash: String
    public var givenName: String?
    public var familyName: String?
    /// Digits, with a leading `+` when given in international form.
    public var phoneNumber: String?
    /// Whether other users may find this one by email address, phone number or record name (`users/discover`).
    public var isDiscoverable: Bool
    /// Whether the owner of the email address confirmed it (a link or code sent to it came back).
    public var isEmailVerified: Bool
    /// Whether an operator disabled the account: it signs in nowhere until enabled again.
    public var isDisabled: Bool
    /// Whether the account's deletion has started: it signs in nowhere, and its data is going.
    public var isBeingDeleted: Bool
    /// The account's second factor.
    public var secondFactor: SecondFactorState
    /// How many passkeys the account has registered: each signs in alone, and stands as a second factor after a
    /// password or a mailed code.
    public var passkeyCount: Int
    /// Whether the account was made for a device without asking anything (`signup/anonymous`) and nothing has been
    /// attached to it since: its sessions are its only way in, and it is removed after the container's period.
    public var isAnonymous: Bool
    public var createdAt: Int64

    public init(
        containerID: String, userRecordName: String, emailAddress: String?, passwordHash: String,
        givenName: String?, familyName: String?, phoneNumber: String? = nil, isDiscoverable: Bool = false,
        isEmailVerified: Bool = false, isDisabled: Bool = false, isBeingDeleted: Bool = false,
        secondFactor: SecondFactorState = SecondFactorState(), passkeyCount: Int = 0, isAnonymous: Bool = false, createdAt: Int64
    ) {
        self.isAnonymous = isAnonymous
        self.passkeyCount = passkeyCount
        self.secondFactor = secondFactor
        self.isBeingDeleted = isBeingDeleted
        self.isEmailVerified = isEmailVerified
        self.isDisabled = isDisabled
        self.phoneNumber = phoneNumber
        self.isDiscoverable = isDiscoverable
        self.containerID = containerID
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.passwordHash = passwordHash
        self.givenName = givenName
        self.familyName = familyName
        self.createdAt = createdAt
    }
}

extension Account {
    /// Whether a password or a mailed code must be followed by a second factor: an authenticator app or a passkey.
    public var hasSecondFactor: Bool { secondFactor.isTOTPEnabled || passkeyCount > 0 }
    /// Whether the account has a password (an account made with a passkey has none until a reset sets one).
    public var hasPassword: Bool { !passwordHash.isEmpty }
}

/// A signed-in session; the web auth token names it.
public struct Session: Sendable, Hashable {
    public var id: String
    public var containerID: String
    public var userRecordName: String
    public var createdAt: Int64
    public var expiresAt: Int64
    /// What the client called its device at sign-in ("Alice's iPhone"), for the user's list of sessions.
    public var deviceName: String?
    /// When a request last used the session, in milliseconds since 1970 (kept to the minute or so).
    public var lastUsedAt: Int64

    public init(
        id: String, containerID: String, userRecordName: String, createdAt: Int64, expiresAt: Int64, deviceName: String? = nil,
        lastUsedAt: Int64? = nil
    ) {
        self.id = id
        self.containerID = containerID
        self.userRecordName = userRecordName
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.deviceName = deviceName
        self.lastUsedAt = lastUsedAt ?? createdAt
    }
}

/// Failed sign-ins counted under one key (an account and a client address, or an address alone).
public struct SignInFailures: Sendable, Hashable {
    /// Failures in a row, none further apart than the window they were counted in.
    public var count: Int
    /// When the last one was, in milliseconds since 1970.
    public var lastAt: Int64

    public init(count: Int, lastAt: Int64) {
        self.count = count
        self.lastAt = lastAt
    }
}

extension Account {
    /// Whether this is a container's developer: the identity its server-to-server keys act as, as on Apple's
    /// server, where a key acts as the developer who made it. It has no email address and no password, so
    /// nobody signs in as it.
    public var isDeveloper: Bool { emailAddress == "" }

    /// A container's developer account, named `userRecordName`.
    public static func developer(containerID: String, userRecordName: String, createdAt: Int64) -> Account {
        Account(
            containerID: containerID, userRecordName: userRecordName, emailAddress: "", passwordHash: "",
            givenName: "Developer", familyName: nil, createdAt: createdAt
        )
    }
}
