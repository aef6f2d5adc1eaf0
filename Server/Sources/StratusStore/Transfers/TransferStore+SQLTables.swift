import StratusModel

/// The progress of imports and exports, written once over any backend's tables (``SQLTables``).
extension TransferStore where Self: SQLTables {
    public func saveTransfer(_ status: TransferStatus) async throws {
        let body = try TransferRecords.encode(status)
        try await execute([
            """
            INSERT INTO transfers (container_id, id, body, updated_at) VALUES (\(.text(status.containerID)), \(.text(status.id)), \
            \(.text(body)), \(.integer(status.updatedAt)))
            ON CONFLICT (container_id, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
            """,
        ])
    }

    public func transfers(containerID: String) async throws -> [TransferStatus] {
        try await rows("""
            SELECT body FROM transfers WHERE container_id = \(.text(containerID)) ORDER BY updated_at DESC \
            LIMIT \(raw: "\(TransferRecords.listed)")
            """).compactMap { TransferRecords.decode(try $0.text("body")) }
    }
}
