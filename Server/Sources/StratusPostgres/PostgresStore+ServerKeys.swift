import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: ServerKeyStore {
    public func createServerKey(_ key: ServerKey) async throws {
        try await write { write in
            try await write.connection.run(
                """
                INSERT INTO server_keys (id, container_id, public_key, role, created_at)
                VALUES (\(key.id), \(key.containerID), \(key.publicKeyPEM), \(key.role), \(key.createdAt))
                """,
                logger: write.logger
            )
        }
    }

    public func serverKeys(containerID: String) async throws -> [ServerKey] {
        try await serverKeys("WHERE container_id = $1 AND NOT revoked ORDER BY created_at, id", containerID)
    }

    public func serverKey(id: String) async throws -> ServerKey? {
        try await serverKeys("WHERE id = $1 AND NOT revoked", id).first
    }

    private func serverKeys(_ condition: String, _ argument: String) async throws -> [ServerKey] {
        var binds = PostgresBindings()
        binds.append(argument)
        let query = PostgresQuery(unsafeSQL: "SELECT id, container_id, public_key, role, created_at FROM server_keys \(condition)", binds: binds)
        return try await read { connection in
            var keys: [ServerKey] = []
            for try await (id, container, pem, role, createdAt) in try await connection.query(query, logger: self.logger)
                .decode((String, String, String, String?, Int64).self)
            {
                keys.append(ServerKey(id: id, containerID: container, publicKeyPEM: pem, role: role, createdAt: createdAt))
            }
            return keys
        }
    }

    public func revokeServerKey(id: String, containerID: String) async throws {
        try await write { write in
            let revoked = try await write.connection.count(
                "UPDATE server_keys SET revoked = true WHERE id = \(id) AND container_id = \(containerID) AND NOT revoked RETURNING 1",
                logger: write.logger
            )
            guard revoked > 0 else { throw StorageError.noSuchServerKey }
            write.emit(.serverKeyRevoked(keyID: id))
        }
    }

    public func markSignatureSeen(_ id: String, expiresAt: Int64, now: Int64) async throws -> Bool {
        try await writeUnpositioned { connection in
            try await connection.run("DELETE FROM seen_signatures WHERE expires_at < \(now)", logger: self.logger)
            return try await connection.count(
                "INSERT INTO seen_signatures (id, expires_at) VALUES (\(id), \(expiresAt)) ON CONFLICT (id) DO NOTHING RETURNING 1",
                logger: self.logger
            ) == 1
        }
    }
}
