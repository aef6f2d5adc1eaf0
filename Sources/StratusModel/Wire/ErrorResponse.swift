/// The body of a failed request: `{uuid, serverErrorCode, reason, retryAfter?, redirectURL?}` (`docs/protocol.md#errors`).
public struct ErrorResponse: Sendable, Hashable, Decodable, JSONWritable {
    public var serverErrorCode: String
    public var reason: String
    /// Names the request in the server's logs.
    public var uuid: String?
    /// Seconds to wait before trying again.
    public var retryAfter: Int?
    /// Where to sign in, when authentication is required.
    public var redirectURL: String?

    public init(serverErrorCode: String, reason: String, uuid: String? = nil, retryAfter: Int? = nil, redirectURL: String? = nil) {
        self.serverErrorCode = serverErrorCode
        self.reason = reason
        self.uuid = uuid
        self.retryAfter = retryAfter
        self.redirectURL = redirectURL
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("redirectURL", redirectURL)
        writer.member("reason", reason)
        writer.member("retryAfter", retryAfter.map(Int64.init))
        writer.member("serverErrorCode", serverErrorCode)
        writer.member("uuid", uuid)
        writer.endObject()
    }
}
