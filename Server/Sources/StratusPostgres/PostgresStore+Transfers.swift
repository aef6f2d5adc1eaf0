import StratusModel
import StratusStore

extension PostgresStore: TransferStore {
    public func saveTransfer(_ status: TransferStatus) async throws {
        let body = try TransferRecords.encode(status)
        try await writeUnpositioned { connection in
            try await connection.run(
                """
                INSERT INTO transfers (container_id, id, body, updated_at) VALUES (\(status.containerID), \(status.id), \(body), \(status.updatedAt))
                ON CONFLICT (container_id, id) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at
                """,
                logger: self.logger
            )
        }
    }

    public func transfers(containerID: String) async throws -> [TransferStatus] {
        try await read { connection in
            try await connection.all(
                "SELECT body FROM transfers WHERE container_id = \(containerID) ORDER BY updated_at DESC LIMIT \(TransferRecords.listed)",
                as: String.self, logger: self.logger
            ).compactMap(TransferRecords.decode)
        }
    }
}
