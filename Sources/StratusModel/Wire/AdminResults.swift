/// The admin API's requests and answers for containers, schema deployment, roles, users, server-to-server keys and
/// secrets (`/admin/1/...`), as the server writes them and the `stratus` command and admin clients read them.

/// `GET /admin/1/containers`: the containers the caller holds a role in.
public struct ContainersResponse: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var containerID: String
        public var apiToken: String
        public var created: Int64

        public init(containerID: String, apiToken: String, created: Int64) {
            self.containerID = containerID
            self.apiToken = apiToken
            self.created = created
        }
    }

    public var containers: [Entry]

    public init(containers: [Entry]) {
        self.containers = containers
    }
}

/// `POST /admin/1/{container}/token`'s body: the API token to give the container (64 hexadecimal digits, such as
/// its token on the server it moved from), or none for a fresh one. The answer is a ``CreateContainerResponse``.
public struct APITokenRequest: Sendable, Hashable, Codable {
    public var apiToken: String?

    public init(apiToken: String? = nil) {
        self.apiToken = apiToken
    }
}

/// One change between two schemas, as a schema import, a deployment or its preview lists it.
public struct SchemaChangeEntry: Sendable, Hashable, Codable {
    /// What changed (``SchemaChange/Kind``'s raw value).
    public var kind: String
    public var recordType: String?
    public var field: String?
    public var description: String
    /// Whether it only adds (a deployment applies it without `force`).
    public var additive: Bool

    public init(kind: String, recordType: String? = nil, field: String? = nil, description: String, additive: Bool) {
        self.kind = kind
        self.recordType = recordType
        self.field = field
        self.description = description
        self.additive = additive
    }

    public init(_ change: SchemaChange) {
        self.init(kind: change.kind.rawValue, recordType: change.recordType, field: change.field, description: change.description, additive: change.isAdditive)
    }
}

/// The changes of a schema import, a deployment or its preview: `deployable` (the preview) says whether a
/// deployment would apply them, `deployed` (a deployment) whether it did.
public struct SchemaChangesResponse: Sendable, Hashable, Codable {
    public var changes: [SchemaChangeEntry]
    public var deployable: Bool?
    public var deployed: Bool?

    public init(changes: [SchemaChangeEntry], deployable: Bool? = nil, deployed: Bool? = nil) {
        self.changes = changes
        self.deployable = deployable
        self.deployed = deployed
    }
}

/// `POST /admin/1/{container}/deploy`'s body.
public struct DeployRequest: Sendable, Hashable, Codable {
    /// Only list the changes.
    public var dryRun: Bool?

    public init(dryRun: Bool? = nil) {
        self.dryRun = dryRun
    }
}

/// A user's custom roles: what `PUT .../users/{user}/roles` takes.
public struct RolesRequest: Sendable, Hashable, Codable {
    public var roles: [String]

    public init(roles: [String]) {
        self.roles = roles
    }
}

/// A user's custom roles as the server holds them.
public struct RolesResponse: Sendable, Hashable, Codable {
    public var roles: [String]
    public var userRecordName: String

    public init(roles: [String], userRecordName: String) {
        self.roles = roles
        self.userRecordName = userRecordName
    }
}

/// One account as the admin API's user list and a user's overview show it.
public struct AdminUserEntry: Sendable, Hashable, Codable {
    public var userRecordName: String
    public var emailAddress: String?
    public var emailVerified: Bool
    public var givenName: String?
    public var familyName: String?
    public var anonymous: Bool
    /// The container's developer: the identity its server-to-server keys act as, no person.
    public var developer: Bool
    public var disabled: Bool
    public var hasPassword: Bool
    /// The sign-in providers linked to the account (`apple`, an OpenID provider's name).
    public var identities: [String]
    public var isDiscoverable: Bool
    public var passkeys: Int
    public var privateRecords: Int
    public var publicRecords: Int
    public var roles: [String]
    public var totpEnabled: Bool
    public var created: Int64

