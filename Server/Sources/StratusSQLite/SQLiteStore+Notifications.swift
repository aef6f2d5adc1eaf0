import Foundation
import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: NotificationStore {
    /// Puts a write's record changes in the outbox, in its transaction, when the container environment has
    /// subscriptions (without one, no change can notify anybody).
    static func enqueue(_ events: [RecordEvent], in batch: WriteBatch, database: DatabaseRef) throws {
        guard !events.isEmpty else { return }
        let subscribed = try Bool.fetchOne(
            batch.db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM subscriptions WHERE container_id = ? AND environment = ?)"),
            arguments: [database.containerID, database.environment.rawValue]
        ) ?? false
        guard subscribed else { return }
        let insert = try batch.db.cachedStatement(sql: "INSERT INTO record_outbox (body) VALUES (?)")
        for event in events {
            try insert.execute(arguments: [event.encoded])
        }
        batch.emit(.recordEventsPending)
    }

    public func pendingRecordEvents(limit: Int) async throws -> [PendingRecordEvent] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, body FROM record_outbox ORDER BY id LIMIT ?", arguments: [limit]).map { row in
                PendingRecordEvent(id: row["id"], event: try RecordEvent(encoded: row["body"]))
            }
        }
    }

    public func storeMatchedRecordEvents(through lastID: Int64, count: Int, outcome: EventOutcome) async throws -> [StoredNotification] {
        try await write { batch in
            let db = batch.db
            try db.execute(sql: "DELETE FROM record_outbox WHERE id <= ?", arguments: [lastID])
            // Another matcher took some of these changes first: its outcome stands, this one is rolled back.
            guard db.changesCount == count else { throw EventOutcome.alreadyMatched }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            var stored: [StoredNotification] = []
            let insert = try db.cachedStatement(sql: """
                INSERT INTO notifications (container_id, environment, recipient, subscription_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
                """)
            for notification in outcome.notifications {
                try insert.execute(arguments: [
                    notification.containerID, notification.environment.rawValue, notification.recipient, notification.subscriptionID,
                    notification.payload, now,
                ])
                stored.append(StoredNotification(id: db.lastInsertedRowID, notification: notification, createdAt: now))
            }
            for fired in outcome.firedOnce {
                try db.execute(
                    sql: "DELETE FROM subscriptions WHERE container_id = ? AND environment = ? AND scope = ? AND db_owner = ? AND owner = ? AND id = ?",
                    arguments: [
                        fired.database.containerID, fired.database.environment.rawValue, fired.database.scope.rawValue,
                        fired.database.ownerRecordName, fired.owner, fired.id,
                    ]
                )
                if db.changesCount > 0 { batch.emit(.subscriptionDeleted(database: fired.database, owner: fired.owner, id: fired.id)) }
            }
            for event in EventOutcome.storeEvents(of: stored) { batch.emit(event) }
            return stored
        }
    }

    public func notifications(for user: String, containerID: String, environment: Environment, after id: Int64, limit: Int) async throws -> [StoredNotification] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: """
                    SELECT * FROM notifications WHERE container_id = ? AND environment = ? AND recipient = ? AND id > ? ORDER BY id LIMIT ?
                    """),
                arguments: [containerID, environment.rawValue, user, id, limit]
            ).map(Self.notification(from:))
        }
    }

    public func latestNotificationID() async throws -> Int64 {
        try await read { db in try Int64.fetchOne(db, sql: "SELECT MAX(id) FROM notifications") ?? 0 }
    }

    public func takeNotification(forToken token: String, now: Int64) async throws -> StoredNotification? {
        try await write { batch in
            let db = batch.db
            guard let queue = try Row.fetchOne(db, sql: "SELECT * FROM push_tokens WHERE token = ? AND expires_at > ?", arguments: [token, now])
                .map(Self.pushToken(from:))
            else { throw StorageError.courierTokenGone }
            guard let next = try Row.fetchOne(
                db, sql: "SELECT * FROM notifications WHERE container_id = ? AND environment = ? AND recipient = ? AND id > ? ORDER BY id LIMIT 1",
                arguments: [queue.containerID, queue.environment.rawValue, queue.user, queue.cursor]
            ).map(Self.notification(from:)) else { return nil }
            try db.execute(sql: "UPDATE push_tokens SET cursor = ? WHERE token = ?", arguments: [next.id, token])
            return next
        }
    }

    private static func notification(from row: Row) -> StoredNotification {
        StoredNotification(
            id: row["id"],
            notification: PendingNotification(
                containerID: row["container_id"], environment: Environment(rawValue: row["environment"]) ?? .development,
                recipient: row["recipient"], subscriptionID: row["subscription_id"], payload: row["payload"]
            ),
            createdAt: row["created_at"]
        )
    }

    private static func pushToken(from row: Row) -> PushToken {
        PushToken(
            token: row["token"], containerID: row["container_id"], environment: Environment(rawValue: row["environment"]) ?? .development,
            user: row["user_record_name"], apnsEnvironment: row["apns_environment"], expiresAt: row["expires_at"], cursor: row["cursor"]
        )
    }
}
