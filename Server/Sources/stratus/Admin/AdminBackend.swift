import StratusModel

/// What the admin commands (`container`, `schema`, `users`, `keys`) do, whether through a running server's
/// admin API (``RemoteAdmin``) or, when no server runs on the data folder, on the folder itself (``LocalAdmin``).
protocol AdminBackend: Sendable {
    func createContainer(_ id: String) async throws -> (containerID: String, apiToken: String)
    func containers() async throws -> [(id: String, apiToken: String)]

    func schemaText(container: String, environment: Environment) async throws -> String
    /// Replaces the development schema; `force` removes types and fields even when records hold them.
    func importSchema(_ text: String, container: String, force: Bool) async throws -> [SchemaChangeLine]
    func schemaDiff(container: String) async throws -> [SchemaChangeLine]
    func deploy(container: String, dryRun: Bool) async throws -> (changes: [SchemaChangeLine], deployed: Bool)

    func roles(of user: String, container: String, environment: Environment) async throws -> [String]
    func setRoles(_ roles: [String], of user: String, container: String, environment: Environment) async throws -> [String]

    /// A page of a container's users, by email address.
    func users(container: String, search: String?, offset: Int, limit: Int) async throws -> [UserLine]
    /// Disables a user (signed out everywhere) or enables them.
    func setDisabled(_ disabled: Bool, user: String, container: String) async throws
    /// Signs a user out everywhere; returns how many sessions ended.
    func endSessions(user: String, container: String) async throws -> Int
    /// Turns the user's authenticator app off and removes their recovery codes and passkeys, signing them out.
    func removeSecondFactors(user: String, container: String) async throws
    /// Deletes a user and their data.
    func deleteUser(_ user: String, container: String) async throws
    /// Mails a user a password reset; whether the server has an SMTP server to send it now (else it waits queued).
    func sendReset(user: String, container: String) async throws -> Bool

    func createKey(publicKeyPEM: String, role: String?, container: String) async throws -> String
    func keys(container: String) async throws -> [(id: String, role: String?)]
    func revokeKey(_ keyID: String, container: String) async throws
}

/// One user as `stratus users list` prints them.
struct UserLine: Sendable {
    var userRecordName: String
    /// `nil` for an anonymous account.
    var emailAddress: String?
    var emailVerified: Bool
    var disabled: Bool
    var passkeys: Int

    var description: String {
        let keys = passkeys == 0 ? "" : passkeys == 1 ? "  1 passkey" : "  \(passkeys) passkeys"
        let address = emailAddress.map { $0 + (emailVerified ? "" : "  (unverified)") } ?? "(anonymous)"
        return "\(userRecordName)  \(address)\(keys)\(disabled ? "  DISABLED" : "")"
    }
}

/// One schema change as the commands print it.
struct SchemaChangeLine: Sendable {
    var description: String
    var isAdditive: Bool
}
