import StratusStore

/// Why a service refused a request or failed: the only error type of `StratusServices`.
///
/// It names what went wrong in the services' terms; the HTTP layer alone turns it into a CloudKit error and a status.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    /// What kind of refusal or failure it is.
    public enum Kind: Sendable, Equatable {
        /// The request's input is malformed or not allowed.
        case invalidArgument
        /// Something the request needs is not set up on this server (a secrets key, a provider, a device key).
        case notConfigured
        /// The credentials given are missing, wrong or no longer valid.
        case authenticationFailed
        /// The caller is known but may not do this.
        case accessDenied
        case notFound
        case zoneNotFound
        /// A quota would be passed.
        case quotaExceeded
        /// Too many requests: try again after `retryAfter` seconds.
        case throttled
        /// A dependency is down for now: try again.
        case unavailable
        /// The server failed; the details are for logs only.
        case failed
    }

    public var kind: Kind
    public var message: String
    /// Seconds the caller should wait before trying again.
    public var retryAfter: Int?
    /// What caused it, for logs only.
    public var underlying: (any Error)?

    public init(_ kind: Kind, _ message: String, retryAfter: Int? = nil, underlying: (any Error)? = nil) {
        self.kind = kind
        self.message = message
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    public var description: String { "\(kind): \(message)" }

    package static func invalidArgument(_ message: String) -> ServiceError { ServiceError(.invalidArgument, message) }

    /// A failure whose details are for logs only.
    package static func failed(_ underlying: any Error) -> ServiceError {
        ServiceError(.failed, "the server failed to process the request", underlying: underlying)
    }
}
