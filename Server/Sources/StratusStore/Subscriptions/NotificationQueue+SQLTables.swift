import Foundation
import StratusModel
import Synchronization

/// The outbox of record changes and the notifications matched from it, written once over any backend's tables
/// (``SQLTables``). Outbox entries (`position`) and notifications (`id`) carry change positions and are read only
/// once settled (``SQLPhrase/settledBound``): a reader that moves past a position never misses an entry that
/// commits later.
///
/// A backend's record write puts its changes in the outbox in its own transaction (``NotificationTables/anySubscription(containerID:environment:)``
/// says whether any subscription could match them).
extension NotificationStore where Self: SQLTables {
    public func pendingRecordEvents(limit: Int) async throws -> [PendingRecordEvent] {
        let strategy = SettledRows.Strategy(self)
        return try await readSettled { reading in
            let page = try await SettledRows.read(
                "position, body", from: "record_outbox", position: "position", after: nil, limit: limit, strategy: strategy, reading: reading
            )
            let pending = try page.rows.map { row in
                PendingRecordEvent(id: try row.integer("position"), event: try RecordEvent(encoded: try row.text("body")))
            }
            return (pending, page.unsettled)
        }
    }

    /// In one step: the outbox entries taken out, the notifications stored under the positions taken, the
    /// subscriptions that fired once deleted; the count of entries taken out decides whether it commits.
    public func storeMatchedRecordEvents(through lastID: Int64, count: Int, outcome: EventOutcome) async throws -> [StoredNotification] {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let notifications = outcome.notifications
        let fired = outcome.firedOnce
        let deliveries = outcome.webhookDeliveries
        let stored = Mutex<[StoredNotification]>([])
        try await transaction(taking: Int64(notifications.count + deliveries.count), { first in
            let made = notifications.enumerated().map { offset, notification in
                StoredNotification(id: first + Int64(offset), notification: notification, createdAt: now)
            }
            stored.withLock { $0 = made }
            var statements: [SQLFragment] = ["DELETE FROM record_outbox WHERE position <= \(.integer(lastID)) RETURNING position"]
            statements += NotificationTables.chunks(of: made).map(NotificationTables.insert)
            statements += WebhookTables.inserts(deliveries, first: first + Int64(notifications.count), now: now)
            statements += fired.map { subscription in
                let database = subscription.database
                return """
                    DELETE FROM subscriptions
                    WHERE container_id = \(.text(database.containerID)) AND environment = \(.text(database.environment.rawValue)) \
                    AND scope = \(.text(database.scope.rawValue)) AND db_owner = \(.text(database.ownerRecordName)) \
                    AND owner = \(.text(subscription.owner)) AND id = \(.text(subscription.id))
                    RETURNING id
                    """
            }
            return statements
        }, then: { results in
            // Another matcher took some of these changes first: its outcome stands, this one is rolled back.
            guard results[0].count == count else { throw EventOutcome.alreadyMatched }
            var events: [StoreEvent] = []
            for (subscription, deleted) in zip(fired, results.suffix(fired.count)) where !deleted.isEmpty {
                events.append(.subscriptionDeleted(database: subscription.database, owner: subscription.owner, id: subscription.id))
            }
            return events + EventOutcome.storeEvents(of: stored.withLock { $0 }) + (deliveries.isEmpty ? [] : [.webhooksQueued])
        })
        return stored.withLock { $0 }
    }

    public func notifications(for user: String, containerID: String, environment: Environment, after id: Int64, limit: Int) async throws -> [StoredNotification] {
        let strategy = SettledRows.Strategy(self)
        return try await readSettled { reading in
            let page = try await SettledRows.read(
                NotificationTables.columns, from: "notifications", position: "id",
                where: NotificationTables.recipient(user, containerID: containerID, environment: environment), after: id, limit: limit,
                strategy: strategy, reading: reading
            )
            return (try page.rows.map(NotificationTables.notification), page.unsettled)
        }
    }

    public func latestNotificationID() async throws -> Int64 {
        try await readSettled { reading in
            let row = try await reading.rows("""
                WITH b AS MATERIALIZED (SELECT \(.settledBound) AS bound)
                SELECT COALESCE((SELECT id FROM notifications WHERE id < b.bound ORDER BY id DESC LIMIT 1), 0) AS latest,
                    (SELECT id FROM notifications WHERE id >= b.bound ORDER BY id LIMIT 1) IS NOT NULL AS unsettled
                FROM b
                """).first
            return (try row?.integer("latest") ?? 0, try row?.bool("unsettled") ?? false)
        }
    }

