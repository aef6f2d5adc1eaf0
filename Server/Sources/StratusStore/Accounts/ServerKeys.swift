import StratusModel

/// A server-to-server key: a public EC P-256 key registered for a container (`docs/protocol.md#server-to-server-keys`).
public struct ServerKey: Sendable, Hashable {
    /// 64 hexadecimal characters, sent as `X-Apple-CloudKit-Request-KeyID`.
    public var id: String
    public var containerID: String
    /// The public key, PEM-encoded.
    public var publicKeyPEM: String
    /// The role whose rights signed requests get; `nil` for every permission.
    public var role: String?
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(id: String, containerID: String, publicKeyPEM: String, role: String?, createdAt: Int64) {
        self.id = id
        self.containerID = containerID
        self.publicKeyPEM = publicKeyPEM
        self.role = role
        self.createdAt = createdAt
    }
}

/// Storage for server-to-server keys.
public protocol ServerKeyStore: Sendable {
    func createServerKey(_ key: ServerKey) async throws
    /// A container's keys that are not revoked.
    func serverKeys(containerID: String) async throws -> [ServerKey]
    /// The key with that ID, if it exists and is not revoked.
    func serverKey(id: String) async throws -> ServerKey?
    /// Revokes a key.
    /// - Throws: ``StorageError/Code/notFound`` when the container has no such key.
    func revokeServerKey(id: String, containerID: String) async throws
    /// Notes a request signature, kept until `expiresAt` (milliseconds since 1970); entries expired at `now`
    /// are forgotten.
    /// - Returns: `false` when the signature was seen already: the request is a replay.
    func markSignatureSeen(_ id: String, expiresAt: Int64, now: Int64) async throws -> Bool
}
