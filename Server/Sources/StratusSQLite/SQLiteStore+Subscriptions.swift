import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: SubscriptionStore {
    static let subscriptionKey = "container_id = ? AND environment = ? AND scope = ? AND db_owner = ? AND owner = ?"

    static func keyArguments(_ database: DatabaseRef, owner: String) -> StatementArguments {
        [database.containerID, database.environment.rawValue, database.scope.rawValue, database.ownerRecordName, owner]
    }

    public func subscriptions(of owner: String, in database: DatabaseRef) async throws -> [StoredSubscription] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM subscriptions WHERE \(Self.subscriptionKey) ORDER BY created_at, id",
                arguments: Self.keyArguments(database, owner: owner)
            ).map(Self.subscription(from:))
        }
    }

    public func subscription(id: String, owner: String, in database: DatabaseRef) async throws -> StoredSubscription? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT * FROM subscriptions WHERE \(Self.subscriptionKey) AND id = ?"),
                arguments: Self.keyArguments(database, owner: owner) + [id]
            ).map(Self.subscription(from:))
        }
    }

    public func saveSubscription(_ subscription: StoredSubscription, mustExist: Bool) async throws {
        try await write { batch in
            let db = batch.db
            let key = Self.keyArguments(subscription.database, owner: subscription.owner)
            if mustExist {
                try db.execute(sql: "UPDATE subscriptions SET body = ? WHERE \(Self.subscriptionKey) AND id = ?", arguments: [subscription.body] + key + [subscription.id])
                guard db.changesCount == 1 else { throw StorageError.noSuchSubscription(subscription.id) }
                batch.emit(.subscriptionSaved(database: subscription.database, owner: subscription.owner, id: subscription.id))
                return
            }
            try db.execute(
                sql: """
                    INSERT INTO subscriptions (container_id, environment, scope, db_owner, owner, id, body, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (container_id, environment, scope, db_owner, owner, id) DO UPDATE SET body = excluded.body
                    """,
                arguments: key + [subscription.id, subscription.body, subscription.createdAt]
            )
            batch.emit(.subscriptionSaved(database: subscription.database, owner: subscription.owner, id: subscription.id))
        }
    }

    public func deleteSubscription(id: String, owner: String, in database: DatabaseRef) async throws -> Bool {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM subscriptions WHERE \(Self.subscriptionKey) AND id = ?", arguments: Self.keyArguments(database, owner: owner) + [id])
            guard batch.db.changesCount > 0 else { return false }
            batch.emit(.subscriptionDeleted(database: database, owner: owner, id: id))
            return true
        }
    }

    public func allSubscriptions() async throws -> [StoredSubscription] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM subscriptions ORDER BY created_at, id").map(Self.subscription(from:))
        }
    }

    static func subscription(from row: Row) -> StoredSubscription {
        StoredSubscription(
            id: row["id"], database: database(from: row, ownerColumn: "db_owner"), owner: row["owner"], body: row["body"], createdAt: row["created_at"]
        )
    }
}
