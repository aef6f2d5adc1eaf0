import Foundation

/// A signed-in user of a container on a `stratus serve` process, as an app holds one: the container's API token and
/// the user's web auth token go on every request. The one user client of the end-to-end tests; each suite adds the
/// calls it makes often in an extension.
///
/// ```swift
/// let alice = try await SignedInUser.signUp("alice@example.com", container: container, apiToken: token, on: server)
/// let saved = try await alice.post("records/modify", #"{"operations":[...]}"#)
/// ```
struct SignedInUser: Sendable {
    /// The password every test account has.
    static let password = "long password"

    /// The server the user's requests go to; another node of the same store works the same (``on(_:)``).
    var server: ServerProcess
    let container: String
    /// `ckAPIToken=…&ckWebAuthToken=…`, percent-encoded.
    let query: String
    let userRecordName: String
    /// The session as the server gave it (for an app given it from outside, `STRATUS_WEB_AUTH_TOKEN`).
    let webAuthToken: String

    /// Signs up a new account with ``password``.
    static func signUp(_ email: String, container: String, apiToken: String, on server: ServerProcess) async throws -> SignedInUser {
        try await authenticate("signup", email, container: container, apiToken: apiToken, expecting: 201, on: server)
    }

    /// Signs in an existing account with ``password``.
    static func signIn(_ email: String, container: String, on server: ServerProcess) async throws -> SignedInUser {
        try await authenticate("signin", email, container: container, apiToken: try await server.admin.apiToken(for: container), expecting: 200, on: server)
    }

    private static func authenticate(
        _ operation: String, _ email: String, container: String, apiToken: String, expecting expected: Int, on server: ServerProcess
    ) async throws -> SignedInUser {
        let (status, user) = try await server.send(
            "POST", "/auth/1/\(container)/development/\(operation)?ckAPIToken=\(apiToken)",
            body: #"{"emailAddress":"\#(email)","password":"\#(password)"}"#
        )
        guard status == expected, let token = user["ckWebAuthToken"] as? String, let name = user["userRecordName"] as? String else {
            throw E2EFailure("\(operation) of \(email) answered \(status): \(user)")
        }
        let query = "ckAPIToken=\(apiToken)&ckWebAuthToken=\(token.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
        return SignedInUser(server: server, container: container, query: query, userRecordName: name, webAuthToken: token)
    }

    /// The same user, sending to another server of the same store.
    func on(_ other: ServerProcess) -> SignedInUser {
        var moved = self
        moved.server = other
        return moved
    }

    /// Posts to a database endpoint, and answers the status and body.
    func send(_ database: String, _ operation: String, _ body: String) async throws -> (Int, [String: Any]) {
        try await server.send("POST", "/database/1/\(container)/development/\(database)/\(operation)?\(query)", body: body)
    }

    /// Posts to a database endpoint, and answers the body of its `200`.
    @discardableResult
    func post(_ database: String, _ operation: String, _ body: String) async throws -> [String: Any] {
        let (status, json) = try await send(database, operation, body)
        guard status == 200 else { throw E2EFailure("\(operation) answered \(status): \(json)") }
        return json
    }

    /// Posts to a public database endpoint, and answers the body of its `200`.
    @discardableResult
    func post(_ operation: String, _ body: String) async throws -> [String: Any] {
        try await post("public", operation, body)
    }

    /// Posts a JSON object to a public database endpoint, and answers the body of its `200`; a per-record failure
    /// throws.
    @discardableResult
    func post(_ operation: String, json body: [String: Any]) async throws -> [String: Any] {
        let json = try await post(operation, String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self))
        if let failed = (json["records"] as? [[String: Any]])?.first(where: { $0["serverErrorCode"] != nil }) { throw E2EFailure("\(operation): \(failed)") }
        return json
    }
}
