import Foundation
import StratusModel

/// An HTTP endpoint a container environment sends its events to (webhooks), signed as Standard Webhooks prescribes.
public struct WebhookEndpoint: Sendable, Hashable {
    public var id: String
    public var containerID: String
    public var environment: Environment
    public var url: String
    public var description: String
    /// The events it receives (`record.created`, `record.updated`, `record.deleted`, …); empty: every event.
    public var eventTypes: [String]
    /// Record events from these databases only (`public`, `private`, `shared`); empty: every database.
    public var databases: [String]
    /// Record events from zones of these names only; empty: every zone.
    public var zoneNames: [String]
    /// Record events about records of these types only; empty: every type.
    public var recordTypes: [String]
    /// Its signing secrets, sealed by the server with its secrets key, the newest first (two during a rotation).
    public var sealedSecrets: [String]
    public var isEnabled: Bool
    /// Why the server turned it off, when it did (it failed for days).
    public var disabledReason: String?
    /// Milliseconds since 1970: when its deliveries started failing without a success since.
    public var failingSince: Int64?
    public var createdAt: Int64

    public init(
        id: String, containerID: String, environment: Environment, url: String, description: String = "", eventTypes: [String] = [],
        databases: [String] = [], zoneNames: [String] = [], recordTypes: [String] = [], sealedSecrets: [String], isEnabled: Bool = true,
        disabledReason: String? = nil, failingSince: Int64? = nil, createdAt: Int64
    ) {
        self.id = id
        self.containerID = containerID
        self.environment = environment
        self.url = url
        self.description = description
        self.eventTypes = eventTypes
        self.databases = databases
        self.zoneNames = zoneNames
        self.recordTypes = recordTypes
        self.sealedSecrets = sealedSecrets
        self.isEnabled = isEnabled
        self.disabledReason = disabledReason
        self.failingSince = failingSince
        self.createdAt = createdAt
    }
}

/// One event for one endpoint, from the moment it is queued (with the change that caused it) to its delivery.
public struct WebhookDelivery: Sendable, Hashable {
    public enum Status: String, Sendable, Hashable {
        case pending, delivered
    }

    /// Orders deliveries: later commits have larger ids.
    public var id: Int64
    public var endpointID: String
    public var containerID: String
    public var environment: Environment
    /// Deliveries with the same key go in order, one at a time: the record's zone, for record events.
    public var orderingKey: String
    /// The event's ID (`webhook-id`), the same in every retry and replay.
    public var eventID: String
    public var eventType: String
    /// The JSON body sent.
    public var body: String
    public var status: Status
    public var attempts: Int
    /// Milliseconds since 1970.
    public var nextAttemptAt: Int64
    public var createdAt: Int64
    public var deliveredAt: Int64?
    /// What the last attempt got: the HTTP status (0 when no answer came), the start of the reply or the error,
    /// and how long it took.
    public var lastStatusCode: Int?
    public var lastResponse: String?
    public var lastLatency: Int64?

    public init(
        id: Int64, endpointID: String, containerID: String, environment: Environment, orderingKey: String, eventID: String, eventType: String,
        body: String, status: Status = .pending, attempts: Int = 0, nextAttemptAt: Int64, createdAt: Int64, deliveredAt: Int64? = nil,
        lastStatusCode: Int? = nil, lastResponse: String? = nil, lastLatency: Int64? = nil
    ) {
        self.id = id
        self.endpointID = endpointID
        self.containerID = containerID
        self.environment = environment
        self.orderingKey = orderingKey
        self.eventID = eventID
        self.eventType = eventType
        self.body = body
        self.status = status
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.createdAt = createdAt
        self.deliveredAt = deliveredAt
        self.lastStatusCode = lastStatusCode
        self.lastResponse = lastResponse
        self.lastLatency = lastLatency
    }
}

