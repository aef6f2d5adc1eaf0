import Foundation
import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: NotificationStore {
    public func setRecordEventListener(_ listener: any RecordEventListener) {
        eventListener.withLock { $0 = listener }
    }

    /// Asks the listener what a write's record changes cause, and stores it in the same transaction.
    func publish(_ events: [RecordEvent], in batch: WriteBatch, database: DatabaseRef) throws {
        guard !events.isEmpty, let listener = eventListener.withLock({ $0 }) else { return }
        let schema = try batch.schema(SchemaKey(containerID: database.containerID, environment: database.environment))
        let outcome = listener.outcome(of: events, schema: schema)
        guard !outcome.notifications.isEmpty || !outcome.firedOnce.isEmpty else { return }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        var stored: [StoredNotification] = []
        let insert = try batch.db.cachedStatement(sql: """
            INSERT INTO notifications (container_id, environment, recipient, subscription_id, payload, created_at) VALUES (?, ?, ?, ?, ?, ?)
            """)
        for notification in outcome.notifications {
            try insert.execute(arguments: [
                notification.containerID, notification.environment.rawValue, notification.recipient, notification.subscriptionID,
                notification.payload, now,
            ])
            stored.append(StoredNotification(id: batch.db.lastInsertedRowID, notification: notification, createdAt: now))
        }
        for fired in outcome.firedOnce {
            _ = try batch.db.execute(
                sql: "DELETE FROM subscriptions WHERE container_id = ? AND environment = ? AND scope = ? AND db_owner = ? AND owner = ? AND id = ?",
                arguments: [
                    fired.database.containerID, fired.database.environment.rawValue, fired.database.scope.rawValue,
                    fired.database.ownerRecordName, fired.owner, fired.id,
                ]
            )
        }
        let removed = outcome.firedOnce
        let committed = stored
        batch.afterCommit.append { listener.committed(committed, removedSubscriptions: removed) }
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

    public func savePushToken(_ token: PushToken) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: """
                    INSERT OR REPLACE INTO push_tokens (token, container_id, environment, user_record_name, apns_environment, expires_at, cursor)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [token.token, token.containerID, token.environment.rawValue, token.user, token.apnsEnvironment, token.expiresAt, token.cursor]
            )
        }
    }

    public func pushToken(_ token: String, now: Int64) async throws -> PushToken? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM push_tokens WHERE token = ? AND expires_at > ?", arguments: [token, now]).map(Self.pushToken(from:))
        }
    }

    public func takeNotification(forToken token: String, now: Int64) async throws -> StoredNotification? {
        try await write { batch in
            let db = batch.db
            guard let queue = try Row.fetchOne(db, sql: "SELECT * FROM push_tokens WHERE token = ? AND expires_at > ?", arguments: [token, now])
                .map(Self.pushToken(from:))
            else { throw StorageError(.notFound, "the courier token does not exist or expired") }
            guard let next = try Row.fetchOne(
                db, sql: "SELECT * FROM notifications WHERE container_id = ? AND environment = ? AND recipient = ? AND id > ? ORDER BY id LIMIT 1",
                arguments: [queue.containerID, queue.environment.rawValue, queue.user, queue.cursor]
            ).map(Self.notification(from:)) else { return nil }
            try db.execute(sql: "UPDATE push_tokens SET cursor = ? WHERE token = ?", arguments: [next.id, token])
            return next
        }
    }

    public func savePushDevice(_ device: PushDevice) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "INSERT OR REPLACE INTO push_devices (token, container_id, environment, user_record_name, apns_environment) VALUES (?, ?, ?, ?, ?)",
                arguments: [device.token, device.containerID, device.environment.rawValue, device.user, device.apnsEnvironment]
            )
        }
    }

    public func pushDevices(for user: String, containerID: String, environment: Environment) async throws -> [PushDevice] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM push_devices WHERE container_id = ? AND environment = ? AND user_record_name = ?",
                arguments: [containerID, environment.rawValue, user]
            ).map { row in
                PushDevice(
                    token: row["token"], containerID: row["container_id"], environment: Environment(rawValue: row["environment"]) ?? .development,
                    user: row["user_record_name"], apnsEnvironment: row["apns_environment"]
                )
            }
        }
    }

    public func deletePushDevice(token: String) async throws {
        try await write { batch in try batch.db.execute(sql: "DELETE FROM push_devices WHERE token = ?", arguments: [token]) }
    }

    public func removeExpiredNotifications(now: Int64, createdBefore cutoff: Int64) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM push_tokens WHERE expires_at <= ?", arguments: [now])
            try batch.db.execute(sql: "DELETE FROM notifications WHERE created_at < ?", arguments: [cutoff])
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
