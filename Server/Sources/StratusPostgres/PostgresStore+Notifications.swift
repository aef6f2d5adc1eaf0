import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// The outbox of record changes, notifications and their delivery queues. Outbox entries and notifications
/// carry change positions, and are read only once settled (see ``ChangePosition``): a reader that moves past
/// a position never misses an entry that commits later.
extension PostgresStore: NotificationStore {
    private var settledBound: String { ChangePosition.settledBoundSQL(offset: positionOffset) }

    public func pendingRecordEvents(limit: Int) async throws -> [PendingRecordEvent] {
        let rows = try await readSettled { connection in
            let rows = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH b AS MATERIALIZED (SELECT \(self.settledBound) AS bound),
                        s AS MATERIALIZED (
                            SELECT b.bound, (SELECT position FROM record_outbox WHERE position >= b.bound ORDER BY position LIMIT 1) IS NOT NULL AS unsettled
                            FROM b
                        )
                        SELECT o.position, o.body, s.unsettled
                        FROM s LEFT JOIN LATERAL (SELECT position, body FROM record_outbox WHERE position < s.bound ORDER BY position LIMIT $1) o ON true
                        """,
                    binds: try binds(Int64(limit))
                ),
                as: (Int64?, String?, Bool).self, logger: self.logger
            )
            let pending = rows.compactMap { row in row.0.flatMap { position in row.1.map { (position, $0) } } }
            return (pending, rows.first?.2 ?? false)
        }
        return try rows.map { PendingRecordEvent(id: $0.0, event: try RecordEvent(encoded: $0.1)) }
    }

    public func storeMatchedRecordEvents(through lastID: Int64, count: Int, outcome: EventOutcome) async throws -> [StoredNotification] {
        try await write { write in
            let removed = try await write.connection.count("DELETE FROM record_outbox WHERE position <= \(lastID) RETURNING 1", logger: write.logger)
            // Another matcher took some of these changes first: its outcome stands, this one is rolled back.
            guard removed == count else { throw EventOutcome.alreadyMatched }
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            var stored: [StoredNotification] = []
            if !outcome.notifications.isEmpty {
                let first = try await write.positions(Int64(outcome.notifications.count))
                for (offset, notification) in outcome.notifications.enumerated() {
                    stored.append(StoredNotification(id: first + Int64(offset), notification: notification, createdAt: now))
                }
                try await write.connection.run(
                    """
                    INSERT INTO notifications (id, container_id, environment, recipient, subscription_id, payload, created_at)
                    SELECT id, container_id, environment, recipient, subscription_id, payload, \(now)
                    FROM unnest(\(stored.map(\.id))::bigint[], \(stored.map(\.notification.containerID))::text[],
                        \(stored.map(\.notification.environment.rawValue))::text[], \(stored.map(\.notification.recipient))::text[],
                        \(stored.map(\.notification.subscriptionID))::text[], \(stored.map(\.notification.payload))::text[])
                        AS n(id, container_id, environment, recipient, subscription_id, payload)
                    """,
                    logger: write.logger
                )
            }
            for fired in outcome.firedOnce {
                let database = fired.database
                let deleted = try await write.connection.count(
                    """
                    DELETE FROM subscriptions
                    WHERE container_id = \(database.containerID) AND environment = \(database.environment.rawValue) AND scope = \(database.scope.rawValue)
                        AND db_owner = \(database.ownerRecordName) AND owner = \(fired.owner) AND id = \(fired.id)
                    RETURNING 1
                    """,
                    logger: write.logger
                )
                if deleted > 0 { write.emit(.subscriptionDeleted(database: database, owner: fired.owner, id: fired.id)) }
            }
            for event in EventOutcome.storeEvents(of: stored) { write.emit(event) }
            return stored
        }
    }

    private static let notificationColumns = "id, container_id, environment, recipient, subscription_id, payload, created_at"
    private typealias NotificationColumns = (Int64, String, String, String, String, String, Int64)

    private static func notification(_ columns: NotificationColumns) -> StoredNotification {
        StoredNotification(
            id: columns.0,
            notification: PendingNotification(
                containerID: columns.1, environment: Environment(rawValue: columns.2) ?? .development, recipient: columns.3,
                subscriptionID: columns.4, payload: columns.5
            ),
            createdAt: columns.6
        )
    }

    public func notifications(for user: String, containerID: String, environment: Environment, after id: Int64, limit: Int) async throws -> [StoredNotification] {
        try await readSettled { connection in
            let unsettled = try await self.unsettledNotifications(for: user, containerID: containerID, environment: environment, connection: connection)
            let notifications = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT \(Self.notificationColumns) FROM notifications
                        WHERE container_id = $1 AND environment = $2 AND recipient = $3 AND id > $4 AND id < \(self.settledBound)
                        ORDER BY id LIMIT $5
                        """,
                    binds: try binds(containerID, environment.rawValue, user, id, Int64(limit))
                ),
                as: NotificationColumns.self, logger: self.logger
            ).map(Self.notification)
            return (notifications, unsettled)
        }
    }

    /// Whether a user has notifications committed but not settled yet.
    private func unsettledNotifications(for user: String, containerID: String, environment: Environment, connection: PostgresConnection) async throws -> Bool {
        try await connection.all(
            PostgresQuery(
                unsafeSQL: """
                    SELECT (SELECT id FROM notifications
                        WHERE container_id = $1 AND environment = $2 AND recipient = $3 AND id >= \(settledBound) ORDER BY id LIMIT 1) IS NOT NULL
                    """,
                binds: try binds(containerID, environment.rawValue, user)
            ),
            as: Bool.self, logger: logger
        ).first ?? false
    }

    public func latestNotificationID() async throws -> Int64 {
        try await readSettled { connection in
            let rows = try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH b AS MATERIALIZED (SELECT \(self.settledBound) AS bound)
                        SELECT COALESCE((SELECT MAX(id) FROM notifications WHERE id < b.bound), 0), (SELECT id FROM notifications WHERE id >= b.bound ORDER BY id LIMIT 1) IS NOT NULL
                        FROM b
                        """
                ),
                as: (Int64, Bool).self, logger: self.logger
            )
            return (rows.first?.0 ?? 0, rows.first?.1 ?? false)
        }
    }


    public func takeNotification(forToken token: String, now: Int64) async throws -> StoredNotification? {
        // Wait for the token's user's committed notifications to settle first, outside the write, which would
        // itself hold back settling while it waited.
        _ = try await readSettled { connection in
            let owners = try await connection.rows(
                "SELECT container_id, environment, user_record_name FROM push_tokens WHERE token = \(token)", as: (String, String, String).self, logger: self.logger
            )
            guard let (container, environment, user) = owners.first else { return (false, false) }
            return (true, try await self.unsettledNotifications(
                for: user, containerID: container, environment: Environment(rawValue: environment) ?? .development, connection: connection
            ))
        }
        // One statement, committed on its own: the queue's row is locked, its next settled notification found
        // and the cursor moved past it, in one round trip. The first column tells a missing queue from an empty one.
        let rows = try await writeUnpositioned { connection in
            try await connection.rows(
                PostgresQuery(
                    unsafeSQL: """
                        WITH queue AS (
                            SELECT container_id, environment, user_record_name, cursor FROM push_tokens
                            WHERE token = $1 AND expires_at > $2 FOR UPDATE
                        ),
                        next AS (
                            SELECT n.id, n.container_id, n.environment, n.recipient, n.subscription_id, n.payload, n.created_at
                            FROM notifications n, queue q
                            WHERE n.container_id = q.container_id AND n.environment = q.environment AND n.recipient = q.user_record_name
                                AND n.id > q.cursor AND n.id < \(self.settledBound)
                            ORDER BY n.id LIMIT 1
                        ),
                        moved AS (UPDATE push_tokens SET cursor = next.id FROM next WHERE token = $1)
                        SELECT EXISTS (SELECT 1 FROM queue), next.*
                        FROM (SELECT 1) AS one LEFT JOIN next ON true
                        """,
                    binds: try binds(token, now)
                ),
                as: (Bool, Int64?, String?, String?, String?, String?, String?, Int64?).self, logger: self.logger
            )
        }
        guard let row = rows.first, row.0 else { throw StorageError.courierTokenGone }
        guard let id = row.1, let container = row.2, let environment = row.3, let recipient = row.4, let subscription = row.5,
            let payload = row.6, let createdAt = row.7
        else { return nil }
        return Self.notification((id, container, environment, recipient, subscription, payload, createdAt))
    }
}