    /// Waits for the token's user's committed notifications to settle first, outside the write, which would itself
    /// hold back settling while it waited; then moves the queue's cursor past the next one in a short transaction.
    public func takeNotification(forToken token: String, now: Int64) async throws -> StoredNotification? {
        _ = try await readSettled { reading in
            guard let queue = try await reading.rows("""
                SELECT container_id, environment, user_record_name FROM push_tokens WHERE token = \(.text(token))
                """).first else { return (false, false) }
            let recipient = NotificationTables.recipient(
                try queue.text("user_record_name"), containerID: try queue.text("container_id"), environment: try queue.environment()
            )
            let unsettled = try await reading.rows("""
                SELECT (SELECT id FROM notifications WHERE \(recipient) AND id >= \(.settledBound) ORDER BY id LIMIT 1) IS NOT NULL AS unsettled
                """).first
            return (true, try unsettled?.bool("unsettled") ?? false)
        }
        return try await transaction { transaction in
            guard let queue = try await transaction.rows("""
                SELECT container_id, environment, user_record_name, cursor FROM push_tokens
                WHERE token = \(.text(token)) AND expires_at > \(.integer(now))\(.lockForUpdate)
                """).first else { throw StorageError.courierTokenGone }
            let recipient = NotificationTables.recipient(
                try queue.text("user_record_name"), containerID: try queue.text("container_id"), environment: try queue.environment()
            )
            guard let next = try await transaction.rows("""
                SELECT \(raw: NotificationTables.columns) FROM notifications
                WHERE \(recipient) AND id > \(.integer(try queue.integer("cursor"))) AND id < \(.settledBound)
                ORDER BY id LIMIT 1
                """).first.map(NotificationTables.notification) else { return nil }
            try await transaction.rows("UPDATE push_tokens SET cursor = \(.integer(next.id)) WHERE token = \(.text(token))")
            return next
        }
    }
}

/// Statements of the outbox and the notifications.
public enum NotificationTables {
    static let columns = "id, container_id, environment, recipient, subscription_id, payload, created_at"

    /// Whether a container environment has any subscription, and so whether its record changes go to the outbox.
    public static func anySubscription(containerID: String, environment: Environment) -> SQLRead<Bool> {
        SQLRead("""
            SELECT \(listened(containerID: "\(.text(containerID))", environment: "\(.text(environment.rawValue))")) AS subscribed
            """) { rows in try rows.first?.bool("subscribed") ?? false }
    }

    /// Whether anything listens to a container environment's record changes: a subscription, or an enabled webhook
    /// endpoint; only then do they go to the outbox. The container and environment are expressions (bound values, or
    /// a prepared statement's parameters).
    public static func listened(containerID: SQLFragment, environment: SQLFragment) -> SQLFragment {
        """
        (EXISTS (SELECT 1 FROM subscriptions WHERE container_id = \(containerID) AND environment = \(environment)) \
        OR EXISTS (SELECT 1 FROM webhook_endpoints WHERE container_id = \(containerID) AND environment = \(environment) AND enabled))
        """
    }

    /// The condition that a notification is for `user` in a container environment.
    static func recipient(_ user: String, containerID: String, environment: Environment) -> SQLFragment {
        "container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND recipient = \(.text(user))"
    }

    /// Up to 500 notifications per statement, within every dialect's limit on bound values.
    static func chunks(of notifications: [StoredNotification]) -> [ArraySlice<StoredNotification>] {
        stride(from: 0, to: notifications.count, by: 500).map { notifications[$0..<min($0 + 500, notifications.count)] }
    }

    static func insert(_ notifications: ArraySlice<StoredNotification>) -> SQLFragment {
        let rows = notifications.map { stored -> [SQLValue] in
            let notification = stored.notification
            return [
                .integer(stored.id), .text(notification.containerID), .text(notification.environment.rawValue), .text(notification.recipient),
                .text(notification.subscriptionID), .text(notification.payload), .integer(stored.createdAt),
            ]
        }
        let names = columns.components(separatedBy: ", ")
        return "\(dialect: { $0.insertRows(into: "notifications", columns: names, rows: rows) })"
    }

    static func notification(_ row: SQLRow) throws -> StoredNotification {
        StoredNotification(
            id: try row.integer("id"),
            notification: PendingNotification(
                containerID: try row.text("container_id"), environment: try row.environment(), recipient: try row.text("recipient"),
                subscriptionID: try row.text("subscription_id"), payload: try row.text("payload")
            ),
            createdAt: try row.integer("created_at")
        )
    }
}
