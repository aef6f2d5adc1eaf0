import StratusModel

extension AccountStore {
    /// Creates an account that signs in with a password or mailed codes (no passkey yet).
    public func createAccount(_ account: Account) async throws {
        try await createAccount(account, passkey: nil, identity: nil)
    }

    /// Creates an account whose way in is a passkey.
    public func createAccount(_ account: Account, passkey: Passkey?) async throws {
        try await createAccount(account, passkey: passkey, identity: nil)
    }
}

/// Passkeys and their single-use challenges, written once over any backend's tables (``SQLTables``).
extension AccountStore where Self: SQLTables {
    public func createPasskeyChallenge(_ challenge: PasskeyChallenge) async throws {
        try await execute([
            "DELETE FROM passkey_challenges WHERE expires_at < \(.integer(challenge.createdAt))",
            """
            INSERT INTO passkey_challenges (challenge, container_id, purpose, user_record_name, details, created_at, expires_at)
            VALUES (\(.text(challenge.challenge)), \(.text(challenge.containerID)), \(.text(challenge.purpose.rawValue)), \
            \(SQLValue(challenge.userRecordName)), \(SQLValue(challenge.details)), \(.integer(challenge.createdAt)), \(.integer(challenge.expiresAt)))
            """,
        ])
    }

    public func redeemPasskeyChallenge(_ challenge: String, containerID: String, now: Int64) async throws -> PasskeyChallenge? {
        let rows = try await transaction { transaction in
            try await transaction.rows("""
                DELETE FROM passkey_challenges WHERE challenge = \(.text(challenge)) AND container_id = \(.text(containerID)) \
                AND expires_at >= \(.integer(now))
                RETURNING challenge, container_id, purpose, user_record_name, details, created_at, expires_at
                """)
        }
        return try rows.first.flatMap { row in
            guard let purpose = PasskeyChallenge.Purpose(rawValue: try row.text("purpose")) else { return nil }
            return PasskeyChallenge(
                challenge: try row.text("challenge"), containerID: try row.text("container_id"), purpose: purpose,
                userRecordName: try row.optionalText("user_record_name"), details: try row.optionalText("details"),
                createdAt: try row.integer("created_at"), expiresAt: try row.integer("expires_at")
            )
        }
    }

    public func addPasskey(_ passkey: Passkey) async throws {
        try await transaction { transaction in
            try await Self.requireLiveAccount(containerID: passkey.containerID, userRecordName: passkey.userRecordName, in: transaction)
            try await Self.insert(passkey, in: transaction)
            try await Self.attach(containerID: passkey.containerID, userRecordName: passkey.userRecordName, in: transaction)
        }
    }

    /// Inserts a passkey's row.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the credential is registered already in the container.
    static func insert(_ passkey: Passkey, in transaction: any SQLTransaction) async throws {
        let inserted = try await transaction.rows("""
            INSERT INTO passkeys (container_id, credential_id, user_record_name, public_key, sign_count, name, backed_up, created_at, last_used_at)
            VALUES (\(.text(passkey.containerID)), \(.text(passkey.credentialID)), \(.text(passkey.userRecordName)), \(.text(passkey.publicKey)), \
            \(.integer(passkey.signCount)), \(.text(passkey.name)), \(.bool(passkey.isBackedUp)), \(.integer(passkey.createdAt)), \
            \(SQLValue(passkey.lastUsedAt)))
            ON CONFLICT (container_id, credential_id) DO NOTHING RETURNING 1 AS inserted
            """)
        if inserted.isEmpty { throw StorageError(.alreadyExists, "this passkey is registered already") }
    }

    public func passkey(containerID: String, credentialID: String) async throws -> Passkey? {
        try await passkeys(where: "container_id = \(.text(containerID)) AND credential_id = \(.text(credentialID))").first
    }

    public func passkeys(containerID: String, userRecordName: String) async throws -> [Passkey] {
        try await passkeys(where: "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))")
    }

    private func passkeys(where condition: SQLFragment) async throws -> [Passkey] {
        try await rows("""
            SELECT container_id, credential_id, user_record_name, public_key, sign_count, name, backed_up, created_at, last_used_at
            FROM passkeys WHERE \(condition) ORDER BY created_at, credential_id
            """).map { row in
            Passkey(
                containerID: try row.text("container_id"), credentialID: try row.text("credential_id"),
                userRecordName: try row.text("user_record_name"), publicKey: try row.text("public_key"), signCount: try row.integer("sign_count"),
                name: try row.text("name"), isBackedUp: try row.bool("backed_up"), createdAt: try row.integer("created_at"),
                lastUsedAt: try row.optionalInteger("last_used_at")
            )
        }
    }

    public func usePasskey(containerID: String, credentialID: String, signCount: Int64, at time: Int64) async throws {
        try await transaction { transaction in
            let key: SQLFragment = "container_id = \(.text(containerID)) AND credential_id = \(.text(credentialID))"
            // A counter of 0 on both sides: the authenticator keeps none (synced passkeys); otherwise it must grow.
            let used = try await transaction.rows("""
                UPDATE passkeys SET sign_count = \(.integer(signCount)), last_used_at = \(.integer(time))
                WHERE \(key) AND (sign_count < \(.integer(signCount)) OR (sign_count = 0 AND \(.integer(signCount)) = 0))
                RETURNING 1 AS used
                """)
            guard used.isEmpty else { return }
            if try await transaction.rows("SELECT 1 AS found FROM passkeys WHERE \(key)").isEmpty {
                throw StorageError(.notFound, "this passkey is no longer registered")
            }
            throw StorageError(.conflict, "the passkey's signature counter went back: the authenticator may have been copied")
        }
    }

    public func removePasskey(containerID: String, userRecordName: String, credentialID: String) async throws {
        try await transaction(
            [
                """
                DELETE FROM passkeys WHERE container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) \
                AND credential_id = \(.text(credentialID)) RETURNING 1 AS removed
                """,
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "the account has no such passkey") }
                return []
            }
        )
    }
}