extension WebhookDelivery {
    /// An event's `timestamp`: ISO 8601 with milliseconds, in UTC.
    public static func timestamp(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}

extension WebhookDelivery {
    /// The body of an event that is not a record's: `{type, timestamp, data}`, keys sorted, as every endpoint gets it.
    public static func eventBody(type: String, data: [String: Any], now: Int64) -> String {
        let object: [String: Any] = ["type": type, "timestamp": timestamp(now), "data": data]
        // Strings, numbers, lists and dictionaries of them only: serializing cannot fail.
        let bytes = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `data` of a share event (`share.accepted`, `share.left`) about `user` and a zone's share.
    public static func shareEventData(zone: ZoneRef, shareRecordName: String?, user: String) -> [String: Any] {
        let database = zone.database
        var data: [String: Any] = [
            "containerID": database.containerID, "environment": database.environment.rawValue, "userRecordName": user,
            "zoneID": ["zoneName": zone.zoneName, "ownerRecordName": database.ownerRecordName],
        ]
        if let shareRecordName { data["shareRecordName"] = shareRecordName }
        return data
    }
}

/// A delivery to queue: what the matcher makes of a committed change for an endpoint.
public struct PendingWebhookDelivery: Sendable, Hashable {
    public var endpointID: String
    public var containerID: String
    public var environment: Environment
    public var orderingKey: String
    public var eventID: String
    public var eventType: String
    public var body: String

    public init(endpointID: String, containerID: String, environment: Environment, orderingKey: String, eventID: String, eventType: String, body: String) {
        self.endpointID = endpointID
        self.containerID = containerID
        self.environment = environment
        self.orderingKey = orderingKey
        self.eventID = eventID
        self.eventType = eventType
        self.body = body
    }
}

/// What an attempt at a delivery got.
public struct WebhookAttempt: Sendable, Hashable {
    /// The HTTP status, or 0 when no answer came (refused, timed out).
    public var statusCode: Int
    /// The start of the reply, or the error.
    public var response: String
    /// Milliseconds.
    public var latency: Int64
    /// Milliseconds since 1970.
    public var at: Int64

    public init(statusCode: Int, response: String, latency: Int64, at: Int64) {
        self.statusCode = statusCode
        self.response = response
        self.latency = latency
        self.at = at
    }

    public var succeeded: Bool { (200..<300).contains(statusCode) }
}

/// Storage for webhook endpoints and their deliveries.
public protocol WebhookStore: Sendable {
    func createWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws
    /// - Throws: ``StorageError/Code/notFound`` when the container has no such endpoint.
    func updateWebhookEndpoint(_ endpoint: WebhookEndpoint) async throws
    /// Deletes an endpoint and its deliveries.
    /// - Throws: ``StorageError/Code/notFound`` when the container has no such endpoint.
    func deleteWebhookEndpoint(id: String, containerID: String) async throws
    func webhookEndpoint(id: String, containerID: String) async throws -> WebhookEndpoint?
    /// A container's endpoints (every environment), oldest first.
    func webhookEndpoints(containerID: String) async throws -> [WebhookEndpoint]
    /// The enabled endpoints of every container.
    func enabledWebhookEndpoints() async throws -> [WebhookEndpoint]

    /// Queues deliveries that come from no record change (accounts made and deleted, shares accepted and left).
    func queueWebhookDeliveries(_ deliveries: [PendingWebhookDelivery], now: Int64) async throws
    /// The deliveries due at `now` that are first in line for their endpoint and ordering key, oldest first, for
    /// enabled endpoints.
    func dueWebhookDeliveries(now: Int64, limit: Int) async throws -> [WebhookDelivery]
    /// Notes an attempt: a success delivers; a failure schedules the next attempt at `retryAt`. Also keeps the
    /// endpoint's `failingSince` (set at the first failure, cleared by a success).
    func recordWebhookAttempt(_ attempt: WebhookAttempt, deliveryID: Int64, retryAt: Int64) async throws
    /// Turns an endpoint off, saying why.
    func disableWebhookEndpoint(id: String, containerID: String, reason: String) async throws
    /// An endpoint's deliveries, newest first, with ids below `before` when given.
    func webhookDeliveries(endpointID: String, containerID: String, before: Int64?, limit: Int) async throws -> [WebhookDelivery]
    /// Makes a delivery due again now (a retry asked for by hand).
    /// - Throws: ``StorageError/Code/notFound`` when the endpoint has no such delivery.
    func retryWebhookDelivery(id: Int64, endpointID: String, containerID: String, now: Int64) async throws
    /// Forgets deliveries made before `time` (milliseconds since 1970).
    /// - Returns: how many were forgotten.
    func pruneWebhookDeliveries(deliveredBefore time: Int64) async throws -> Int
    /// Queues again, as new deliveries with the same event IDs, every event the endpoint was sent since `time`.
    /// - Returns: how many were queued.
    func replayWebhookDeliveries(endpointID: String, containerID: String, since time: Int64, now: Int64) async throws -> Int
}