    public init(
        userRecordName: String, emailAddress: String? = nil, emailVerified: Bool = false, givenName: String? = nil, familyName: String? = nil,
        anonymous: Bool = false, developer: Bool = false, disabled: Bool = false, hasPassword: Bool = false, identities: [String] = [],
        isDiscoverable: Bool = false, passkeys: Int = 0, privateRecords: Int = 0, publicRecords: Int = 0, roles: [String] = [],
        totpEnabled: Bool = false, created: Int64 = 0
    ) {
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.emailVerified = emailVerified
        self.givenName = givenName
        self.familyName = familyName
        self.anonymous = anonymous
        self.developer = developer
        self.disabled = disabled
        self.hasPassword = hasPassword
        self.identities = identities
        self.isDiscoverable = isDiscoverable
        self.passkeys = passkeys
        self.privateRecords = privateRecords
        self.publicRecords = publicRecords
        self.roles = roles
        self.totpEnabled = totpEnabled
        self.created = created
    }
}

/// A page of a container's users; `moreComing` says whether another follows.
public struct AdminUsersResponse: Sendable, Hashable, Codable {
    public var users: [AdminUserEntry]
    public var moreComing: Bool

    public init(users: [AdminUserEntry], moreComing: Bool) {
        self.users = users
        self.moreComing = moreComing
    }
}

/// `POST .../users/{user}/reset`'s answer: whether the server has an SMTP server to send the mail through.
public struct PasswordResetResponse: Sendable, Hashable, Codable {
    public var smtpConfigured: Bool

    public init(smtpConfigured: Bool) {
        self.smtpConfigured = smtpConfigured
    }
}

/// `POST /admin/1/{container}/keys`'s body: a server-to-server key's public key (PEM) and the role it acts as.
public struct ServerKeyRequest: Sendable, Hashable, Codable {
    public var publicKey: String
    /// `nil`: every permission.
    public var role: String?

    public init(publicKey: String, role: String? = nil) {
        self.publicKey = publicKey
        self.role = role
    }
}

/// A server-to-server key, as created and listed (never its public key again).
public struct ServerKeyEntry: Sendable, Hashable, Codable {
    public var keyID: String
    public var role: String?
    public var created: Int64?

    public init(keyID: String, role: String? = nil, created: Int64? = nil) {
        self.keyID = keyID
        self.role = role
        self.created = created
    }
}

/// `GET /admin/1/{container}/keys`: the keys not revoked.
public struct ServerKeysResponse: Sendable, Hashable, Codable {
    public var keys: [ServerKeyEntry]

    public init(keys: [ServerKeyEntry]) {
        self.keys = keys
    }
}

/// `PUT /admin/1/{container}/secrets/{name}`'s body.
public struct SecretValueRequest: Sendable, Hashable, Codable {
    public var value: String

    public init(value: String) {
        self.value = value
    }
}

/// `GET /admin/1/{container}/secrets`: names and times only, and whether the server can seal.
public struct SecretsResponse: Sendable, Hashable, Codable {
    public struct Entry: Sendable, Hashable, Codable {
        public var name: String
        public var updated: Int64
        /// The secrets key that sealed it.
        public var keyID: String

        public init(name: String, updated: Int64, keyID: String) {
            self.name = name
            self.updated = updated
            self.keyID = keyID
        }
    }

    public struct KeyState: Sendable, Hashable, Codable {
        public var configured: Bool
        /// The key new secrets are sealed with.
        public var keyID: String?

        public init(configured: Bool, keyID: String? = nil) {
            self.configured = configured
            self.keyID = keyID
        }
    }

    public var secrets: [Entry]
    public var secretsKey: KeyState

    public init(secrets: [Entry], secretsKey: KeyState) {
        self.secrets = secrets
        self.secretsKey = secretsKey
    }
}

/// `POST /admin/1/secrets/reseal`: how many sealed values were sealed again, and how many were sealed with the
/// current key already.
public struct ResealResponse: Sendable, Hashable, Codable {
    public var resealed: Int
    public var alreadyCurrent: Int

    public init(resealed: Int, alreadyCurrent: Int) {
        self.resealed = resealed
        self.alreadyCurrent = alreadyCurrent
    }
}

/// An answer that carries nothing but the name it acted on.
public struct NamedResponse: Sendable, Hashable, Codable {
    public var name: String

    public init(name: String) {
        self.name = name
    }
}
