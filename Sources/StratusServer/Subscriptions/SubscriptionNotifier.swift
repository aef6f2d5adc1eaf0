import Foundation
import StratusModel
import StratusStore
import Synchronization

/// Turns committed record changes into notifications for the subscriptions they concern, and hands
/// committed notifications to the clients of this process that are waiting for them.
///
/// The store asks it inside the write transaction (``RecordEventListener``), so notifications are stored
/// with the change that caused them, and survive a restart like it.
final class SubscriptionNotifier: RecordEventListener {
    private let index = Mutex(SubscriptionIndex())
    /// Sends committed notifications to registered devices through Apple's push service, when configured.
    private let pushSender: APNsSender?
    private let listeners = Mutex<[ListenerKey: [UUID: AsyncStream<StoredNotification>.Continuation]]>([:])

    init(pushSender: APNsSender? = nil) {
        self.pushSender = pushSender
    }

    /// Whose notifications a listener waits for.
    struct ListenerKey: Hashable, Sendable {
        var containerID: String
        var environment: Environment
        var user: String
    }

    /// Loads every saved subscription, with its owner's roles.
    func load(from store: any Store) async throws {
        for stored in try await store.allSubscriptions() {
            let roles = try await Self.roles(of: stored, store: store)
            index.withLock { $0.insert(stored, roles: roles) }
        }
    }

    static func roles(of stored: StoredSubscription, store: any Store) async throws -> Set<String> {
        guard stored.database.scope == .public else { return [] }
        return try await store.roles(containerID: stored.database.containerID, environment: stored.database.environment, userRecordName: stored.owner)
    }

    func saved(_ stored: StoredSubscription, roles: Set<String>) {
        index.withLock { $0.insert(stored, roles: roles) }
    }

    func removed(id: String, owner: String, database: DatabaseRef) {
        index.withLock { $0.remove(SubscriptionIndex.EntryKey(database: database, owner: owner, id: id)) }
    }

    var subscriptionCount: Int { index.withLock { $0.count } }

    // MARK: - RecordEventListener

    func outcome(of events: [RecordEvent], schema: Schema) -> EventOutcome {
        let index = index.withLock { $0 }
        var outcome = EventOutcome()
        var fired = Set<SubscriptionIndex.EntryKey>()
        for event in events {
            // One id per change, shared by the notifications of every subscription it fires.
            var notificationID: String?
            var candidates = index.candidates(zone: event.zone, record: event.record, fields: event.fields)
            for reader in event.sharedReaders {
                let shared = DatabaseRef(
                    containerID: event.zone.database.containerID, environment: event.zone.database.environment, scope: .shared,
                    ownerRecordName: reader
                )
                candidates += index.candidates(zone: event.zone, record: event.record, fields: event.fields, in: shared)
            }
            for entry in candidates where !fired.contains(entry.key) {
                guard Self.fires(entry, on: event, schema: schema) else { continue }
                if notificationID == nil { notificationID = UUID().uuidString.lowercased() }
                outcome.notifications.append(PendingNotification(
                    containerID: event.zone.database.containerID, environment: event.zone.database.environment,
                    recipient: entry.stored.owner, subscriptionID: entry.stored.id,
                    payload: NotificationPayload.render(entry, event: event, notificationID: notificationID!)
                ))
                if entry.input.firesOnce == true {
                    fired.insert(entry.key)
                    outcome.firedOnce.append((entry.stored.database, entry.stored.owner, entry.stored.id))
                }
            }
        }
        return outcome
    }

    /// Whether a candidate subscription fires: its trigger, zone, filters, and its owner's right to read the record.
    static func fires(_ entry: SubscriptionIndex.Entry, on event: RecordEvent, schema: Schema) -> Bool {
        if let zone = entry.input.zoneID, entry.input.subscriptionType == .zone || entry.input.zoneWide == false {
            guard zone.zoneName == event.zone.zoneName else { return false }
            // A shared database holds zones of several owners: the subscription names one.
            if entry.stored.database.scope == .shared && zone.ownerRecordName != event.zone.database.ownerRecordName { return false }
        }
        guard entry.input.subscriptionType == .query else { return true }
        let trigger: SubscriptionInput.Trigger = switch event.kind {
        case .created: .create
        case .updated: .update
        case .deleted: .delete
        }
        guard entry.triggers.contains(trigger), let input = entry.input.query else { return false }
        if event.zone.database.scope == .public, let type = schema.recordTypes[event.record.recordType] {
            let caller = Caller(userRecordName: entry.stored.owner, roles: entry.roles)
            guard AccessPolicy.allows(.read, on: type, caller: caller, creator: event.record.created.userRecordName) else { return false }
        }
        guard let query = try? QueryTyper.typedQuery(input, schema: schema, environment: event.zone.database.environment) else { return false }
        return RecordMatcher(record: event.record, fields: event.fields).matches(query)
    }

    func committed(_ notifications: [StoredNotification], removedSubscriptions: [(database: DatabaseRef, owner: String, id: String)]) {
        for removed in removedSubscriptions {
            self.removed(id: removed.id, owner: removed.owner, database: removed.database)
        }
        guard !notifications.isEmpty else { return }
        if let pushSender {
            Task { await pushSender.deliver(notifications) }
        }
        listeners.withLock { listeners in
            for stored in notifications {
                let key = ListenerKey(containerID: stored.notification.containerID, environment: stored.notification.environment, user: stored.notification.recipient)
                for continuation in listeners[key]?.values ?? [:].values {
                    continuation.yield(stored)
                }
            }
        }
    }

    // MARK: - Listening

    /// Notifications for a user as they are committed, until the stream is dropped.
    func listen(_ key: ListenerKey) -> AsyncStream<StoredNotification> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<StoredNotification>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        listeners.withLock { $0[key, default: [:]][id] = continuation }
        continuation.onTermination = { [weak self] _ in
            self?.listeners.withLock { listeners in
                listeners[key]?[id] = nil
                if listeners[key]?.isEmpty == true { listeners[key] = nil }
            }
        }
        return stream
    }
}
