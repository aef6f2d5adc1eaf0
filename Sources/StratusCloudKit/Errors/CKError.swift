import Foundation
import StratusKit

/// The error domain of CloudKit's errors.
public let CKErrorDomain = "CKErrorDomain"
/// `userInfo` key: seconds to wait before retrying (`requestRateLimited`, `serviceUnavailable`, `zoneBusy`).
public let CKErrorRetryAfterKey = "CKRetryAfter"
/// `userInfo` key of a `partialFailure`: each failed item's error, by its ID.
public let CKPartialErrorsByItemIDKey = "CKPartialErrors"
/// `userInfo` keys of a `serverRecordChanged`: the record as the server has it, as the app sent it, and as it
/// was last fetched.
public let CKRecordChangedErrorServerRecordKey = "ServerRecord"
public let CKRecordChangedErrorClientRecordKey = "ClientRecord"
public let CKRecordChangedErrorAncestorRecordKey = "AncestorRecord"

/// An error of a CloudKit call, with CloudKit's codes and `userInfo`:
///
/// ```swift
/// } catch let error as CKError where error.code == .serverRecordChanged {
///     let server = error.serverRecord!
/// } catch CKError.zoneNotFound { … }
/// ```
public struct CKError: Error, CustomNSError, CustomStringConvertible, @unchecked Sendable {
    /// Every code CloudKit reports, with CloudKit's numbers.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        case internalError = 1
        case partialFailure = 2
        case networkUnavailable = 3
        case networkFailure = 4
        case badContainer = 5
        case serviceUnavailable = 6
        case requestRateLimited = 7
        case missingEntitlement = 8
        case notAuthenticated = 9
        case permissionFailure = 10
        case unknownItem = 11
        case invalidArguments = 12
        case resultsTruncated = 13
        case serverRecordChanged = 14
        case serverRejectedRequest = 15
        case assetFileNotFound = 16
        case assetFileModified = 17
        case incompatibleVersion = 18
        case constraintViolation = 19
        case operationCancelled = 20
        case changeTokenExpired = 21
        case batchRequestFailed = 22
        case zoneBusy = 23
        case badDatabase = 24
        case quotaExceeded = 25
        case zoneNotFound = 26
        case limitExceeded = 27
        case userDeletedZone = 28
        case tooManyParticipants = 29
        case alreadyShared = 30
        case referenceViolation = 31
        case managedAccountRestricted = 32
        case participantMayNeedVerification = 33
        case serverResponseLost = 34
        case assetNotAvailable = 35
        case accountTemporarilyUnavailable = 36
    }

    public let code: Code
    public let userInfo: [String: Any]

    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        self.userInfo = userInfo
    }

    public static var errorDomain: String { CKErrorDomain }
    public var errorCode: Int { code.rawValue }
    public var errorUserInfo: [String: Any] { userInfo }
    public var localizedDescription: String { userInfo[NSLocalizedDescriptionKey] as? String ?? "\(code)" }
    public var description: String { "<CKError: \(code) (\(code.rawValue)); \"\(localizedDescription)\">" }

    /// Seconds to wait before retrying, when the server said.
    public var retryAfterSeconds: Double? { (userInfo[CKErrorRetryAfterKey] as? NSNumber)?.doubleValue }
    /// Each failed item's error, by record ID (or zone ID), for a `partialFailure`.
    public var partialErrorsByItemID: [AnyHashable: any Error]? { userInfo[CKPartialErrorsByItemIDKey] as? [AnyHashable: any Error] }
    public var serverRecord: CKRecord? { userInfo[CKRecordChangedErrorServerRecordKey] as? CKRecord }
    public var clientRecord: CKRecord? { userInfo[CKRecordChangedErrorClientRecordKey] as? CKRecord }
    public var ancestorRecord: CKRecord? { userInfo[CKRecordChangedErrorAncestorRecordKey] as? CKRecord }

    /// A StratusKit error as CloudKit reports the same case.
    init(_ error: StratusError) {
        var info: [String: Any] = [NSLocalizedDescriptionKey: error.reason]
        if let retryAfter = error.retryAfter { info[CKErrorRetryAfterKey] = NSNumber(value: retryAfter) }
        if let server = error.serverRecord { info[CKRecordChangedErrorServerRecordKey] = CKRecord.made(from: server) }
        if let client = error.clientRecord { info[CKRecordChangedErrorClientRecordKey] = CKRecord.made(from: client) }
        if let ancestor = error.ancestorRecord { info[CKRecordChangedErrorAncestorRecordKey] = CKRecord.made(from: ancestor) }
        if !error.partialErrorsByItemID.isEmpty {
            var partial: [AnyHashable: any Error] = [:]
            for (id, failure) in error.partialErrorsByItemID { partial[CKRecord.ID(id)] = CKError(failure) }
            info[CKPartialErrorsByItemIDKey] = partial
        }
        if let code = error.serverErrorCode { info["ServerErrorCode"] = code }
        self.init(Code(rawValue: error.code.rawValue) ?? .internalError, userInfo: info)
    }

    /// Any error of StratusKit or of the network, as CloudKit reports it.
    static func from(_ error: any Error) -> any Error {
        switch error {
        case let error as CKError: error
        case let error as StratusError: CKError(error)
        case is CancellationError: CKError(.operationCancelled, userInfo: [NSLocalizedDescriptionKey: "the operation was cancelled"])
        case let error as URLError:
            CKError(
                error.code == .notConnectedToInternet ? .networkUnavailable : .networkFailure,
                userInfo: [NSLocalizedDescriptionKey: error.localizedDescription, NSUnderlyingErrorKey: error]
            )
        default: CKError(.internalError, userInfo: [NSLocalizedDescriptionKey: "\(error)", NSUnderlyingErrorKey: error])
        }
    }
}

