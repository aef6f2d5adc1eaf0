import PostgresNIO
import StratusModel
import StratusStore

/// What operators see across users: record counts.
extension PostgresStore {
    public func recordCounts(of users: [String], containerID: String, environment: Environment) async throws -> [String: UserRecordCounts] {
        let users = Array(Set(users))
        return try await read { connection in
            let rows = try await connection.rows(
                """
                SELECT u.name,
                    (SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                        WHERE z.container_id = \(containerID) AND z.environment = \(environment.rawValue) AND z.scope = 'public' AND NOT z.deleted
                            AND NOT r.deleted AND r.created_by = u.name AND NOT (r.type = 'Users' AND r.name = u.name)),
                    (SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                        WHERE z.container_id = \(containerID) AND z.environment = \(environment.rawValue) AND z.scope = 'private'
                            AND z.owner = u.name AND NOT z.deleted AND NOT r.deleted)
                FROM unnest(\(users)::text[]) AS u(name)
                """,
                as: (String, Int64, Int64).self, logger: self.logger
            )
            var counts: [String: UserRecordCounts] = [:]
            for (user, publicRecords, privateRecords) in rows {
                counts[user] = UserRecordCounts(publicRecords: Int(publicRecords), privateRecords: Int(privateRecords))
            }
            return counts
        }
    }

    public func recordCount(ofType recordType: String, holding field: String?, containerID: String, environment: Environment) async throws -> Int {
        try await read { connection in
            try await Self.count(
                RecordCountRequest(environment: environment, recordType: recordType, field: field), containerID: containerID,
                connection: connection, logger: self.logger
            )
        }
    }
}
