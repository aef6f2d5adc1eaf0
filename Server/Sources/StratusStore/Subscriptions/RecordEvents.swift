import StratusModel

/// One committed change to one record, as subscriptions see it.
public struct RecordEvent: Sendable {
    /// The raw values are CloudKit's `ck.qry.fo`, and Stratus's own above them.
    public enum Kind: Int, Sendable {
        case created = 1, updated = 2, deleted = 3
        /// A participant left the share this share record stands for, by deleting it from their shared database
        /// (the record's `modified` stamp names them). No subscription fires; webhooks send `share.left`.
        case participantLeft = 4
    }

    public var kind: Kind
    public var zone: ZoneRef
    /// The record after the change; for a deletion, as it was before it.
    public var record: Record
    public var fields: [String: FieldValue]
    /// The participants who accepted a share covering the record and may read it, the owner aside.
    public var sharedReaders: [String]

    public init(kind: Kind, zone: ZoneRef, record: Record, fields: [String: FieldValue], sharedReaders: [String] = []) {
        self.kind = kind
        self.zone = zone
        self.record = record
        self.fields = fields
        self.sharedReaders = sharedReaders
    }
}

/// A notification to store for one user, made by matching a committed change against subscriptions.
public struct PendingNotification: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    public var recipient: String
    public var subscriptionID: String
    /// The APNs-style payload (`docs/protocol.md#notification-payloads`), as JSON text.
    public var payload: String

    public init(containerID: String, environment: Environment, recipient: String, subscriptionID: String, payload: String) {
        self.containerID = containerID
        self.environment = environment
        self.recipient = recipient
        self.subscriptionID = subscriptionID
        self.payload = payload
    }
}

/// A stored notification; `id` orders one store's notifications.
public struct StoredNotification: Sendable, Hashable {
    public var id: Int64
    public var notification: PendingNotification
    /// Milliseconds since 1970.
    public var createdAt: Int64

    public init(id: Int64, notification: PendingNotification, createdAt: Int64) {
        self.id = id
        self.notification = notification
        self.createdAt = createdAt
    }
}

/// What matching some committed changes caused: notifications to store, and fire-once subscriptions to remove.
public struct EventOutcome: Sendable {
    public var notifications: [PendingNotification] = []
    public var firedOnce: [(database: DatabaseRef, owner: String, id: String)] = []
    /// Webhook deliveries the changes queue, in the order of the changes.
    public var webhookDeliveries: [PendingWebhookDelivery] = []

    public init() {}
}

/// A committed record change in the store's outbox, waiting to be matched against subscriptions.
///
/// A store writes the record changes of a commit into its outbox in the same transaction (when the container
/// environment has subscriptions), so none is lost to a crash; the server's matcher takes them out in order
/// (``NotificationStore/pendingRecordEvents(limit:)``, ``NotificationStore/completeRecordEvents(through:count:outcome:)``).
public struct PendingRecordEvent: Sendable {
    /// Orders the outbox: later commits have larger ids.
    public var id: Int64
    public var event: RecordEvent

    public init(id: Int64, event: RecordEvent) {
        self.id = id
        self.event = event
    }
}
