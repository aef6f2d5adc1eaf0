/// Server-to-server keys and the signatures already seen, written once over any backend's tables (``SQLTables``).
extension ServerKeyStore where Self: SQLTables {
    public func createServerKey(_ key: ServerKey) async throws {
        try await transaction([
            """
            INSERT INTO server_keys (id, container_id, public_key, role, created_at) VALUES (\(.text(key.id)), \(.text(key.containerID)), \
            \(.text(key.publicKeyPEM)), \(SQLValue(key.role)), \(.integer(key.createdAt)))
            """,
        ])
    }

    public func serverKeys(containerID: String) async throws -> [ServerKey] {
        try await serverKeys(where: "container_id = \(.text(containerID)) AND revoked = \(.bool(false)) ORDER BY created_at, id")
    }

    public func serverKey(id: String) async throws -> ServerKey? {
        try await serverKeys(where: "id = \(.text(id)) AND revoked = \(.bool(false))").first
    }

    private func serverKeys(where condition: SQLFragment) async throws -> [ServerKey] {
        try await rows("SELECT id, container_id, public_key, role, created_at FROM server_keys WHERE \(condition)").map { row in
            ServerKey(
                id: try row.text("id"), containerID: try row.text("container_id"), publicKeyPEM: try row.text("public_key"),
                role: try row.optionalText("role"), createdAt: try row.integer("created_at")
            )
        }
    }

    public func revokeServerKey(id: String, containerID: String) async throws {
        try await transaction(
            [
                """
                UPDATE server_keys SET revoked = \(.bool(true)) WHERE id = \(.text(id)) AND container_id = \(.text(containerID)) \
                AND revoked = \(.bool(false)) RETURNING 1 AS revoked
                """,
            ],
            then: { results in
                guard !results[0].isEmpty else { throw StorageError.noSuchServerKey }
                return [.serverKeyRevoked(keyID: id)]
            }
        )
    }

    public func markSignatureSeen(_ id: String, expiresAt: Int64, now: Int64) async throws -> Bool {
        let results = try await execute([
            "DELETE FROM seen_signatures WHERE expires_at < \(.integer(now))",
            "INSERT INTO seen_signatures (id, expires_at) VALUES (\(.text(id)), \(.integer(expiresAt))) ON CONFLICT (id) DO NOTHING RETURNING 1 AS seen",
        ])
        return results[1].count == 1
    }
}