extension CKError.Code {
    /// `catch CKError.zoneNotFound` and `case CKError.zoneNotFound` match an error by its code.
    public static func ~= (code: CKError.Code, error: any Error) -> Bool {
        (error as? CKError)?.code == code
    }
}

extension CKError {
    public static var internalError: Code { .internalError }
    public static var partialFailure: Code { .partialFailure }
    public static var networkUnavailable: Code { .networkUnavailable }
    public static var networkFailure: Code { .networkFailure }
    public static var badContainer: Code { .badContainer }
    public static var serviceUnavailable: Code { .serviceUnavailable }
    public static var requestRateLimited: Code { .requestRateLimited }
    public static var missingEntitlement: Code { .missingEntitlement }
    public static var notAuthenticated: Code { .notAuthenticated }
    public static var permissionFailure: Code { .permissionFailure }
    public static var unknownItem: Code { .unknownItem }
    public static var invalidArguments: Code { .invalidArguments }
    public static var resultsTruncated: Code { .resultsTruncated }
    public static var serverRecordChanged: Code { .serverRecordChanged }
    public static var serverRejectedRequest: Code { .serverRejectedRequest }
    public static var assetFileNotFound: Code { .assetFileNotFound }
    public static var assetFileModified: Code { .assetFileModified }
    public static var incompatibleVersion: Code { .incompatibleVersion }
    public static var constraintViolation: Code { .constraintViolation }
    public static var operationCancelled: Code { .operationCancelled }
    public static var changeTokenExpired: Code { .changeTokenExpired }
    public static var batchRequestFailed: Code { .batchRequestFailed }
    public static var zoneBusy: Code { .zoneBusy }
    public static var badDatabase: Code { .badDatabase }
    public static var quotaExceeded: Code { .quotaExceeded }
    public static var zoneNotFound: Code { .zoneNotFound }
    public static var limitExceeded: Code { .limitExceeded }
    public static var userDeletedZone: Code { .userDeletedZone }
    public static var tooManyParticipants: Code { .tooManyParticipants }
    public static var alreadyShared: Code { .alreadyShared }
    public static var referenceViolation: Code { .referenceViolation }
    public static var managedAccountRestricted: Code { .managedAccountRestricted }
    public static var participantMayNeedVerification: Code { .participantMayNeedVerification }
    public static var serverResponseLost: Code { .serverResponseLost }
    public static var assetNotAvailable: Code { .assetNotAvailable }
    public static var accountTemporarilyUnavailable: Code { .accountTemporarilyUnavailable }
}

extension CKError {
    /// `partialFailure` holding each failed item's error by its ID, or `nil` when none failed: "2 of 5 changes
    /// failed", "1 zones could not be fetched".
    static func partialFailure(_ failures: [AnyHashable: any Error], of total: Int? = nil, _ what: String) -> CKError? {
        guard !failures.isEmpty else { return nil }
        let count = total.map { "\(failures.count) of \($0)" } ?? "\(failures.count)"
        return CKError(.partialFailure, userInfo: [NSLocalizedDescriptionKey: "\(count) \(what)", CKPartialErrorsByItemIDKey: failures])
    }
}
