import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: TransferStore {
    public func saveTransfer(_ status: TransferStatus) async throws {
        let body = try TransferRecords.encode(status)
        try await write { batch in
            try batch.db.execute(
                sql: """
                    INSERT INTO transfers (container_id, id, body, updated_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (container_id, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
                    """,
                arguments: [status.containerID, status.id, body, status.updatedAt]
            )
        }
    }

    public func transfers(containerID: String) async throws -> [TransferStatus] {
        try await read { db in
            try String.fetchAll(
                db, sql: "SELECT body FROM transfers WHERE container_id = ? ORDER BY updated_at DESC LIMIT ?",
                arguments: [containerID, TransferRecords.listed]
            ).compactMap(TransferRecords.decode)
        }
    }
}
