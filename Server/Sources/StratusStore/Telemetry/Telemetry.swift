import Foundation
import StratusModel

/// One node's figures for one container environment in one minute.
public struct TelemetryMinute: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    /// Whole minutes since 1970.
    public var minute: Int64
    public var node: String
    public var requests: Int64
    /// Requests answered with an error, and record operations refused inside answered requests, by code.
    public var errorCodes: [String: Int64]
    public var latency: LatencyHistogram
    /// Notifications made for subscriptions.
    public var notifications: Int64

    public init(
        containerID: String, environment: Environment, minute: Int64, node: String, requests: Int64 = 0, errorCodes: [String: Int64] = [:],
        latency: LatencyHistogram = LatencyHistogram(), notifications: Int64 = 0
    ) {
        self.containerID = containerID
        self.environment = environment
        self.minute = minute
        self.node = node
        self.requests = requests
        self.errorCodes = errorCodes
        self.latency = latency
        self.notifications = notifications
    }

    public var errors: Int64 { errorCodes.values.reduce(0, +) }
}

/// One answered request as the request log keeps it.
public struct RequestLogEntry: Sendable, Hashable {
    /// Assigned by the store; `0` before.
    public var id: Int64
    public var containerID: String
    public var environment: Environment
    /// Milliseconds since 1970, when it was answered.
    public var time: Int64
    public var node: String
    public var method: String
    /// The path after the environment: `public/records/modify`, `signin`...
    public var operation: String
    public var status: Int
    /// The request's error code, else the first refused record operation's.
    public var errorCode: String?
    public var userRecordName: String?
    public var recordTypes: [String]
    public var microseconds: Int64
    public var address: String

    public init(
        id: Int64 = 0, containerID: String, environment: Environment, time: Int64, node: String, method: String, operation: String, status: Int,
        errorCode: String?, userRecordName: String?, recordTypes: [String], microseconds: Int64, address: String
    ) {
        self.id = id
        self.containerID = containerID
        self.environment = environment
        self.time = time
        self.node = node
        self.method = method
        self.operation = operation
        self.status = status
        self.errorCode = errorCode
        self.userRecordName = userRecordName
        self.recordTypes = recordTypes
        self.microseconds = microseconds
        self.address = address
    }
}

/// What a search of the request log asks for; every condition set must hold.
public struct RequestLogQuery: Sendable, Hashable {
    public var environment: Environment?
    public var userRecordName: String?
    public var recordType: String?
    /// An error code, or `*` for any error.
    public var errorCode: String?
    /// Milliseconds since 1970, inclusive.
    public var from: Int64?
    /// Milliseconds since 1970, exclusive.
    public var to: Int64?
    /// Entries with a smaller id only (the next page).
    public var beforeID: Int64?
    public var limit: Int

    public init(
        environment: Environment? = nil, userRecordName: String? = nil, recordType: String? = nil, errorCode: String? = nil, from: Int64? = nil,
        to: Int64? = nil, beforeID: Int64? = nil, limit: Int = 100
    ) {
        self.environment = environment
        self.userRecordName = userRecordName
        self.recordType = recordType
        self.errorCode = errorCode
        self.from = from
        self.to = to
        self.beforeID = beforeID
        self.limit = limit
    }
}

/// A container environment's storage at one measurement.
public struct StorageSample: Sendable, Hashable {
    /// Milliseconds since 1970.
    public var measuredAt: Int64
    public var publicBytes: Int64
    public var privateBytes: Int64
    /// Users whose private database holds data.
    public var users: Int64

    public init(measuredAt: Int64, publicBytes: Int64, privateBytes: Int64, users: Int64) {
        self.measuredAt = measuredAt
        self.publicBytes = publicBytes
        self.privateBytes = privateBytes
        self.users = users
    }
}

/// Per-minute figures from every node, the users active each day, storage over time and the request log.
public protocol TelemetryStore: Sendable {
    /// Stores minutes, each replacing what its node stored for the same minute before.
    func saveTelemetryMinutes(_ minutes: [TelemetryMinute]) async throws
    /// Every node's minutes of a container environment from `from` up to `to` (whole minutes since 1970, `to` excluded).
    func telemetryMinutes(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [TelemetryMinute]
    /// Notes users active on `day` (whole days since 1970); one already noted is left as it is.
    func noteActiveUsers(_ users: [String], containerID: String, environment: Environment, day: Int64) async throws
    /// How many users were active each day from `from` up to `to` (whole days since 1970, `to` excluded).
    func activeUsers(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [Int64: Int64]
    /// Storage measured from `from` up to `to` (milliseconds since 1970, `to` excluded), oldest first.
    func storageHistory(containerID: String, environment: Environment, from: Int64, to: Int64) async throws -> [StorageSample]
    func appendRequestLog(_ entries: [RequestLogEntry]) async throws
    /// A container's logged requests matching `query`, newest first.
    func requestLog(containerID: String, matching query: RequestLogQuery) async throws -> [RequestLogEntry]
    /// Forgets minutes, active users and storage samples before `figuresBefore`, and logged requests before
    /// `logBefore` (milliseconds since 1970).
    func sweepTelemetry(figuresBefore: Int64, logBefore: Int64) async throws
}
