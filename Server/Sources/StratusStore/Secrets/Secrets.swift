/// A container's secret: a sign-in provider's client secret, or the key Stratus signs Apple's client secrets with.
/// The server seals the value with its secrets key before it reaches the store; the store never sees it in clear.
public struct ContainerSecret: Sendable, Hashable {
    public var containerID: String
    /// What the secret is for, such as `apple.privateKey` or `openid.{provider}.clientSecret`.
    public var name: String
    /// The value as the server sealed it.
    public var sealedValue: String
    /// Milliseconds since 1970.
    public var updatedAt: Int64

    public init(containerID: String, name: String, sealedValue: String, updatedAt: Int64) {
        self.containerID = containerID
        self.name = name
        self.sealedValue = sealedValue
        self.updatedAt = updatedAt
    }
}

/// A provider's refresh token left to revoke after its account was deleted (Sign in with Apple requires it), retried
/// until the provider accepts it.
public struct PendingRevocation: Sendable, Hashable {
    public var containerID: String
    public var provider: String
    public var subject: String
    /// The identity's sealed refresh token (``AccountIdentity/sealedRefreshToken``).
    public var sealedToken: String
    public var attempts: Int
    /// Milliseconds since 1970.
    public var nextAttemptAt: Int64
    /// What the provider (or the network) answered last time, if it failed.
    public var lastError: String?
    public var createdAt: Int64

    public init(
        containerID: String, provider: String, subject: String, sealedToken: String, attempts: Int = 0, nextAttemptAt: Int64,
        lastError: String? = nil, createdAt: Int64
    ) {
        self.containerID = containerID
        self.provider = provider
        self.subject = subject
        self.sealedToken = sealedToken
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.createdAt = createdAt
    }
}

/// A value the store keeps sealed, wherever it is kept: what resealing under a new secrets key goes through.
public struct SealedValue: Sendable, Hashable {
    /// Where the value is kept.
    public enum Place: Sendable, Hashable {
        case containerSecret(containerID: String, name: String)
        case refreshToken(containerID: String, provider: String, subject: String)
        case pendingRevocation(containerID: String, provider: String, subject: String)
    }

    public var place: Place
    public var value: String

    public init(place: Place, value: String) {
        self.place = place
        self.value = value
    }
}

/// Storage for containers' secrets and for the provider tokens revoked after an account's deletion.
public protocol SecretStore: Sendable {
    /// Stores a secret, replacing one of the same name.
    func setContainerSecret(_ secret: ContainerSecret) async throws
    func containerSecret(containerID: String, name: String) async throws -> ContainerSecret?
    /// A container's secrets, by name.
    func containerSecrets(containerID: String) async throws -> [ContainerSecret]
    /// - Throws: ``StorageError/Code/notFound`` when the container has no such secret.
    func removeContainerSecret(containerID: String, name: String) async throws

    /// Revocations due at `now` (milliseconds since 1970), oldest first.
    func dueRevocations(now: Int64, limit: Int) async throws -> [PendingRevocation]
    /// A container's revocations still waiting, oldest first.
    func pendingRevocations(containerID: String) async throws -> [PendingRevocation]
    /// Forgets a revocation the provider accepted (or one that cannot ever succeed).
    func finishRevocation(containerID: String, provider: String, subject: String) async throws
    /// Notes a failed attempt and when to try again.
    func postponeRevocation(containerID: String, provider: String, subject: String, until nextAttemptAt: Int64, error: String) async throws

    /// Every value the store keeps sealed.
    func sealedValues() async throws -> [SealedValue]
    /// Replaces a sealed value with `newValue` if it is still `old.value`.
    /// - Returns: whether it was replaced (`false` when it changed or went meanwhile).
    func replaceSealedValue(_ old: SealedValue, with newValue: String) async throws -> Bool
}
