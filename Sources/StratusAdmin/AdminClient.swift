import Foundation
import StratusModel
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client of a Stratus server's admin API (`/admin/1/...`), for setup scripts, tools and tests: containers,
/// schemas, deploys, users' roles and server-to-server keys. It sends the admin key, so it belongs on a developer's
/// or an operator's machine, never in an app.
///
/// ```swift
/// let admin = AdminClient(url: URL(string: "http://127.0.0.1:8080")!, adminKey: key)
/// let apiToken = try await admin.apiToken(for: "iCloud.com.example.App")
/// try await admin.importSchema("DEFINE SCHEMA RECORD TYPE Note (title STRING QUERYABLE);", container: "iCloud.com.example.App")
/// try await admin.installSchema(FlagsSchema.text, container: "iCloud.com.example.App")   // a kit's types beside the app's
/// ```
public struct AdminClient: Sendable {
    let transport: any AdminTransport
    let adminKey: String

    /// A client sending through `transport`, such as an in-process router in tests.
    public init(transport: any AdminTransport, adminKey: String) {
        self.transport = transport
        self.adminKey = adminKey
    }

    /// A client of the server at `url`, over HTTP.
    public init(url: URL, adminKey: String) {
        self.init(transport: URLSessionTransport(baseURL: url), adminKey: adminKey)
    }

    /// Creates a container and answers its API token.
    public func createContainer(_ id: String) async throws -> String {
        let created = try await expect(201, "POST", "/admin/1/containers", encoding: CreateContainerRequest(containerID: id))
            .decode(CreateContainerResponse.self)
        return created.apiToken
    }

    /// Every container, with its API token.
    public func containers() async throws -> [(id: String, apiToken: String)] {
        let listed = try await expect(200, "GET", "/admin/1/containers").decode(ContainersResponse.self)
        return listed.containers.map { ($0.containerID, $0.apiToken) }
    }

    /// The container's API token, creating the container if there is none.
    public func apiToken(for id: String) async throws -> String {
        if let known = try await containers().first(where: { $0.id == id }) { return known.apiToken }
        return try await createContainer(id)
    }

    /// Gives the container the API token `token` (64 hexadecimal digits), such as its token on the server it was moved
    /// from; apps with the old one are refused at once.
    public func setAPIToken(_ token: String, container: String) async throws {
        _ = try await expect(200, "POST", "/admin/1/\(Self.escaped(container))/token", encoding: APITokenRequest(apiToken: token))
    }

    /// Replaces an environment's schema with `text` (the schema language, see docs/schema.md).
    public func importSchema(_ text: String, container: String, environment: String = "development", force: Bool = false) async throws {
        let path = "/admin/1/\(Self.escaped(container))/\(environment)/schema" + (force ? "?force=true" : "")
        _ = try await expect(200, "PUT", path, body: Data(text.utf8))
    }

    /// An environment's schema, in the schema language.
    public func schema(container: String, environment: String = "development") async throws -> String {
        let reply = try await expect(200, "GET", "/admin/1/\(Self.escaped(container))/\(environment)/schema")
        return String(decoding: reply.body, as: UTF8.self)
    }

    /// Adds the record types and roles of `text` to an environment's schema, keeping the types already there: a
    /// type of the same name is replaced by `text`'s (a kit's newer schema), the others stay. This is how a kit's
    /// schema (`FlagsSchema.text`, `MessageSchema.text`) goes beside an app's own types.
    /// - Throws: ``AdminError`` when `text` is not a schema (status 0) or the server refuses the result.
    public func installSchema(_ text: String, container: String, environment: String = "development") async throws {
        let added: Schema
        do {
            added = try SchemaLanguage.parse(text)
        } catch {
            throw AdminError(status: 0, description: "the schema to install cannot be read: \(error)")
        }
        var merged: Schema
        do {
            merged = try SchemaLanguage.parse(try await schema(container: container, environment: environment))
        } catch let error as AdminError {
            throw error
        } catch {
            throw AdminError(status: 0, description: "the server's schema cannot be read: \(error)")
        }
        merged.roles.formUnion(added.roles)
        merged.recordTypes.merge(added.recordTypes) { _, new in new }
        try await importSchema(SchemaLanguage.print(merged), container: container, environment: environment)
    }

    /// Deploys the development schema to production.
    public func deploy(container: String) async throws {
        _ = try await expect(200, "POST", "/admin/1/\(Self.escaped(container))/deploy", encoding: DeployRequest())
    }

    /// Sets a user's roles in an environment.
    public func setRoles(_ roles: [String], of user: String, container: String, environment: String = "development") async throws {
        _ = try await expect(200, "PUT", "/admin/1/\(Self.escaped(container))/\(environment)/users/\(Self.escaped(user))/roles", encoding: RolesRequest(roles: roles))
    }

    /// A user's roles in an environment.
    public func roles(of user: String, container: String, environment: String = "development") async throws -> [String] {
        let path = "/admin/1/\(Self.escaped(container))/\(environment)/users/\(Self.escaped(user))/roles"
        return try await expect(200, "GET", path).decode(RolesResponse.self).roles
    }

    /// A server-to-server key as the admin API lists it (its public key and secrets stay on the server).
    public struct ServerKey: Sendable, Hashable {
        public var keyID: String
        /// The role its requests act with; `nil` for none beyond the key's own.
        public var role: String?
        /// When it was registered, in milliseconds since 1970.
        public var created: Int64
    }

