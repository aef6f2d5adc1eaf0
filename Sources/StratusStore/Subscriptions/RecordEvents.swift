import StratusModel

/// One committed change to one record, as subscriptions see it.
public struct RecordEvent: Sendable {
    /// The raw values are CloudKit's `ck.qry.fo`.
    public enum Kind: Int, Sendable {
        case created = 1, updated = 2, deleted = 3
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

/// A notification to store for one user, made while the change that caused it commits.
public struct PendingNotification: Sendable, Hashable {
    public var containerID: String
    public var environment: Environment
    public var recipient: String
    public var subscriptionID: String
    /// The APNs-style payload (`ckws-protocol.md` §6.3), as JSON text.
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

/// What the changes of one commit caused: notifications to store, and fire-once subscriptions to remove.
public struct EventOutcome: Sendable {
    public var notifications: [PendingNotification] = []
    public var firedOnce: [(database: DatabaseRef, owner: String, id: String)] = []

    public init() {}
}

/// Turns committed record changes into notifications (the server's subscription matcher).
///
/// A store calls it inside the transaction that commits the changes, and stores what it answers in the
/// same transaction, so a change and its notifications are kept together or not at all.
public protocol RecordEventListener: Sendable {
    /// What `events` cause. Runs on the store's writer: it must be quick and must not block.
    func outcome(of events: [RecordEvent], schema: Schema) -> EventOutcome
    /// Called once the outcome is committed, with the stored notifications.
    func committed(_ notifications: [StoredNotification], removedSubscriptions: [(database: DatabaseRef, owner: String, id: String)])
}
