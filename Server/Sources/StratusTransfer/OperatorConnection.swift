import Foundation
import StratusAdmin
import StratusModel

/// A Stratus server reached with its admin key: the admin API, and every CloudKit endpoint as an operator (in a
/// user's private database when ``send(_:_:body:user:what:)`` names the user).
struct OperatorConnection: Sendable {
    /// Without a trailing slash (one given is dropped).
    let baseURL: String
    let adminKey: String
    let backoff: Backoff

    init(baseURL: String, adminKey: String, backoff: Backoff) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.adminKey = adminKey
        self.backoff = backoff
    }

    /// Sends a request and answers its body; anything but 200 is an error that says `what` failed.
    func send(_ method: String, _ path: String, body: Data? = nil, user: String? = nil, what: String) async throws -> Data {
        var headers = ["Authorization": "Bearer \(adminKey)", "Content-Type": "application/json"]
        if let user { headers["X-Stratus-User"] = user }
        let answer = try await backoff.run(what) { try await HTTP.send(method, baseURL + path, body: body, headers: headers) }
        guard answer.status == 200 else { throw TransferError("\(what) failed: \(HTTP.describe(answer))") }
        return answer.body
    }

    /// Sends `body` as JSON (none for a `GET`) and decodes the answer.
    func post<Body: Encodable, Answer: Decodable>(
        _ path: String, _ body: Body, user: String? = nil, as _: Answer.Type, what: String, method: String = "POST"
    ) async throws -> Answer {
        let data = try await send(method, path, body: method == "GET" ? nil : try JSONEncoder().encode(body), user: user, what: what)
        do {
            return try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw TransferError("\(what): the server's answer is not what was expected (\(error))")
        }
    }

    /// Stores a file for a field of a record in `database` (a user's private one when `user` is given), and
    /// answers the receipt that lets the record take it.
    func upload(_ file: Data, databasePath: String, recordType: String, fieldName: String, recordName: String, user: String? = nil) async throws -> AssetUploadResult.File {
        let tokens = try await post(
            databasePath + "/assets/upload", AssetUploadRequest(tokens: [.init(recordType: recordType, fieldName: fieldName, recordName: recordName)]),
            user: user, as: AssetUploadResponse.self, what: "asking for an upload URL"
        )
        guard let url = tokens.tokens.first?.url else { throw TransferError("the server answered no upload URL") }
        let answer = try await backoff.run("uploading a file of \(recordName)") {
            try await HTTP.send("POST", url, body: file, headers: ["Content-Type": "application/octet-stream"])
        }
        guard answer.status == 200 else { throw TransferError("uploading a file of \(recordName) failed: \(HTTP.describe(answer))") }
        return try JSONDecoder().decode(AssetUploadResult.self, from: answer.body).singleFile
    }

    /// `/database/1/{container}/{environment}/{scope}`.
    static func databasePath(_ container: String, _ environment: Environment, _ scope: DatabaseScope) -> String {
        "/database/1/\(AdminClient.escaped(container))/\(environment.rawValue)/\(scope.rawValue)"
    }
}
