/// The `serverErrorCode` strings of CloudKit Web Services (`docs/protocol.md#errors`).
public struct ServerErrorCode: Sendable, Hashable, RawRepresentable, Codable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let accessDenied = Self(rawValue: "ACCESS_DENIED")
    public static let atomicError = Self(rawValue: "ATOMIC_ERROR")
    public static let authenticationFailed = Self(rawValue: "AUTHENTICATION_FAILED")
    public static let authenticationRequired = Self(rawValue: "AUTHENTICATION_REQUIRED")
    public static let badRequest = Self(rawValue: "BAD_REQUEST")
    public static let conflict = Self(rawValue: "CONFLICT")
    public static let exists = Self(rawValue: "EXISTS")
    public static let internalError = Self(rawValue: "INTERNAL_ERROR")
    public static let notFound = Self(rawValue: "NOT_FOUND")
    public static let quotaExceeded = Self(rawValue: "QUOTA_EXCEEDED")
    public static let throttled = Self(rawValue: "THROTTLED")
    public static let tryAgainLater = Self(rawValue: "TRY_AGAIN_LATER")
    public static let validatingReferenceError = Self(rawValue: "VALIDATING_REFERENCE_ERROR")
    public static let zoneNotFound = Self(rawValue: "ZONE_NOT_FOUND")
    /// A value of a unique field is taken (CloudKit JS names this code; its status is Stratus's choice).
    public static let uniqueFieldError = Self(rawValue: "UNIQUE_FIELD_ERROR")

    /// The HTTP status that goes with the code when it fails a whole request.
    public var httpStatus: Int {
        switch self {
        case .accessDenied: 403
        case .atomicError, .badRequest: 400
        case .authenticationFailed: 401
        case .authenticationRequired: 421
        case .conflict, .exists, .uniqueFieldError: 409
        case .notFound, .zoneNotFound: 404
        case .quotaExceeded: 413
        case .throttled: 429
        case .tryAgainLater: 503
        case .validatingReferenceError: 412
        default: 500
        }
    }

    public var description: String { rawValue }
}
