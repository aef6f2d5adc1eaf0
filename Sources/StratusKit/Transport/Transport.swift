import Foundation

/// How StratusKit reaches a server: one HTTP exchange at a time, and one long-lived stream.
///
/// ``URLSessionTransport`` is the default. Tests and apps with their own networking stack can supply
/// another, for example to record requests or to route them through a proxy.
public protocol Transport: Sendable {
    /// Sends a request and answers the whole response.
    func send(_ request: TransportRequest) async throws -> TransportResponse
    /// Sends a request whose response body arrives over time (server-sent events); the stream yields the
    /// body's bytes as they come and ends with the response. A status other than 200 throws.
    func stream(_ request: TransportRequest) -> AsyncThrowingStream<Data, any Error>
}

/// One HTTP request.
public struct TransportRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One HTTP response. Header names are lower-cased.
public struct TransportResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String], body: Data) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.body = body
    }
}
