import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: SubscriptionStore {
    private static let subscriptionColumns = "id, container_id, environment, scope, db_owner, owner, body, created_at"

    private func subscriptions(_ condition: String, _ bindings: PostgresBindings) async throws -> [StoredSubscription] {
        try await read { connection in
            try await connection.rows(
                PostgresQuery(unsafeSQL: "SELECT \(Self.subscriptionColumns) FROM subscriptions \(condition)", binds: bindings),
                as: (String, String, String, String, String, String, String, Int64).self, logger: self.logger
            ).map { id, container, environment, scope, databaseOwner, owner, body, createdAt in
                StoredSubscription(
                    id: id, database: Self.database(container, environment, scope, databaseOwner), owner: owner, body: body, createdAt: createdAt
                )
            }
        }
    }

    private static func key(_ database: DatabaseRef, owner: String) throws -> PostgresBindings {
        try binds(database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName, owner)
    }

    private static let keyCondition = "container_id = $1 AND environment = $2 AND scope = $3 AND db_owner = $4 AND owner = $5"

    public func subscriptions(of owner: String, in database: DatabaseRef) async throws -> [StoredSubscription] {
        try await subscriptions("WHERE \(Self.keyCondition) ORDER BY created_at, id", try Self.key(database, owner: owner))
    }

    public func subscription(id: String, owner: String, in database: DatabaseRef) async throws -> StoredSubscription? {
        var bindings = try Self.key(database, owner: owner)
        bindings.append(id)
        return try await subscriptions("WHERE \(Self.keyCondition) AND id = $6", bindings).first
    }

    public func saveSubscription(_ subscription: StoredSubscription, mustExist: Bool) async throws {
        let database = subscription.database
        try await write { write in
            if mustExist {
                let updated = try await write.connection.count(
                    """
                    UPDATE subscriptions SET body = \(subscription.body)
                    WHERE container_id = \(database.containerID) AND environment = \(database.environment.rawValue) AND scope = \(database.scope.rawValue)
                        AND db_owner = \(database.ownerRecordName) AND owner = \(subscription.owner) AND id = \(subscription.id)
                    RETURNING 1
                    """,
                    logger: write.logger
                )
                guard updated == 1 else { throw StorageError.noSuchSubscription(subscription.id) }
            } else {
                try await write.connection.run(
                    """
                    INSERT INTO subscriptions (container_id, environment, scope, db_owner, owner, id, body, created_at)
                    VALUES (\(database.containerID), \(database.environment.rawValue), \(database.scope.rawValue), \(database.ownerRecordName),
                        \(subscription.owner), \(subscription.id), \(subscription.body), \(subscription.createdAt))
                    ON CONFLICT (container_id, environment, scope, db_owner, owner, id) DO UPDATE SET body = excluded.body
                    """,
                    logger: write.logger
                )
            }
            write.emit(.subscriptionSaved(database: database, owner: subscription.owner, id: subscription.id))
        }
    }

    public func deleteSubscription(id: String, owner: String, in database: DatabaseRef) async throws -> Bool {
        try await write { write in
            let deleted = try await write.connection.count(
                """
                DELETE FROM subscriptions
                WHERE container_id = \(database.containerID) AND environment = \(database.environment.rawValue) AND scope = \(database.scope.rawValue)
                    AND db_owner = \(database.ownerRecordName) AND owner = \(owner) AND id = \(id)
                RETURNING 1
                """,
                logger: write.logger
            )
            guard deleted > 0 else { return false }
            write.emit(.subscriptionDeleted(database: database, owner: owner, id: id))
            return true
        }
    }

    public func subscriptions(containerID: String, environment: Environment, scope: DatabaseScope) async throws -> [StoredSubscription] {
        try await subscriptions(
            "WHERE container_id = $1 AND environment = $2 AND scope = $3 ORDER BY created_at, id",
            try binds(containerID, environment.rawValue, scope.rawValue)
        )
    }

    public func allSubscriptions() async throws -> [StoredSubscription] {
        try await subscriptions("ORDER BY created_at, id", PostgresBindings())
    }
}
