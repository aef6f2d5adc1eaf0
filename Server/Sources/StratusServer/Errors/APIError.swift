import Foundation
import Hummingbird
import StratusModel
import StratusServices
import StratusStore

/// A request-level failure as CloudKit Web Services reports it: the only error type of `StratusServer`.
///
/// Answered with the code's HTTP status and `{uuid, serverErrorCode, reason, retryAfter?, redirectURL?}`.
public struct APIError: Error, Sendable, CustomStringConvertible {
    public var code: ServerErrorCode
    public var reason: String
    public var status: Int
    public var redirectURL: String?
    /// Seconds the client should wait before retrying.
    public var retryAfter: Int?
    /// What caused it, for logs only.
    public var underlying: (any Error)?

    public init(_ code: ServerErrorCode, _ reason: String, status: Int? = nil, redirectURL: String? = nil, retryAfter: Int? = nil, underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.status = status ?? code.httpStatus
        self.redirectURL = redirectURL
        self.retryAfter = retryAfter
        self.underlying = underlying
    }

    public var description: String { "\(code) (\(status)): \(reason)" }

    static func badRequest(_ reason: String) -> APIError { APIError(.badRequest, reason) }

    /// The generic answer to anything unexpected; the details go to the log only.
    static func internalError(_ underlying: any Error) -> APIError {
        APIError(.internalError, "the server failed to process the request", underlying: underlying)
    }
}

extension APIError {
    /// Translates any error raised while answering a request (or running an operator command), exactly once.
    public init(translating error: any Error) {
        switch error {
        case let error as APIError:
            self = error
        case let error as ServiceError:
            self.init(serviceError: error)
        case let error as StorageError:
            self.init(storageError: error)
        case let error as ModelError:
            self.init(.badRequest, error.message)
        case let error as HTTPError:
            let status = Int(error.status.code)
            let code: ServerErrorCode = switch status {
            case 404: .notFound
            case 401: .authenticationFailed
            case 403: .accessDenied
            case 413: .badRequest
            case 400..<500: .badRequest
            default: .internalError
            }
            let reason = error.body ?? (status == 404 ? "no such endpoint" : status == 405 ? "method not allowed" : error.status.reasonPhrase)
            self.init(code, reason, status: status == 413 ? 400 : status, underlying: error)
        default:
            self = .internalError(error)
        }
    }

    /// The wire code and status of a service's refusal or failure.
    init(serviceError error: ServiceError) {
        let code: ServerErrorCode = switch error.kind {
        case .invalidArgument, .notConfigured: .badRequest
        case .authenticationFailed: .authenticationFailed
        case .accessDenied: .accessDenied
        case .notFound: .notFound
        case .zoneNotFound: .zoneNotFound
        case .quotaExceeded: .quotaExceeded
        case .throttled: .throttled
        case .unavailable: .tryAgainLater
        case .failed: .internalError
        }
        self.init(
            code, error.message, status: error.kind == .notConfigured ? 409 : nil, retryAfter: error.retryAfter,
            underlying: error.underlying ?? error
        )
    }

    /// The wire code and status of a store error.
    init(storageError error: StorageError) {
        let code = Self.wireCode(of: error)
        self.init(
            code, code == .internalError ? "the server failed to process the request" : error.message,
            retryAfter: code == .tryAgainLater ? 1 : nil, underlying: error
        )
    }

    /// The wire code of a store error, as per-item errors report it.
    static func wireCode(of error: StorageError) -> ServerErrorCode {
        switch error.code {
        case .notFound: .notFound
        case .zoneNotFound: .zoneNotFound
        case .conflict: .conflict
        case .alreadyExists: .exists
        case .validatingReference: .validatingReferenceError
        case .uniqueViolation: .uniqueFieldError
        case .invalidArgument, .limitExceeded: .badRequest
        case .accessDenied: .accessDenied
        case .atomicFailure: .atomicError
        case .unavailable: .tryAgainLater
        default: .internalError
        }
    }

    /// The JSON body.
    func body(requestID: String) -> JSONWriter {
        var writer = JSONWriter()
        ErrorResponse(serverErrorCode: code.rawValue, reason: reason, uuid: requestID, retryAfter: retryAfter, redirectURL: redirectURL).write(to: &writer)
        return writer
    }
}
