/// Containers' secrets and pending revocations, written once over any backend's tables (``SQLTables``).
extension SecretStore where Self: SQLTables {
    public func setContainerSecret(_ secret: ContainerSecret) async throws {
        try await execute(["""
            INSERT INTO container_secrets (container_id, name, sealed_value, updated_at)
            VALUES (\(.text(secret.containerID)), \(.text(secret.name)), \(.text(secret.sealedValue)), \(.integer(secret.updatedAt)))
            ON CONFLICT (container_id, name) DO UPDATE SET sealed_value = excluded.sealed_value, updated_at = excluded.updated_at
            """])
    }

    public func containerSecret(containerID: String, name: String) async throws -> ContainerSecret? {
        try await containerSecrets(where: "container_id = \(.text(containerID)) AND name = \(.text(name))").first
    }

    public func containerSecrets(containerID: String) async throws -> [ContainerSecret] {
        try await containerSecrets(where: "container_id = \(.text(containerID))")
    }

    private func containerSecrets(where condition: SQLFragment) async throws -> [ContainerSecret] {
        try await rows("SELECT container_id, name, sealed_value, updated_at FROM container_secrets WHERE \(condition) ORDER BY name").map { row in
            ContainerSecret(
                containerID: try row.text("container_id"), name: try row.text("name"), sealedValue: try row.text("sealed_value"),
                updatedAt: try row.integer("updated_at")
            )
        }
    }

    public func removeContainerSecret(containerID: String, name: String) async throws {
        try await transaction(
            ["DELETE FROM container_secrets WHERE container_id = \(.text(containerID)) AND name = \(.text(name)) RETURNING 1 AS removed"],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "the container has no secret named \(name)") }
                return []
            }
        )
    }

    public func dueRevocations(now: Int64, limit: Int) async throws -> [PendingRevocation] {
        try await revocations(where: "next_attempt_at <= \(.integer(now)) ORDER BY next_attempt_at, created_at LIMIT \(.integer(Int64(limit)))")
    }

    public func pendingRevocations(containerID: String) async throws -> [PendingRevocation] {
        try await revocations(where: "container_id = \(.text(containerID)) ORDER BY created_at, provider, subject")
    }

    private func revocations(where condition: SQLFragment) async throws -> [PendingRevocation] {
        try await rows("""
            SELECT container_id, provider, subject, sealed_token, attempts, next_attempt_at, last_error, created_at
            FROM pending_revocations WHERE \(condition)
            """).map { row in
            PendingRevocation(
                containerID: try row.text("container_id"), provider: try row.text("provider"), subject: try row.text("subject"),
                sealedToken: try row.text("sealed_token"), attempts: Int(try row.integer("attempts")),
                nextAttemptAt: try row.integer("next_attempt_at"), lastError: try row.optionalText("last_error"),
                createdAt: try row.integer("created_at")
            )
        }
    }

    public func finishRevocation(containerID: String, provider: String, subject: String) async throws {
        try await execute(["DELETE FROM pending_revocations WHERE \(Self.revocationKey(containerID, provider, subject))"])
    }

    public func postponeRevocation(containerID: String, provider: String, subject: String, until nextAttemptAt: Int64, error: String) async throws {
        try await execute(["""
            UPDATE pending_revocations SET attempts = attempts + 1, next_attempt_at = \(.integer(nextAttemptAt)), \
            last_error = \(.text(String(error.prefix(500))))
            WHERE \(Self.revocationKey(containerID, provider, subject))
            """])
    }

    private static func revocationKey(_ containerID: String, _ provider: String, _ subject: String) -> SQLFragment {
        "container_id = \(.text(containerID)) AND provider = \(.text(provider)) AND subject = \(.text(subject))"
    }

    public func sealedValues() async throws -> [SealedValue] {
        let results = try await transaction([
            "SELECT container_id, name, sealed_value FROM container_secrets ORDER BY container_id, name",
            """
            SELECT container_id, provider, subject, sealed_refresh_token FROM account_identities WHERE sealed_refresh_token IS NOT NULL \
            ORDER BY container_id, provider, subject
            """,
            "SELECT container_id, provider, subject, sealed_token FROM pending_revocations ORDER BY container_id, provider, subject",
        ])
        let secrets = try results[0].map { row in
            SealedValue(place: .containerSecret(containerID: try row.text("container_id"), name: try row.text("name")), value: try row.text("sealed_value"))
        }
        let tokens = try results[1].map { row in
            SealedValue(
                place: .refreshToken(containerID: try row.text("container_id"), provider: try row.text("provider"), subject: try row.text("subject")),
                value: try row.text("sealed_refresh_token")
            )
        }
        let revocations = try results[2].map { row in
            SealedValue(
                place: .pendingRevocation(containerID: try row.text("container_id"), provider: try row.text("provider"), subject: try row.text("subject")),
                value: try row.text("sealed_token")
            )
        }
        return secrets + tokens + revocations
    }

    public func replaceSealedValue(_ old: SealedValue, with newValue: String) async throws -> Bool {
        let statement: SQLFragment
        switch old.place {
        case .containerSecret(let containerID, let name):
            statement = """
                UPDATE container_secrets SET sealed_value = \(.text(newValue)) WHERE container_id = \(.text(containerID)) \
                AND name = \(.text(name)) AND sealed_value = \(.text(old.value)) RETURNING 1 AS replaced
                """
        case .refreshToken(let containerID, let provider, let subject):
            statement = """
                UPDATE account_identities SET sealed_refresh_token = \(.text(newValue)) WHERE \(Self.revocationKey(containerID, provider, subject)) \
                AND sealed_refresh_token = \(.text(old.value)) RETURNING 1 AS replaced
                """
        case .pendingRevocation(let containerID, let provider, let subject):
            statement = """
                UPDATE pending_revocations SET sealed_token = \(.text(newValue)) WHERE \(Self.revocationKey(containerID, provider, subject)) \
                AND sealed_token = \(.text(old.value)) RETURNING 1 AS replaced
                """
        }
        return try await !execute([statement])[0].isEmpty
    }
}

extension PendingRevocation {
    /// The statement that queues the revocation of every refresh token an account's identities hold: part of the
    /// account's deletion, before its identities go.
    static func queueStatement(containerID: String, userRecordName: String, now: Int64) -> SQLFragment {
        """
        INSERT INTO pending_revocations (container_id, provider, subject, sealed_token, attempts, next_attempt_at, created_at)
        SELECT container_id, provider, subject, sealed_refresh_token, 0, \(.integer(now)), \(.integer(now)) FROM account_identities
        WHERE container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) AND sealed_refresh_token IS NOT NULL
        ON CONFLICT (container_id, provider, subject) DO UPDATE SET sealed_token = excluded.sealed_token
        """
    }
}
