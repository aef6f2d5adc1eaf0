import GRDB
import StratusModel
import StratusStore

/// What operators see and change across users: API tokens, the account list, record counts and every
/// user's subscriptions.
extension SQLiteStore {

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
}
