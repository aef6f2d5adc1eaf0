import Foundation
import StratusModel

/// Provider identities and anonymous accounts, written once over any backend's tables (``SQLTables``).
extension AccountStore where Self: SQLTables {
    public func identity(containerID: String, provider: String, subject: String) async throws -> AccountIdentity? {
        try await identities(where: """
            container_id = \(.text(containerID)) AND provider = \(.text(provider)) AND subject = \(.text(subject))
            """).first
    }

    public func identities(containerID: String, userRecordName: String) async throws -> [AccountIdentity] {
        try await identities(where: "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))")
    }

    private func identities(where condition: SQLFragment) async throws -> [AccountIdentity] {
        try await rows("""
            SELECT container_id, provider, subject, user_record_name, email, email_verified, private_email, sealed_refresh_token, created_at,
                last_used_at
            FROM account_identities WHERE \(condition) ORDER BY created_at, provider, subject
            """).map { row in
            AccountIdentity(
                containerID: try row.text("container_id"), provider: try row.text("provider"), subject: try row.text("subject"),
                userRecordName: try row.text("user_record_name"), emailAddress: try row.optionalText("email"),
                isEmailVerified: try row.bool("email_verified"), isPrivateEmail: try row.bool("private_email"),
                sealedRefreshToken: try row.optionalText("sealed_refresh_token"), createdAt: try row.integer("created_at"),
                lastUsedAt: try row.optionalInteger("last_used_at")
            )
        }
    }

    public func addIdentity(_ identity: AccountIdentity) async throws {
        try await transaction { transaction in
            try await Self.requireLiveAccount(containerID: identity.containerID, userRecordName: identity.userRecordName, in: transaction)
            try await Self.insert(identity, in: transaction)
            try await Self.attach(containerID: identity.containerID, userRecordName: identity.userRecordName, in: transaction)
        }
    }

    /// Inserts an identity's row.
    /// - Throws: ``StorageError/Code/alreadyExists`` when the provider's user has an account in the container already.
    static func insert(_ identity: AccountIdentity, in transaction: any SQLTransaction) async throws {
        let inserted = try await transaction.rows("""
            INSERT INTO account_identities (container_id, provider, subject, user_record_name, email, email_verified, private_email,
                sealed_refresh_token, created_at, last_used_at)
            VALUES (\(.text(identity.containerID)), \(.text(identity.provider)), \(.text(identity.subject)), \(.text(identity.userRecordName)), \
            \(SQLValue(identity.emailAddress)), \(.bool(identity.isEmailVerified)), \(.bool(identity.isPrivateEmail)), \
            \(SQLValue(identity.sealedRefreshToken)), \(.integer(identity.createdAt)), \(SQLValue(identity.lastUsedAt)))
            ON CONFLICT (container_id, provider, subject) DO NOTHING RETURNING 1 AS inserted
            """)
        if inserted.isEmpty { throw StorageError(.alreadyExists, "this \(identity.provider) account is linked to an account already") }
    }

    /// Refuses (``StorageError/Code/notFound``) an account that does not exist or is being deleted.
    static func requireLiveAccount(containerID: String, userRecordName: String, in transaction: any SQLTransaction) async throws {
        let owner = try await transaction.rows("""
            SELECT 1 AS found FROM accounts WHERE container_id = \(.text(containerID)) \
            AND user_record_name = \(.text(userRecordName)) AND deleting = \(.bool(false))
            """)
        if owner.isEmpty { throw StorageError.noSuchAccount }
    }

    /// Marks an account as no longer anonymous: something now leads to it besides its sessions.
    static func attach(containerID: String, userRecordName: String, in transaction: any SQLTransaction) async throws {
        try await transaction.rows("""
            UPDATE accounts SET anonymous = \(.bool(false)) WHERE container_id = \(.text(containerID)) \
            AND user_record_name = \(.text(userRecordName)) AND anonymous = \(.bool(true))
            """)
    }

    public func updateIdentity(_ identity: AccountIdentity) async throws {
        try await execute(["""
            UPDATE account_identities SET email = \(SQLValue(identity.emailAddress)), email_verified = \(.bool(identity.isEmailVerified)), \
            private_email = \(.bool(identity.isPrivateEmail)), sealed_refresh_token = \(SQLValue(identity.sealedRefreshToken)), \
            last_used_at = \(SQLValue(identity.lastUsedAt))
            WHERE container_id = \(.text(identity.containerID)) AND provider = \(.text(identity.provider)) AND subject = \(.text(identity.subject))
            """])
    }

    public func removeIdentity(containerID: String, userRecordName: String, provider: String, subject: String) async throws {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await transaction(
            [
                """
                INSERT INTO pending_revocations (container_id, provider, subject, sealed_token, attempts, next_attempt_at, created_at)
                SELECT container_id, provider, subject, sealed_refresh_token, 0, \(.integer(now)), \(.integer(now)) FROM account_identities
                WHERE container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) AND provider = \(.text(provider)) \
                AND subject = \(.text(subject)) AND sealed_refresh_token IS NOT NULL
                ON CONFLICT (container_id, provider, subject) DO UPDATE SET sealed_token = excluded.sealed_token
                """,
                """
                DELETE FROM account_identities WHERE container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) \
                AND provider = \(.text(provider)) AND subject = \(.text(subject)) RETURNING 1 AS removed
                """,
            ],
            then: { results in
                if results[1].isEmpty { throw StorageError(.notFound, "the account has no such \(provider) identity") }
                return []
            }
        )
    }

    public func signInMethodCounts(containerID: String) async throws -> [String: Int] {
        let container: SQLFragment = "container_id = \(.text(containerID))"
        let live: SQLFragment = "deleting = \(.bool(false))"
        let results = try await transaction([
            "SELECT provider, COUNT(*) AS users FROM account_identities WHERE \(container) GROUP BY provider",
            "SELECT COUNT(*) AS users FROM accounts WHERE \(container) AND password_hash <> '' AND \(live)",
            "SELECT COUNT(DISTINCT user_record_name) AS users FROM passkeys WHERE \(container)",
            "SELECT COUNT(*) AS users FROM accounts WHERE \(container) AND anonymous = \(.bool(true)) AND \(live)",
        ])
        var counts: [String: Int] = [:]
        for row in results[0] { counts[try row.text("provider")] = Int(try row.integer("users")) }
        for (index, method) in [(1, "password"), (2, "passkey"), (3, "anonymous")] {
            counts[method] = Int(try results[index].first?.integer("users") ?? 0)
        }
        return counts.filter { $0.value > 0 }
    }

    public func anonymousAccounts(containerID: String, inactiveSince time: Int64, limit: Int) async throws -> [Account] {
        try await rows("""
            SELECT \(Self.accountColumns) FROM accounts
            WHERE container_id = \(.text(containerID)) AND anonymous = \(.bool(true)) AND deleting = \(.bool(false)) \
            AND created_at < \(.integer(time)) AND NOT EXISTS (
                SELECT 1 FROM sessions WHERE sessions.container_id = accounts.container_id \
                AND sessions.user_record_name = accounts.user_record_name AND sessions.last_used_at >= \(.integer(time)))
            ORDER BY created_at LIMIT \(.integer(Int64(limit)))
            """).map(Self.account(from:))
    }
}
