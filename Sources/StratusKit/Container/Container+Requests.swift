import Foundation
internal import StratusModel

/// Sending CloudKit Web Services requests: URLs, tokens, JSON, and errors as ``StratusError``.
extension Container {
    /// `/database/1/{container}/{environment}/{database}/{operation}`.
    func databaseURL(_ scope: Database.Scope, _ operation: String) -> URL {
        url("/database/1/\(identifier)/\(environment.rawValue)/\(scope.rawValue)/\(operation)")
    }

    /// A URL on the server carrying the API token and, when signed in (and `asUser`), the web auth token.
    func url(_ path: String, query extra: [URLQueryItem] = [], asUser: Bool = true) -> URL {
        var components = URLComponents(url: serverURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        var items = [URLQueryItem(name: "ckAPIToken", value: apiToken)]
        if asUser, let token = webAuthToken { items.append(URLQueryItem(name: "ckWebAuthToken", value: token)) }
        components.percentEncodedQueryItems = (items + extra).map { item in
            URLQueryItem(name: item.name, value: item.value?.addingPercentEncoding(withAllowedCharacters: .strictQueryValue))
        }
        return components.url!
    }

    /// Posts a request to a database endpoint and reads the answer as `answer` (StratusModel's wire types).
    func post<Answer: Decodable>(_ scope: Database.Scope, _ operation: String, _ body: some Encodable, answer: Answer.Type) async throws -> Answer {
        try await send("POST", databaseURL(scope, operation), body: body, answer: answer)
    }

    /// Sends a JSON request and reads the answer as `answer` (StratusModel's wire types).
    func send<Answer: Decodable>(_ method: String, _ url: URL, body: some Encodable, answer: Answer.Type) async throws -> Answer {
        try await send(method, url, rawBody: try Self.encode(body), contentType: "application/json", answer: answer)
    }

    /// Sends raw bytes (an asset upload) and reads the answer as `answer`.
    func send<Answer: Decodable>(_ method: String, _ url: URL, rawBody: Data, contentType: String, answer: Answer.Type) async throws -> Answer {
        let data = try await exchange(method, url, rawBody: rawBody, contentType: contentType)
        return try Self.decode(data, as: answer, path: url.path)
    }

    /// Posts a request to a database endpoint and answers the body of its answer, for a caller that reads it itself.
    func postForBody(_ scope: Database.Scope, _ operation: String, _ body: some Encodable) async throws -> Data {
        try await exchange("POST", databaseURL(scope, operation), rawBody: try Self.encode(body), contentType: "application/json")
    }

    /// An answer's body read as `answer` (StratusModel's wire types).
    static func decode<Answer: Decodable>(_ data: Data, as answer: Answer.Type, path: String) throws -> Answer {
        do {
            return try JSONValueDecoder().decode(Answer.self, from: data)
        } catch {
            throw StratusError(.internalError, "the server's answer to \(path) cannot be read: \(error)")
        }
    }

    /// Sends a GET request and reads the answer as `answer` (StratusModel's wire types).
    func get<Answer: Decodable>(_ url: URL, answer: Answer.Type) async throws -> Answer {
        try Self.decode(try await exchange("GET", url, rawBody: nil, contentType: nil), as: answer, path: url.path)
    }

    /// Sends a GET request and answers the body of its answer as it is (an archive).
    func getBody(_ url: URL) async throws -> Data {
        try await exchange("GET", url, rawBody: nil, contentType: nil)
    }

    /// Sends a JSON request whose answer says nothing more than that it succeeded.
    func send(_ method: String, _ url: URL, body: some Encodable) async throws {
        _ = try await exchange(method, url, rawBody: try Self.encode(body), contentType: "application/json")
    }

    /// Sends a request and answers the body of a 2xx response.
    /// - Throws: ``StratusError`` from the server's error body, or for a transport failure.
    private func exchange(_ method: String, _ url: URL, rawBody: Data?, contentType: String?) async throws -> Data {
        let response = try await transport.send(TransportRequest(
            method: method, url: url, headers: contentType.map { ["Content-Type": $0] } ?? [:], body: rawBody
        ))
        if let rotated = response.headers["x-apple-cloudkit-web-auth-token"], !rotated.isEmpty {
            session.withLock { $0.webAuthToken = rotated }
        }
        guard (200..<300).contains(response.status) else {
            throw Self.error(fromBody: response.body, status: response.status)
        }
        return response.body
    }

    private static func encode(_ body: any Encodable) throws -> Data {
        do {
            return try JSONEncoder().encode(body)
        } catch {
            throw StratusError(.invalidArguments, "the request cannot be encoded: \(error)")
        }
    }

    /// The error a failed request's body stands for; a body that is not CloudKit's (a proxy's page) gives the
    /// status's error.
    static func error(fromBody body: Data, status: Int) -> StratusError {
        guard let answer = try? JSONValueDecoder().decode(ErrorResponse.self, from: body) else {
            return StratusError(status == 413 ? .limitExceeded : .serverRejectedRequest, "the server answered \(status)")
        }
        var error = StratusError(
            StratusError.code(forServerCode: answer.serverErrorCode, httpStatus: status), answer.reason,
            serverErrorCode: answer.serverErrorCode, retryAfter: answer.retryAfter.map(TimeInterval.init)
        )
        error.redirectURL = answer.redirectURL.flatMap(URL.init(string:))
        return error
    }

    /// The error of one item in a per-item answer.
    static func error(serverErrorCode: String, reason: String, retryAfter: Int? = nil) -> StratusError {
        StratusError(
            StratusError.code(forServerCode: serverErrorCode, httpStatus: 200), reason, serverErrorCode: serverErrorCode,
            retryAfter: retryAfter.map(TimeInterval.init)
        )
    }

    /// The signed-in user's record name, when known.
    var currentUserRecordName: String? { session.withLock { $0.userRecordName } }
}

extension CharacterSet {
    /// What may stay unescaped in a query value: tokens carry `+`, `/` and `=`, which must be escaped.
    static let strictQueryValue: CharacterSet = {
        var set = CharacterSet.alphanumerics
        set.insert(charactersIn: "-._~")
        return set
    }()
}

/// The body of a request that says nothing but its path: `{}`.
struct EmptyRequest: Encodable {}
