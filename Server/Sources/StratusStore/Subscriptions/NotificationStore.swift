import StratusModel

/// A web courier token (`tokens/create`): one client's queue over its user's notifications.
public struct PushToken: Sendable, Hashable {
    public var token: String
    public var containerID: String
    public var environment: Environment
    public var user: String
    /// `development` or `production`, as the client asked.
    public var apnsEnvironment: String
    /// Milliseconds since 1970; the queue is forgotten after it.
    public var expiresAt: Int64
    /// The last notification this queue delivered.
    public var cursor: Int64

    public init(token: String, containerID: String, environment: Environment, user: String, apnsEnvironment: String, expiresAt: Int64, cursor: Int64) {
        self.token = token
        self.containerID = containerID
        self.environment = environment
        self.user = user
        self.apnsEnvironment = apnsEnvironment
        self.expiresAt = expiresAt
        self.cursor = cursor
    }
}

/// A device that receives notifications through Apple's push service (`tokens/register`).
public struct PushDevice: Sendable, Hashable {
    /// The APNs device token, hexadecimal.
    public var token: String
    public var containerID: String
    public var environment: Environment
    public var user: String
    /// `development` (APNs sandbox) or `production`.
    public var apnsEnvironment: String

    public init(token: String, containerID: String, environment: Environment, user: String, apnsEnvironment: String) {
        self.token = token
        self.containerID = containerID
        self.environment = environment
        self.user = user
        self.apnsEnvironment = apnsEnvironment
    }
}

/// Storage of notifications and of the queues that deliver them.
///
/// Record changes wait in an outbox (``PendingRecordEvent``) until the server's matcher turns them into
/// notifications; each user's notifications form one stream ordered by id, which courier queues and streams
/// read from.
public protocol NotificationStore: Sendable {
    /// The oldest record changes of the outbox, at most `limit`.
    func pendingRecordEvents(limit: Int) async throws -> [PendingRecordEvent]
    /// Stores what matching the outbox's `count` oldest changes (ids up to `lastID`) caused, removes the
    /// subscriptions that fired once, takes those changes out of the outbox, and emits the store events of it
    /// (``EventOutcome/storeEvents(of:)``), in one transaction. ``completeRecordEvents(through:count:outcome:)``
    /// is what the server calls.
    /// - Throws: ``EventOutcome/alreadyMatched`` (storing nothing) when another matcher completed some of those
    ///   changes first.
    func storeMatchedRecordEvents(through lastID: Int64, count: Int, outcome: EventOutcome) async throws -> [StoredNotification]
    /// A user's notifications after `id`, oldest first.
    func notifications(for user: String, containerID: String, environment: Environment, after id: Int64, limit: Int) async throws -> [StoredNotification]
    /// The newest notification id of the store (0 when there is none).
    func latestNotificationID() async throws -> Int64
    func savePushToken(_ token: PushToken) async throws
    /// The token, unless it does not exist or expired before `now`.
    func pushToken(_ token: String, now: Int64) async throws -> PushToken?
    /// Takes the next notification of a token's queue, moving its cursor past it.
    func takeNotification(forToken token: String, now: Int64) async throws -> StoredNotification?
    /// Registers (or moves to another user) a device for Apple's push service.
    func savePushDevice(_ device: PushDevice) async throws
    /// A user's registered devices.
    func pushDevices(for user: String, containerID: String, environment: Environment) async throws -> [PushDevice]
    /// Forgets a device Apple says is gone.
    func deletePushDevice(token: String) async throws
    /// Forgets expired tokens and notifications created before `cutoff`.
    func removeExpiredNotifications(now: Int64, createdBefore cutoff: Int64) async throws
}

extension NotificationStore {
    /// Stores what matching the outbox's `count` oldest changes caused, in one transaction
    /// (``storeMatchedRecordEvents(through:count:outcome:)``).
    /// - Returns: the stored notifications, or `nil` (storing nothing) when another matcher completed some of
    ///   those changes first: its outcome stands.
    public func completeRecordEvents(through lastID: Int64, count: Int, outcome: EventOutcome) async throws -> [StoredNotification]? {
        do {
            return try await storeMatchedRecordEvents(through: lastID, count: count, outcome: outcome)
        } catch let error as StorageError where error.code == .conflict {
            return nil
        }
    }
}

extension EventOutcome {
    /// What a backend throws when some of the changes it was asked to complete are gone from the outbox.
    public static let alreadyMatched = StorageError(.conflict, "these record changes were matched already")

    /// The store events that storing `stored` makes: one ``StoreEvent/notificationsAdded(containerID:environment:recipients:latestID:)``
    /// per container environment, naming its recipients, so that each node wakes only their waiters.
    public static func storeEvents(of stored: [StoredNotification]) -> [StoreEvent] {
        let byAudience = Dictionary(grouping: stored) { "\($0.notification.containerID)\u{0}\($0.notification.environment.rawValue)" }
        return byAudience.sorted { $0.key < $1.key }.compactMap { _, notifications in
            guard let first = notifications.first else { return nil }
            return .notificationsAdded(
                containerID: first.notification.containerID, environment: first.notification.environment,
                recipients: Set(notifications.map(\.notification.recipient)).sorted(), latestID: notifications.map(\.id).max() ?? 0
            )
        }
    }
}
