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

    public func zoneSummaries(in database: DatabaseRef) async throws -> [ZoneSummary] {
        let rows = try await rows("""
            SELECT z.name AS zone, r.type AS type, SUM(CASE WHEN \(.live("r")) THEN 1 ELSE 0 END) AS records, MAX(r.modified_at) AS last_change
            FROM zones z LEFT JOIN records r ON r.zone_id = z.id
            WHERE z.container_id = \(.text(database.containerID)) AND z.environment = \(.text(database.environment.rawValue)) \
            AND z.scope = \(.text(database.scope.rawValue)) AND z.owner = \(.text(database.ownerRecordName)) AND \(.live("z"))
            GROUP BY z.name, r.type ORDER BY z.name, r.type
            """)
        var summaries: [String: ZoneSummary] = [:]
        for row in rows {
            let zone = try row.text("zone")
            var summary = summaries[zone] ?? ZoneSummary(zoneName: zone, recordTypes: [:], lastChange: nil)
            if let type = try row.optionalText("type") {
                let count = try row.optionalInteger("records") ?? 0
                if count > 0 { summary.recordTypes[type] = count }
                if let changed = try row.optionalInteger("last_change") { summary.lastChange = max(summary.lastChange ?? changed, changed) }
            }
            summaries[zone] = summary
        }
        return summaries.values.sorted { $0.zoneName < $1.zoneName }
    }
}

/// One zone as operators see it: its live records by type, and when a record in it last changed.
public struct ZoneSummary: Sendable, Hashable {
    public var zoneName: String
    public var recordTypes: [String: Int64]
    /// Milliseconds since 1970; `nil` when no record was ever written in it.
    public var lastChange: Int64?

    public init(zoneName: String, recordTypes: [String: Int64], lastChange: Int64?) {
        self.zoneName = zoneName
        self.recordTypes = recordTypes
        self.lastChange = lastChange
    }

    public var records: Int64 { recordTypes.values.reduce(0, +) }
}
