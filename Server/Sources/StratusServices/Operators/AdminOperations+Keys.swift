import Crypto
import StratusModel
import StratusStore

extension AdminOperations {
    /// Registers a public EC P-256 key for server-to-server requests.
    /// - Parameter role: the custom role whose rights signed requests get; `nil` for every permission.
    /// - Throws: `BAD_REQUEST` for a key that is not a PEM EC P-256 public key or a built-in role;
    ///   `NOT_FOUND` for an unknown container.
    public static func createServerKey(publicKeyPEM: String, role: String?, containerID: String, store: any Store) async throws -> ServerKey {
        guard try await store.container(id: containerID) != nil else {
            throw ServiceError(.notFound, "container \(containerID) does not exist")
        }
        guard (try? P256.Signing.PublicKey(pemRepresentation: publicKeyPEM)) != nil else {
            throw ServiceError.invalidArgument("publicKey must be a PEM-encoded EC P-256 public key (openssl ec -in key.pem -pubout)")
        }
        if let role, Role.builtIn.contains(role) || !RecordNames.isValidIdentifier(role) {
            throw ServiceError.invalidArgument("role must be the name of a custom role, not '\(role)'")
        }
        let key = ServerKey(id: Tokens.randomHex(bytes: 32), containerID: containerID, publicKeyPEM: publicKeyPEM, role: role, createdAt: ServerClock.now())
        try await store.createServerKey(key)
        return key
    }

    /// Revokes a server-to-server key.
    /// - Throws: `NOT_FOUND` when the container has no such key.
    public static func revokeServerKey(_ keyID: String, containerID: String, store: any Store) async throws {
        try await store.revokeServerKey(id: keyID, containerID: containerID)
    }
}
