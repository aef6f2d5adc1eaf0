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

    /// Posts a JSON body to a database endpoint and answers the JSON object.
    func post(_ scope: Database.Scope, _ operation: String, _ body: some Encodable) async throws -> [String: JSONValue] {
        try await send("POST", databaseURL(scope, operation), body: body)
    }

    /// Posts a JSON value to a database endpoint and answers the JSON object.
    func post(_ scope: Database.Scope, _ operation: String, _ body: JSONValue) async throws -> [String: JSONValue] {
        try await send("POST", databaseURL(scope, operation), body: body)
    }

    /// Posts a request to a database endpoint and reads the answer as `answer` (StratusModel's wire types).
    func post<Answer: Decodable>(_ scope: Database.Scope, _ operation: String, _ body: some Encodable, answer: Answer.Type) async throws -> Answer {
        let data = try await exchange("POST", databaseURL(scope, operation), rawBody: try Self.encode(body), contentType: "application/json")
        do {
            return try JSONValueDecoder().decode(Answer.self, from: data)
        } catch {
            throw StratusError(.internalError, "the server's answer to \(operation) cannot be read: \(error)")
        }
    }

    /// Sends a request and answers the JSON object of a 2xx response.
    /// - Throws: ``StratusError`` from the server's error body, or for a transport failure.
    func send(_ method: String, _ url: URL, body: (any Encodable)? = nil) async throws -> [String: JSONValue] {
        try await send(method, url, rawBody: try body.map(Self.encode), contentType: body == nil ? nil : "application/json")
    }

    /// Sends raw bytes (an asset upload) and answers the JSON object of a 2xx response.
    func send(_ method: String, _ url: URL, rawBody: Data?, contentType: String? = "application/octet-stream") async throws -> [String: JSONValue] {
        let data = try await exchange(method, url, rawBody: rawBody, contentType: contentType)
        let json = data.isEmpty ? JSONValue.object([:]) : (try? JSONParser.parse(data)) ?? .null
        guard let object = json.objectValue else {
            throw StratusError(.internalError, "the server answered without a JSON object")
        }
        return object
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
            let json = (try? JSONParser.parse(response.body)) ?? .null
            throw Self.error(from: json.objectValue ?? [:], status: response.status)
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

    /// The error a server's error body stands for.
    static func error(from object: [String: JSONValue], status: Int) -> StratusError {
        let serverCode = object["serverErrorCode"]?.stringValue
        var error = StratusError(
            serverCode.map { StratusError.code(forServerCode: $0, httpStatus: status) } ?? (status == 413 ? .limitExceeded : .serverRejectedRequest),
            object["reason"]?.stringValue ?? "the server answered \(status)", serverErrorCode: serverCode,
            retryAfter: object["retryAfter"]?.integerValue.map(TimeInterval.init)
        )
        error.redirectURL = object["redirectURL"]?.stringValue.flatMap(URL.init(string:))
        return error
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
