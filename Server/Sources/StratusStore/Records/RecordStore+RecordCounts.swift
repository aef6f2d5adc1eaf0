import StratusModel

/// How many records each user has, for operators, written once over any backend's tables (``SQLTables``).
extension RecordStore where Self: SQLTables {
    public func recordCounts(of users: [String], containerID: String, environment: Environment) async throws -> [String: UserRecordCounts] {
        let users = Array(Set(users))
        guard !users.isEmpty else { return [:] }
        let names = SQLFragment.joined(users.map { "(\(.text($0)))" }, separator: ", ")
        // A user's public records are those they created (their Users record aside); their private records are
        // every record in their private zones.
        let rows = try await rows("""
            WITH u(name) AS (VALUES \(names))
            SELECT u.name AS name,
                (SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                    WHERE z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue)) AND z.scope = 'public'
                        AND \(.live("z")) AND \(.live("r")) AND r.created_by = u.name AND NOT (r.type = 'Users' AND r.name = u.name)) AS public_records,
                (SELECT count(*) FROM records r JOIN zones z ON z.id = r.zone_id
                    WHERE z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue)) AND z.scope = 'private'
                        AND z.owner = u.name AND \(.live("z")) AND \(.live("r"))) AS private_records
            FROM u
            """)
        var counts: [String: UserRecordCounts] = [:]
        for row in rows {
            counts[try row.text("name")] = UserRecordCounts(
                publicRecords: Int(try row.integer("public_records")), privateRecords: Int(try row.integer("private_records"))
            )
        }
        return counts
    }
}
