import GRDB
import StratusModel
import StratusStore

/// What operators see and change across users: API tokens, the account list, record counts and every
/// user's subscriptions.
extension SQLiteStore {
    public func setAPIToken(_ apiToken: String, containerID: String) async throws {
        try await write { batch in
            try batch.db.execute(sql: "UPDATE containers SET api_token = ? WHERE id = ?", arguments: [apiToken, containerID])
            guard batch.db.changesCount == 1 else { throw StorageError.noSuchContainer(containerID) }
            batch.emit(.containerChanged(containerID: containerID))
        }
    }

    public func accounts(containerID: String, matching search: String?, offset: Int, limit: Int) async throws -> [Account] {
        try await read { db in
            var sql = "SELECT * FROM accounts WHERE container_id = ?"
            var arguments: StatementArguments = [containerID]
            if let search, !search.isEmpty {
                let pattern = "%" + Self.escapeLike(search.lowercased()) + "%"
                let columns = ["email", "lower(coalesce(given_name, ''))", "lower(coalesce(family_name, ''))", "user_record_name"]
                sql += " AND (" + columns.map { "\($0) LIKE ? ESCAPE '!'" }.joined(separator: " OR ") + ")"
                arguments += StatementArguments(Array(repeating: pattern, count: columns.count))
            }
            sql += " ORDER BY email LIMIT ? OFFSET ?"
            arguments += [max(0, limit), max(0, offset)]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map(Self.account(from:))
        }
    }

    /// `text` with LIKE's wildcards and its escape character (`!`) escaped.
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "!" { escaped.append("!") }
            escaped.append(character)
        }
        return escaped
    }

    public func recordCounts(of users: [String], containerID: String, environment: Environment) async throws -> [String: UserRecordCounts] {
        try await read { db in
            let publicStatement = try db.cachedStatement(sql: """
                SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                WHERE z.container_id = ? AND z.environment = ? AND z.scope = 'public' AND z.deleted = 0
                    AND r.deleted = 0 AND r.created_by = ? AND NOT (r.type = 'Users' AND r.name = ?)
                """)
            let privateStatement = try db.cachedStatement(sql: """
                SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                WHERE z.container_id = ? AND z.environment = ? AND z.scope = 'private' AND z.owner = ? AND z.deleted = 0 AND r.deleted = 0
                """)
            var counts: [String: UserRecordCounts] = [:]
            for user in Set(users) {
                let environment = environment.rawValue
                counts[user] = UserRecordCounts(
                    publicRecords: try Int.fetchOne(publicStatement, arguments: [containerID, environment, user, user]) ?? 0,
                    privateRecords: try Int.fetchOne(privateStatement, arguments: [containerID, environment, user]) ?? 0
                )
            }
            return counts
        }
    }

    public func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int {
        try await read { db in
            try Self.count(RecordCountRequest(environment: environment, recordType: recordType, field: field), containerID: containerID, db: db)
        }
    }

    public func subscriptions(containerID: String, environment: Environment, scope: DatabaseScope) async throws -> [StoredSubscription] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM subscriptions WHERE container_id = ? AND environment = ? AND scope = ? ORDER BY created_at, id",
                arguments: [containerID, environment.rawValue, scope.rawValue]
            ).map(Self.subscription(from:))
        }
    }
}
