import ArgumentParser
import Foundation
import StratusAdmin
import StratusModel
import StratusServer
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The admin commands through a running server's admin API (`/admin/1/...`), as Apple's `cktool` talks to
/// CloudKit: the server applies each change itself, so its caches and every session see it at once.
struct RemoteAdmin: AdminBackend {
    /// The server's base URL, such as `http://127.0.0.1:8080`.
    let baseURL: String
    let adminKey: String

    func createContainer(_ id: String) async throws -> (containerID: String, apiToken: String) {
        let created: CreateContainerResponse = try await exchange("POST", "/admin/1/containers", sending: CreateContainerRequest(containerID: id))
        return (created.containerID, created.apiToken)
    }

    func containers() async throws -> [(id: String, apiToken: String)] {
        let listed: ContainersResponse = try await exchange("GET", "/admin/1/containers")
        return listed.containers.map { ($0.containerID, $0.apiToken) }
    }

    func schemaText(container: String, environment: Environment) async throws -> String {
        String(decoding: try await request("GET", "/admin/1/\(escaped(container))/\(environment.rawValue)/schema", body: nil), as: UTF8.self)
    }

    func importSchema(_ text: String, container: String, force: Bool) async throws -> [SchemaChangeLine] {
        let path = "/admin/1/\(escaped(container))/development/schema" + (force ? "?force=true" : "")
        let imported: SchemaChangesResponse = try Self.decode(try await request("PUT", path, body: Data(text.utf8)), "PUT", path)
        return Self.lines(imported.changes)
    }

    func schemaDiff(container: String) async throws -> [SchemaChangeLine] {
        let preview: SchemaChangesResponse = try await exchange("GET", "/admin/1/\(escaped(container))/deploy")
        return Self.lines(preview.changes)
    }

    func deploy(container: String, dryRun: Bool) async throws -> (changes: [SchemaChangeLine], deployed: Bool) {
        let deployment: SchemaChangesResponse = try await exchange("POST", "/admin/1/\(escaped(container))/deploy", sending: DeployRequest(dryRun: dryRun))
        return (Self.lines(deployment.changes), deployment.deployed ?? false)
    }

    func roles(of user: String, container: String, environment: Environment) async throws -> [String] {
        let held: RolesResponse = try await exchange("GET", rolesPath(user, container, environment))
        return held.roles
    }

    func setRoles(_ roles: [String], of user: String, container: String, environment: Environment) async throws -> [String] {
        let held: RolesResponse = try await exchange("PUT", rolesPath(user, container, environment), sending: RolesRequest(roles: roles))
        return held.roles
    }

