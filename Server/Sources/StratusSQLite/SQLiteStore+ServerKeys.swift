import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: ServerKeyStore {
    public func createServerKey(_ key: ServerKey) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "INSERT INTO server_keys (id, container_id, public_key, role, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [key.id, key.containerID, key.publicKeyPEM, key.role, key.createdAt]
            )
        }
    }

    public func serverKeys(containerID: String) async throws -> [ServerKey] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM server_keys WHERE container_id = ? AND revoked = 0 ORDER BY created_at, id", arguments: [containerID]
            ).map(Self.serverKey(from:))
        }
    }

    public func serverKey(id: String) async throws -> ServerKey? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM server_keys WHERE id = ? AND revoked = 0", arguments: [id]).map(Self.serverKey(from:))
        }
    }

    public func revokeServerKey(id: String, containerID: String) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "UPDATE server_keys SET revoked = 1 WHERE id = ? AND container_id = ? AND revoked = 0", arguments: [id, containerID]
            )
            guard batch.db.changesCount > 0 else { throw StorageError.noSuchServerKey }
            batch.emit(.serverKeyRevoked(keyID: id))
        }
    }

    public func markSignatureSeen(_ id: String, expiresAt: Int64, now: Int64) async throws -> Bool {
        try await write { batch in
            try batch.db.cachedStatement(sql: "DELETE FROM seen_signatures WHERE expires_at < ?").execute(arguments: [now])
            try batch.db.cachedStatement(sql: "INSERT OR IGNORE INTO seen_signatures (id, expires_at) VALUES (?, ?)")
                .execute(arguments: [id, expiresAt])
            return batch.db.changesCount == 1
        }
    }

    private static func serverKey(from row: Row) -> ServerKey {
        ServerKey(id: row["id"], containerID: row["container_id"], publicKeyPEM: row["public_key"], role: row["role"], createdAt: row["created_at"])
    }
}
