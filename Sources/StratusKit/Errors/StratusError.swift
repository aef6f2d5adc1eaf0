import Foundation

/// The one error type of StratusKit. Its codes mirror CloudKit's `CKError.Code`, so an app's existing
/// error handling maps one to one:
///
/// ```swift
/// do {
///     try await database.save(record)
/// } catch let error as StratusError where error.code == .serverRecordChanged {
///     var merged = error.serverRecord!      // the record as the server has it
///     merged["title"] = error.clientRecord?["title"] as String?
///     try await database.save(merged)
/// }
/// ```
public struct StratusError: Error, Sendable, CustomStringConvertible {
    /// CloudKit's error codes, as far as a Stratus server can produce them.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case internalError = 1
        case partialFailure = 2
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case assetFileNotFound = 16
        case constraintViolation = 19
        case changeTokenExpired = 21
        case batchRequestFailed = 22
        case quotaExceeded = 25
        case zoneNotFound = 26
        case limitExceeded = 27
        case referenceViolation = 31
        case alreadyShared = 30
    }

    public var code: Code
    /// What the server (or the SDK) said went wrong.
    public var reason: String
    /// The server's own code (`serverErrorCode`), when the server answered one.
    public var serverErrorCode: String?
    /// Seconds to wait before retrying (`requestRateLimited`, `serviceUnavailable`).
    public var retryAfter: TimeInterval?
    /// For `serverRecordChanged`: the record as the server has it now.
    public var serverRecord: Record?
    /// For `serverRecordChanged`: the record the app tried to save.
    public var clientRecord: Record?
    /// For `serverRecordChanged`: the record as the app last fetched it, before its own changes.
    public var ancestorRecord: Record?
    /// For `partialFailure`: the error of each item that failed, by record ID.
    public var partialErrorsByItemID: [Record.ID: StratusError]
    /// Where a client without a signed-in user can sign in (`notAuthenticated`).
    public var redirectURL: URL?
    /// For a sign-in whose password or mailed code was right but that needs a second factor (`notAuthenticated`
    /// with ``serverErrorCode`` `SECOND_FACTOR_REQUIRED`, or `SECOND_FACTOR_SETUP_REQUIRED` where the container
    /// requires one the account has not set up): pass it to ``Container/signIn(secondFactorToken:code:recoveryCode:deviceName:)``
    /// or ``Container/passkeySignInOptions(secondFactorToken:)``; to set one up, to
    /// ``Container/setUpAuthenticatorApp(secondFactorToken:)`` or ``Container/passkeyRegistrationOptions(password:secondFactorToken:)``.
    /// Valid 5 minutes.
    public var secondFactorToken: String?
    /// With ``secondFactorToken``: the second factors the account can use (`totp`, `passkey`, `recoveryCode`), or
    /// those it can set up.
    public var secondFactorMethods: [String] = []

    public init(_ code: Code, _ reason: String, serverErrorCode: String? = nil, retryAfter: TimeInterval? = nil) {
        self.code = code
        self.reason = reason
        self.serverErrorCode = serverErrorCode
        self.retryAfter = retryAfter
        self.partialErrorsByItemID = [:]
    }

    public var description: String { "\(code) (\(serverErrorCode ?? "client")): \(reason)" }

    /// The code a server's `serverErrorCode` stands for.
    static func code(forServerCode serverCode: String, httpStatus: Int = 200) -> Code {
        switch serverCode {
        case "ACCESS_DENIED": .permissionFailure
        case "ATOMIC_ERROR": .batchRequestFailed
        case "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED": .notAuthenticated
        case "BAD_REQUEST": httpStatus == 413 ? .limitExceeded : .invalidArguments
        case "CONFLICT", "EXISTS": .serverRecordChanged
        case "NOT_FOUND": .unknownItem
        case "QUOTA_EXCEEDED": .quotaExceeded
        case "THROTTLED": .requestRateLimited
        case "TRY_AGAIN_LATER": .serviceUnavailable
        case "VALIDATING_REFERENCE_ERROR": .referenceViolation
        case "UNIQUE_FIELD_ERROR": .constraintViolation
        case "ZONE_NOT_FOUND": .zoneNotFound
        case "LIMIT_EXCEEDED": .limitExceeded
        default: .internalError
        }
    }
}
