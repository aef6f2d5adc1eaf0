/// Leases written once over any backend's tables (``SQLTables``): a `leases` row per job, held by one holder until
/// it expires. Each is one statement that commits on its own (``SQLTables/execute(_:)``), so taking or renewing a
/// lease never holds a transaction.
extension EventStore where Self: SQLTables {
    public func acquireLease(_ name: String, holder: String, now: Int64, duration: Int64) async throws -> Bool {
        let taken = try await execute(["""
            INSERT INTO leases (name, holder, expires_at) VALUES (\(.text(name)), \(.text(holder)), \(.integer(now + duration)))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
            WHERE leases.holder = excluded.holder OR leases.expires_at <= \(.integer(now))
            RETURNING 1 AS taken
            """])
        return !taken[0].isEmpty
    }

    public func releaseLease(_ name: String, holder: String) async throws {
        try await execute(["DELETE FROM leases WHERE name = \(.text(name)) AND holder = \(.text(holder))"])
    }
}
