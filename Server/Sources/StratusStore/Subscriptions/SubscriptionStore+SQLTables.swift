import StratusModel

/// Saved subscriptions, written once over any backend's tables (``SQLTables``). A subscription is keyed by its
/// database, its owner and its ID; saving and deleting one tells every node (``StoreEvent``).
extension SubscriptionStore where Self: SQLTables {
    /// The rows of `owner`'s subscriptions in `database`.
    private static func key(_ database: DatabaseRef, owner: String) -> SQLFragment {
        """
        container_id = \(.text(database.containerID)) AND environment = \(.text(database.environment.rawValue)) \
        AND scope = \(.text(database.scope.rawValue)) AND db_owner = \(.text(database.ownerRecordName)) AND owner = \(.text(owner))
        """
    }

    public func subscriptions(of owner: String, in database: DatabaseRef) async throws -> [StoredSubscription] {
        try await subscriptions(where: "\(Self.key(database, owner: owner)) ORDER BY created_at, id")
    }

    public func subscription(id: String, owner: String, in database: DatabaseRef) async throws -> StoredSubscription? {
        try await subscriptions(where: "\(Self.key(database, owner: owner)) AND id = \(.text(id))").first
    }

    public func subscriptions(containerID: String, environment: Environment, scope: DatabaseScope) async throws -> [StoredSubscription] {
        try await subscriptions(where: """
            container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND scope = \(.text(scope.rawValue)) \
            ORDER BY created_at, id
            """)
    }

    public func allSubscriptions() async throws -> [StoredSubscription] {
        try await subscriptions(where: "true ORDER BY created_at, id")
    }

    private func subscriptions(where condition: SQLFragment) async throws -> [StoredSubscription] {
        try await rows("SELECT id, container_id, environment, scope, db_owner, owner, body, created_at FROM subscriptions WHERE \(condition)")
            .map { row in
                StoredSubscription(
                    id: try row.text("id"), database: try row.database(ownerColumn: "db_owner"), owner: try row.text("owner"),
                    body: try row.text("body"), createdAt: try row.integer("created_at")
                )
            }
    }

    public func saveSubscription(_ subscription: StoredSubscription, mustExist: Bool) async throws {
        let saved = StoreEvent.subscriptionSaved(database: subscription.database, owner: subscription.owner, id: subscription.id)
        if mustExist {
            try await transaction(
                [
                    """
                    UPDATE subscriptions SET body = \(.text(subscription.body)) \
                    WHERE \(Self.key(subscription.database, owner: subscription.owner)) AND id = \(.text(subscription.id)) RETURNING 1 AS updated
                    """,
                ],
                then: { results in
                    guard results[0].count == 1 else { throw StorageError.noSuchSubscription(subscription.id) }
                    return [saved]
                }
            )
            return
        }
        let database = subscription.database
        try await transaction(
            [
                """
                INSERT INTO subscriptions (container_id, environment, scope, db_owner, owner, id, body, created_at)
                VALUES (\(.text(database.containerID)), \(.text(database.environment.rawValue)), \(.text(database.scope.rawValue)), \
                \(.text(database.ownerRecordName)), \(.text(subscription.owner)), \(.text(subscription.id)), \(.text(subscription.body)), \
                \(.integer(subscription.createdAt)))
                ON CONFLICT (container_id, environment, scope, db_owner, owner, id) DO UPDATE SET body = excluded.body
                """,
            ],
            emitting: [saved]
        )
    }

    public func deleteSubscription(id: String, owner: String, in database: DatabaseRef) async throws -> Bool {
        let results = try await transaction(
            ["DELETE FROM subscriptions WHERE \(Self.key(database, owner: owner)) AND id = \(.text(id)) RETURNING 1 AS deleted"],
            then: { results in results[0].isEmpty ? [] : [.subscriptionDeleted(database: database, owner: owner, id: id)] }
        )
        return !results[0].isEmpty
    }
}

extension SQLRow {
    /// The database a row names in its `container_id`, `environment`, `scope` and owner columns.
    public func database(ownerColumn: String = "owner") throws(StorageError) -> DatabaseRef {
        guard let environment = Environment(rawValue: try text("environment")), let scope = DatabaseScope(rawValue: try text("scope")) else {
            throw StorageError(.internalFailure, "a row names an unknown environment or database scope")
        }
        return DatabaseRef(containerID: try text("container_id"), environment: environment, scope: scope, ownerRecordName: try text(ownerColumn))
    }
}
