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
        let body = try await send("POST", "/admin/1/containers", json: ["containerID": id])
        return (try body.string("containerID"), try body.string("apiToken"))
    }

    func containers() async throws -> [(id: String, apiToken: String)] {
        try await send("GET", "/admin/1/containers").objects("containers").map { (try $0.string("containerID"), try $0.string("apiToken")) }
    }

    func schemaText(container: String, environment: Environment) async throws -> String {
        String(decoding: try await request("GET", "/admin/1/\(escaped(container))/\(environment.rawValue)/schema", body: nil), as: UTF8.self)
    }

    func importSchema(_ text: String, container: String, force: Bool) async throws -> [SchemaChangeLine] {
        let path = "/admin/1/\(escaped(container))/development/schema" + (force ? "?force=true" : "")
        return try Self.changes(in: JSONReply(try await request("PUT", path, body: Data(text.utf8))))
    }

    func schemaDiff(container: String) async throws -> [SchemaChangeLine] {
        try Self.changes(in: try await send("GET", "/admin/1/\(escaped(container))/deploy"))
    }

    func deploy(container: String, dryRun: Bool) async throws -> (changes: [SchemaChangeLine], deployed: Bool) {
        let body = try await send("POST", "/admin/1/\(escaped(container))/deploy", json: ["dryRun": dryRun])
        return (try Self.changes(in: body), body.object["deployed"] as? Bool ?? false)
    }

    func roles(of user: String, container: String, environment: Environment) async throws -> [String] {
        try await send("GET", rolesPath(user, container, environment)).object["roles"] as? [String] ?? []
    }

    func setRoles(_ roles: [String], of user: String, container: String, environment: Environment) async throws -> [String] {
        try await send("PUT", rolesPath(user, container, environment), json: ["roles": roles]).object["roles"] as? [String] ?? []
    }

    func users(container: String, search: String?, offset: Int, limit: Int) async throws -> [UserLine] {
        var query = "offset=\(offset)&limit=\(limit)"
        if let search { query += "&search=" + (search.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        let users = try await send("GET", "/admin/1/\(escaped(container))/development/users?\(query)").objects("users")
        // The container's developer (the identity of its server-to-server keys) has no address and is no user.
        return try users.filter { $0.object["developer"] as? Bool != true && $0.object["emailAddress"] as? String != "" }.map { user in
            UserLine(
                userRecordName: try user.string("userRecordName"), emailAddress: user.object["emailAddress"] as? String,
                emailVerified: user.object["emailVerified"] as? Bool ?? false, disabled: user.object["disabled"] as? Bool ?? false,
                passkeys: user.object["passkeys"] as? Int ?? 0
            )
        }
    }

    func setDisabled(_ disabled: Bool, user: String, container: String) async throws {
        _ = try await send("POST", userPath(user, container) + (disabled ? "/disable" : "/enable"), json: [String: Any]())
    }

    func removeSecondFactors(user: String, container: String) async throws {
        _ = try await send("POST", userPath(user, container) + "/second-factors/remove", json: [String: Any]())
    }

    func endSessions(user: String, container: String) async throws -> Int {
        (try await send("POST", userPath(user, container) + "/sessions/end", json: [String: Any]()).object["ended"] as? [Any])?.count ?? 0
    }

    func deleteUser(_ user: String, container: String) async throws {
        _ = try await request("DELETE", userPath(user, container), body: nil)
    }

    func sendReset(user: String, container: String) async throws -> Bool {
        try JSONReply(try await request("POST", userPath(user, container) + "/reset", body: Data("{}".utf8))).flag("smtpConfigured") ?? true
    }

    private func userPath(_ user: String, _ container: String) -> String {
        "/admin/1/\(escaped(container))/development/users/\(escaped(user))"
    }

    func createKey(publicKeyPEM: String, role: String?, container: String) async throws -> String {
        var json: [String: Any] = ["publicKey": publicKeyPEM]
        json["role"] = role
        return try await send("POST", "/admin/1/\(escaped(container))/keys", json: json).string("keyID")
    }

    func keys(container: String) async throws -> [(id: String, role: String?)] {
        try await send("GET", "/admin/1/\(escaped(container))/keys").objects("keys").map { (try $0.string("keyID"), $0.object["role"] as? String) }
    }

    func revokeKey(_ keyID: String, container: String) async throws {
        _ = try await send("DELETE", "/admin/1/\(escaped(container))/keys/\(escaped(keyID))")
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
        _ = try await send("PUT", "/admin/1/\(escaped(container))/secrets/\(escaped(name))", json: ["value": value])
    }

    func secretNames(container: String) async throws -> [String] {
        try await send("GET", "/admin/1/\(escaped(container))/secrets").objects("secrets").map { try $0.string("name") }
    }

    func removeSecret(named name: String, container: String) async throws {
        _ = try await send("DELETE", "/admin/1/\(escaped(container))/secrets/\(escaped(name))")
    }

    func resealSecrets() async throws -> (resealed: Int, alreadyCurrent: Int) {
        let body = try await send("POST", "/admin/1/secrets/reseal")
        return (body.object["resealed"] as? Int ?? 0, body.object["alreadyCurrent"] as? Int ?? 0)
    }

    // MARK: - Functions and jobs (through a running server: it checks modules and runs them)

    func uploadModule(_ bytes: Data, named name: String, container: String, environment: Environment) async throws -> [String: Any] {
        let path = "/admin/1/\(escaped(container))/\(environment.rawValue)/functions/modules/\(escaped(name))"
        return try JSONReply(try await request("PUT", path, body: bytes)).object
    }

    func saveFunction(_ settings: [String: Any], named name: String, container: String, environment: Environment) async throws -> [String: Any] {
        try await send("PUT", "/admin/1/\(escaped(container))/\(environment.rawValue)/functions/\(escaped(name))", json: settings).object
    }

    func deleteFunction(named name: String, module: Bool, container: String, environment: Environment) async throws {
        let kind = module ? "functions/modules" : "functions"
        _ = try await send("DELETE", "/admin/1/\(escaped(container))/\(environment.rawValue)/\(kind)/\(escaped(name))")
    }

    func functions(container: String) async throws -> (modules: [[String: Any]], functions: [[String: Any]]) {
        let body = try await send("GET", "/admin/1/\(escaped(container))/functions")
        return (try body.objects("modules").map(\.object), try body.objects("functions").map(\.object))
    }

    func saveJob(_ settings: ScheduledJobSettings, named name: String, container: String, environment: Environment) async throws -> ScheduledJobInfo {
        let path = "/admin/1/\(escaped(container))/\(environment.rawValue)/jobs/\(escaped(name))"
        return try await exchange("PUT", path, sending: settings)
    }

    func deleteJob(named name: String, container: String, environment: Environment) async throws {
        _ = try await send("DELETE", "/admin/1/\(escaped(container))/\(environment.rawValue)/jobs/\(escaped(name))")
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

    private static func changes(in body: JSONReply) throws -> [SchemaChangeLine] {
        try body.objects("changes").map { SchemaChangeLine(description: try $0.string("description"), isAdditive: $0.object["additive"] as? Bool ?? false) }
    }

    /// Sends `body` as JSON (nothing when `nil`) and decodes the answer as a typed value of the admin API.
    private func exchange<Answer: Decodable>(_ method: String, _ path: String, sending body: (some Encodable)? = String?.none) async throws -> Answer {
        let bytes = try body.map { try JSONEncoder().encode($0) }
        do {
            return try JSONDecoder().decode(Answer.self, from: try await request(method, path, body: bytes))
        } catch let error as DecodingError {
            throw APIError(.internalError, "the server's answer to \(method) \(path) is not what this command reads: \(error)")
        }
    }

    private func send(_ method: String, _ path: String, json: [String: Any]? = nil) async throws -> JSONReply {
        let body = try json.map { try JSONSerialization.data(withJSONObject: $0) }
        return try JSONReply(try await request(method, path, body: body))
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
            let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            let code = (object["serverErrorCode"] as? String).map(ServerErrorCode.init(rawValue:)) ?? .internalError
            throw APIError(code, object["reason"] as? String ?? "the server answered \(status)", status: status)
        }
        return data
    }
}

/// A JSON object answered by the admin API.
private struct JSONReply {
    let object: [String: Any]

    init(_ data: Data) throws {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw APIError(.internalError, "the server's answer is not a JSON object")
        }
        self.object = object
    }

    init(object: [String: Any]) {
        self.object = object
    }

    func string(_ key: String) throws -> String {
        guard let value = object[key] as? String else { throw APIError(.internalError, "the server's answer has no \(key)") }
        return value
    }

    /// A Boolean member; `nil` when the answer has none.
    func flag(_ key: String) -> Bool? {
        object[key] as? Bool
    }

    func objects(_ key: String) throws -> [JSONReply] {
        guard let items = object[key] as? [[String: Any]] else { throw APIError(.internalError, "the server's answer has no \(key)") }
        return items.map(JSONReply.init(object:))
    }
}