    func users(container: String, search: String?, offset: Int, limit: Int) async throws -> [UserLine] {
        var query = "offset=\(offset)&limit=\(limit)"
        if let search { query += "&search=" + (search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        let page: AdminUsersResponse = try await exchange("GET", "/admin/1/\(escaped(container))/development/users?\(query)")
        // The container's developer (the identity of its server-to-server keys) has no address and is no user.
        return page.users.filter { !$0.developer && $0.emailAddress != "" }.map { user in
            UserLine(
                userRecordName: user.userRecordName, emailAddress: user.emailAddress, emailVerified: user.emailVerified,
                disabled: user.disabled, passkeys: user.passkeys
            )
        }
    }

    func setDisabled(_ disabled: Bool, user: String, container: String) async throws {
        _ = try await request("POST", userPath(user, container) + (disabled ? "/disable" : "/enable"), body: Self.emptyObject)
    }

    func removeSecondFactors(user: String, container: String) async throws {
        _ = try await request("POST", userPath(user, container) + "/second-factors/remove", body: Self.emptyObject)
    }

    func endSessions(user: String, container: String) async throws -> Int {
        let ended: EndSessionsResponse = try await exchange("POST", userPath(user, container) + "/sessions/end", sending: [String: String]())
        return ended.ended.count
    }

    func deleteUser(_ user: String, container: String) async throws {
        _ = try await request("DELETE", userPath(user, container), body: nil)
    }

    func sendReset(user: String, container: String) async throws -> Bool {
        let reset: PasswordResetResponse = try await exchange("POST", userPath(user, container) + "/reset", sending: [String: String]())
        return reset.smtpConfigured
    }

    private func userPath(_ user: String, _ container: String) -> String {
        "/admin/1/\(escaped(container))/development/users/\(escaped(user))"
    }

    func createKey(publicKeyPEM: String, role: String?, container: String) async throws -> String {
        let created: ServerKeyEntry = try await exchange("POST", "/admin/1/\(escaped(container))/keys", sending: ServerKeyRequest(publicKey: publicKeyPEM, role: role))
        return created.keyID
    }

    func keys(container: String) async throws -> [(id: String, role: String?)] {
        let listed: ServerKeysResponse = try await exchange("GET", "/admin/1/\(escaped(container))/keys")
        return listed.keys.map { ($0.keyID, $0.role) }
    }

    func revokeKey(_ keyID: String, container: String) async throws {
        _ = try await request("DELETE", "/admin/1/\(escaped(container))/keys/\(escaped(keyID))", body: nil)
    }

    // MARK: - The admin key (through a running server only: every node hears of a change)

    func adminKeyState() async throws -> AdminKeyStateResponse {
        try await exchange("GET", "/admin/1/admin-key")
    }

    func rotateAdminKey() async throws -> String {
        let rotated: AdminKeyRotationResponse = try await exchange("POST", "/admin/1/admin-key/rotate")
        return rotated.adminKey
    }

    // MARK: - Secrets (through a running server only: it holds the secrets key)

    func setSecret(_ value: String, named name: String, container: String) async throws {
        let _: NamedResponse = try await exchange("PUT", "/admin/1/\(escaped(container))/secrets/\(escaped(name))", sending: SecretValueRequest(value: value))
    }

    func secretNames(container: String) async throws -> [String] {
        let listed: SecretsResponse = try await exchange("GET", "/admin/1/\(escaped(container))/secrets")
        return listed.secrets.map(\.name)
    }

    func removeSecret(named name: String, container: String) async throws {
        _ = try await request("DELETE", "/admin/1/\(escaped(container))/secrets/\(escaped(name))", body: nil)
    }

    func resealSecrets() async throws -> (resealed: Int, alreadyCurrent: Int) {
        let resealed: ResealResponse = try await exchange("POST", "/admin/1/secrets/reseal")
        return (resealed.resealed, resealed.alreadyCurrent)
    }

    // MARK: - Functions and jobs (through a running server: it checks modules and runs them)

    func uploadModule(_ bytes: Data, named name: String, container: String, environment: Environment) async throws -> FunctionModuleInfo {
        let path = "/admin/1/\(escaped(container))/\(environment.rawValue)/functions/modules/\(escaped(name))"
        return try Self.decode(try await request("PUT", path, body: bytes), "PUT", path)
    }

    func saveFunction(_ settings: FunctionSettings, named name: String, container: String, environment: Environment) async throws -> FunctionInfo {
        try await exchange("PUT", "/admin/1/\(escaped(container))/\(environment.rawValue)/functions/\(escaped(name))", sending: settings)
    }

    func deleteFunction(named name: String, module: Bool, container: String, environment: Environment) async throws {
        let kind = module ? "functions/modules" : "functions"
        _ = try await request("DELETE", "/admin/1/\(escaped(container))/\(environment.rawValue)/\(kind)/\(escaped(name))", body: nil)
    }

    func functions(container: String) async throws -> FunctionsResponse {
        try await exchange("GET", "/admin/1/\(escaped(container))/functions")
    }

    func saveJob(_ settings: ScheduledJobSettings, named name: String, container: String, environment: Environment) async throws -> ScheduledJobInfo {
        let path = "/admin/1/\(escaped(container))/\(environment.rawValue)/jobs/\(escaped(name))"
        return try await exchange("PUT", path, sending: settings)
    }

    func deleteJob(named name: String, container: String, environment: Environment) async throws {
        _ = try await request("DELETE", "/admin/1/\(escaped(container))/\(environment.rawValue)/jobs/\(escaped(name))", body: nil)
    }

    func jobs(container: String) async throws -> [ScheduledJobInfo] {
        let listed: ScheduledJobsResponse = try await exchange("GET", "/admin/1/\(escaped(container))/jobs")
        return listed.jobs
    }

    // MARK: - Quotas

    /// The defaults and each container's own quotas, as stored.
    func quotas() async throws -> QuotasResponse {
        try await exchange("GET", "/admin/1/quotas")
    }

    /// Replaces the defaults (`container` `nil`) or a container's own quotas; answers what now holds.
    func setQuotas(_ quotas: Quotas, container: String?) async throws -> Quotas {
        let path = container.map { "/admin/1/\(escaped($0))/quotas" } ?? "/admin/1/quotas"
        return try await exchange("PUT", path, sending: quotas)
    }

    /// A container's quotas and its databases' measured use.
    func usage(container: String, limit: Int) async throws -> StorageUsageResponse {
        try await exchange("GET", "/admin/1/\(escaped(container))/usage?limit=\(limit)")
    }

    // MARK: - HTTP

    private func rolesPath(_ user: String, _ container: String, _ environment: Environment) -> String {
        "/admin/1/\(escaped(container))/\(environment.rawValue)/users/\(escaped(user))/roles"
    }

    private func escaped(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }

    private static func lines(_ changes: [SchemaChangeEntry]) -> [SchemaChangeLine] {
        changes.map { SchemaChangeLine(description: $0.description, isAdditive: $0.additive) }
    }

    /// The body of requests that carry nothing.
    private static let emptyObject = Data("{}".utf8)

    /// Sends `body` as JSON (nothing when `nil`) and decodes the answer as a typed value of the admin API.
    private func exchange<Answer: Decodable>(_ method: String, _ path: String, sending body: (some Encodable)? = String?.none) async throws -> Answer {
        let bytes = try body.map { try JSONEncoder().encode($0) }
        return try Self.decode(try await request(method, path, body: bytes), method, path)
    }

    /// An answer of the admin API as the typed value it is.
    private static func decode<Answer: Decodable>(_ data: Data, _ method: String, _ path: String) throws -> Answer {
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw APIError(.internalError, "the server's answer to \(method) \(path) is not what this command reads: \(error)")
        }
    }

    /// Sends one request and answers its body.
    /// - Throws: the server's CloudKit error as an `APIError`; a failure to connect as one naming the URL.
    private func request(_ method: String, _ path: String, body: Data?) async throws -> Data {
        guard let url = URL(string: baseURL) else { throw ValidationError("\(baseURL) is not a URL") }
        let admin = AdminClient(transport: URLSessionTransport(baseURL: url, timeout: 120), adminKey: adminKey)
        let reply: AdminReply
        do {
            reply = try await admin.send(method, path, body: body)
        } catch {
            throw APIError(.internalError, "cannot reach the server at \(baseURL): \(error.localizedDescription)", status: 503)
        }
        let (status, data) = (reply.status, reply.body)
        guard (200..<300).contains(status) else {
            let answer = try? JSONDecoder().decode(ErrorResponse.self, from: data)
            let code = answer.map { ServerErrorCode(rawValue: $0.serverErrorCode) } ?? .internalError
            throw APIError(code, answer?.reason ?? "the server answered \(status)", status: status)
        }
        return data
    }
}
