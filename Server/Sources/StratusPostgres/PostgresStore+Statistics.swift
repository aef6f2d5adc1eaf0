import PostgresNIO
import StratusStore

/// Fresh planner statistics for the tables queries read, soon after they grow fast.
///
/// PostgreSQL's autovacuum analyzes a table once a tenth of it changed, but looks only once a minute (by
/// default): after a bulk load (a sync of a new device, an import, `stratus migrate`) the planner would still
/// believe the tables nearly empty, and choose plans that read every record of a type to return fifty.
extension PostgresStore {
    /// The tables whose statistics the query planner leans on.
    static let plannedTables = ["records", "field_index", "record_refs", "zones"]

    /// Analyzes each planned table that changed by more than a tenth (and 1,000 rows) since its last analysis.
    /// - Returns: the tables analyzed.
    @discardableResult
    public func refreshStatistics() async throws -> [String] {
        let stale = try await read { connection in
            try await connection.all(
                """
                SELECT relname::text FROM pg_stat_user_tables
                WHERE relname = ANY(\(Self.plannedTables)) AND n_mod_since_analyze > GREATEST(1000, n_live_tup / 10)
                ORDER BY relname
                """,
                as: String.self, logger: self.logger
            )
        }
        for table in stale where Self.plannedTables.contains(table) {
            try await read { connection in
                try await connection.run(PostgresQuery(unsafeSQL: "ANALYZE \(table)"), logger: self.logger)
            }
        }
        return stale
    }
}