    /// The container's server-to-server keys that are not revoked.
    public func keys(container: String) async throws -> [ServerKey] {
        let listed = try await expect(200, "GET", "/admin/1/\(Self.escaped(container))/keys").decode(ServerKeysResponse.self)
        return listed.keys.map { ServerKey(keyID: $0.keyID, role: $0.role, created: $0.created ?? 0) }
    }

    /// Registers a server-to-server key (its public key in PEM) and answers its key ID.
    public func createKey(publicKeyPEM: String, role: String? = nil, container: String) async throws -> String {
        let reply = try await send("POST", "/admin/1/\(Self.escaped(container))/keys", encoding: ServerKeyRequest(publicKey: publicKeyPEM, role: role))
        guard reply.status == 200 || reply.status == 201 else { throw AdminError(reply) }
        return try reply.decode(ServerKeyEntry.self).keyID
    }

    /// Revokes a server-to-server key.
    public func revokeKey(_ keyID: String, container: String) async throws {
        _ = try await expect(200, "DELETE", "/admin/1/\(Self.escaped(container))/keys/\(Self.escaped(keyID))")
    }

    /// Replaces the container's API token and answers the new one.
    public func rotateAPIToken(container: String) async throws -> String {
        try await expect(200, "POST", "/admin/1/\(Self.escaped(container))/token", encoding: APITokenRequest()).decode(CreateContainerResponse.self).apiToken
    }

    /// Sends any admin request with the admin key, and answers whatever the server answered. Prefer
    /// ``send(_:_:encoding:)`` with the admin API's typed values.
    public func send(_ method: String, _ path: String, json: Any) async throws -> AdminReply {
        try await send(method, path, body: try JSONSerialization.data(withJSONObject: json))
    }

    /// Sends any admin request with `value` as its JSON body, and answers whatever the server answered.
    public func send(_ method: String, _ path: String, encoding value: some Encodable) async throws -> AdminReply {
        try await send(method, path, body: try JSONEncoder().encode(value))
    }

    /// Sends any admin request with the admin key, and answers whatever the server answered.
    public func send(_ method: String, _ path: String, body: Data? = nil) async throws -> AdminReply {
        let (status, data) = try await transport.send(method, path, body: body, headers: ["Authorization": "Bearer \(adminKey)"])
        return AdminReply(status: status, body: data)
    }

    private func expect(_ status: Int, _ method: String, _ path: String, encoding value: some Encodable) async throws -> AdminReply {
        let reply = try await send(method, path, encoding: value)
        guard reply.status == status else { throw AdminError(reply) }
        return reply
    }

    private func expect(_ status: Int, _ method: String, _ path: String, body: Data? = nil) async throws -> AdminReply {
        let reply = try await send(method, path, body: body)
        guard reply.status == status else { throw AdminError(reply) }
        return reply
    }

    /// A URL path segment (a container ID, a user record name) with `/` and other reserved characters escaped.
    public static func escaped(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? segment
    }
}

/// A server's answer to an admin request.
public struct AdminReply: Sendable {
    public var status: Int
    public var body: Data

    /// The body as a JSON object (empty when it is not one). Prefer ``decode(_:)`` with the admin API's typed values.
    public var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    /// The body as the typed answer it is (StratusModel's admin API values, such as ``ContainersResponse``).
    /// - Throws: ``AdminError`` when it is not one.
    public func decode<Answer: Decodable>(_ type: Answer.Type) throws -> Answer {
        do {
            return try JSONDecoder().decode(type, from: body)
        } catch {
            throw AdminError(self, "the answer is not a \(type): \(error)")
        }
    }

    /// The body as JSON; `nil` when it is not JSON.
    public var jsonValue: JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: body)
    }
}

/// An admin request the server refused, or answered unexpectedly.
public struct AdminError: Error, CustomStringConvertible {
    public var status: Int
    public var description: String

    init(status: Int, description: String) {
        self.status = status
        self.description = description
    }

    init(_ reply: AdminReply, _ problem: String? = nil) {
        status = reply.status
        let reason = (try? JSONDecoder().decode(ErrorResponse.self, from: reply.body))?.reason ?? String(decoding: reply.body.prefix(300), as: UTF8.self)
        description = "the admin API answered \(reply.status)" + (problem.map { ": \($0)" } ?? "") + (reason.isEmpty ? "" : " (\(reason))")
    }
}

/// How an ``AdminClient`` reaches a server: one HTTP request, its status and body.
public protocol AdminTransport: Sendable {
    func send(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> (status: Int, body: Data)
}

/// Requests over HTTP with `URLSession`.
public struct URLSessionTransport: AdminTransport {
    public let baseURL: URL
    /// Seconds a request may take.
    public let timeout: TimeInterval

    public init(baseURL: URL, timeout: TimeInterval = 60) {
        self.baseURL = baseURL
        self.timeout = timeout
    }

    public func send(_ method: String, _ path: String, body: Data?, headers: [String: String]) async throws -> (status: Int, body: Data) {
        guard let url = URL(string: baseURL.absoluteString.trimmingSuffix("/") + path) else {
            throw URLError(.badURL)
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.httpBody = body
        request.timeoutInterval = timeout
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
