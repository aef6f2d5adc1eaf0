import Foundation
import StratusModel

/// Containers, accounts, sessions, sign-in failures and secrets, written once over any backend's tables
/// (``SQLTables``).
extension AccountStore where Self: SQLTables {
    /// The account's row and, in each environment's public database, its `Users` record through the record engine,
    /// in one transaction.
    public func createAccount(_ account: Account, passkey: Passkey?, identity: AccountIdentity?) async throws {
        try await transaction { transaction in
            let inserted = try await transaction.rows("""
                INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number,
                    discoverable, email_verified, disabled, anonymous, created_at)
                VALUES (\(.text(account.containerID)), \(.text(account.userRecordName)), \(SQLValue(account.emailAddress)), \
                \(.text(account.passwordHash)), \(SQLValue(account.givenName)), \(SQLValue(account.familyName)), \(SQLValue(account.phoneNumber)), \
                \(.bool(account.isDiscoverable)), \(.bool(account.isEmailVerified)), \(.bool(account.isDisabled)), \(.bool(account.isAnonymous)), \
                \(.integer(account.createdAt)))
                ON CONFLICT DO NOTHING
                RETURNING user_record_name
                """)
            if inserted.isEmpty { throw StorageError.accountExists }
            for zone in RecordEngine.userRecordZones(of: account) {
                let row = try await ZoneTables.ensureZone(zone, in: transaction)
                let existing = try await transaction.rows("""
                    SELECT id FROM records WHERE zone_id = \(.integer(row.id)) AND name = \(.text(account.userRecordName))
                    """)
                let schema = try await transaction.schema(SchemaKey(containerID: account.containerID, environment: zone.database.environment))
                let first = try await transaction.positions(0)
                guard let plan = try RecordEngine.userRecord(
                    named: account.userRecordName, in: zone.database, existing: !existing.isEmpty, schema: schema,
                    timestamp: account.createdAt, sequence: first
                ) else { continue }
                _ = try await transaction.positions(plan.sequencesUsed)
                try await transaction.applyPlan(plan, in: row, caller: .anonymous)
            }
            if let passkey { try await Self.insert(passkey, in: transaction) }
            if let identity { try await Self.insert(identity, in: transaction) }
            try await WebhookTables.queueAccountEvent(
                "account.created", containerID: account.containerID, userRecordName: account.userRecordName, emailAddress: account.emailAddress,
                in: transaction
            )
        }
    }

    public func createContainer(_ container: ContainerInfo) async throws {
        try await transaction(
            [
                """
                INSERT INTO containers (id, api_token, created_at, account_settings) VALUES (\(.text(container.id)), \
                \(.text(container.apiToken)), \(.integer(container.createdAt)), \(.text(container.accountSettings.encoded)))
                ON CONFLICT (id) DO NOTHING RETURNING 1 AS inserted
                """,
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError.containerExists(container.id) }
                return []
            }
        )
    }

    public func container(id: String) async throws -> ContainerInfo? {
        try await rows("SELECT id, api_token, created_at, account_settings FROM containers WHERE id = \(.text(id))").map(Self.container(from:)).first
    }

    public func containers() async throws -> [ContainerInfo] {
        try await rows("SELECT id, api_token, created_at, account_settings FROM containers ORDER BY id").map(Self.container(from:))
    }

    private static func container(from row: SQLRow) throws -> ContainerInfo {
        ContainerInfo(
            id: try row.text("id"), apiToken: try row.text("api_token"), createdAt: try row.integer("created_at"),
            accountSettings: AccountSettings(encoded: try row.text("account_settings"))
        )
    }

    public func setAPIToken(_ apiToken: String, containerID: String) async throws {
        try await transaction(
            ["UPDATE containers SET api_token = \(.text(apiToken)) WHERE id = \(.text(containerID)) RETURNING 1 AS updated"],
            then: { results in
                if results[0].count != 1 { throw StorageError.noSuchContainer(containerID) }
                return [.containerChanged(containerID: containerID)]
            }
        )
    }

    // MARK: - Accounts

    public func account(containerID: String, emailAddress: String) async throws -> Account? {
        try await accounts(where: "container_id = \(.text(containerID)) AND email = \(.text(emailAddress))").first
    }

    public func account(containerID: String, userRecordName: String) async throws -> Account? {
        try await accounts(where: "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))").first
    }

    public func account(containerID: String, phoneNumber: String) async throws -> Account? {
        try await accounts(where: "container_id = \(.text(containerID)) AND phone_number = \(.text(phoneNumber))").first
    }

    public func accounts(containerID: String, matching search: String?, offset: Int, limit: Int) async throws -> [Account] {
        var condition: SQLFragment = "container_id = \(.text(containerID))"
        if let search, !search.isEmpty {
            let pattern = SQLValue.text("%" + Self.escapeLike(search.lowercased()) + "%")
            let columns = ["email", "lower(coalesce(given_name, ''))", "lower(coalesce(family_name, ''))", "lower(user_record_name)"]
            let matches = columns.map { column -> SQLFragment in "\(raw: column) LIKE \(pattern) ESCAPE '!'" }
            condition = "\(condition) AND (\(SQLFragment.joined(matches, separator: " OR ")))"
        }
        return try await accounts(where: "\(condition) ORDER BY email LIMIT \(raw: "\(max(0, limit))") OFFSET \(raw: "\(max(0, offset))")")
    }

    /// `text` with LIKE's wildcards and its escape character (`!`) escaped.
    static func escapeLike(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if character == "%" || character == "_" || character == "!" { escaped.append("!") }
            escaped.append(character)
        }
        return escaped
    }

    private func accounts(where condition: SQLFragment) async throws -> [Account] {
        try await rows("SELECT \(Self.accountColumns) FROM accounts WHERE \(condition)").map(Self.account(from:))
    }

    /// The columns ``account(from:)`` reads.
    static var accountColumns: SQLFragment {
        """
        container_id, user_record_name, email, password_hash, given_name, family_name, phone_number, discoverable, email_verified, \
        disabled, deleting, totp_secret, totp_enabled, totp_last_step, recovery_codes, anonymous, created_at, \
        (SELECT COUNT(*) FROM passkeys WHERE passkeys.container_id = accounts.container_id \
        AND passkeys.user_record_name = accounts.user_record_name) AS passkey_count
        """
    }

    static func account(from row: SQLRow) throws -> Account {
        Account(
            containerID: try row.text("container_id"), userRecordName: try row.text("user_record_name"), emailAddress: try row.optionalText("email"),
            passwordHash: try row.text("password_hash"), givenName: try row.optionalText("given_name"),
            familyName: try row.optionalText("family_name"), phoneNumber: try row.optionalText("phone_number"),
            isDiscoverable: try row.bool("discoverable"), isEmailVerified: try row.bool("email_verified"),
            isDisabled: try row.bool("disabled"), isBeingDeleted: try row.bool("deleting"),
            secondFactor: SecondFactorState(
                sealedTOTPSecret: try row.optionalText("totp_secret"), isTOTPEnabled: try row.bool("totp_enabled"),
                lastTOTPStep: try row.integer("totp_last_step"), recoveryCodeHashes: SecondFactorState.hashes(decoding: try row.text("recovery_codes"))
            ),
            passkeyCount: Int(try row.integer("passkey_count")), isAnonymous: try row.bool("anonymous"), createdAt: try row.integer("created_at")
        )
    }

    public func setDiscoverable(_ discoverable: Bool, containerID: String, userRecordName: String) async throws {
        try await transaction(
            [
                """
                UPDATE accounts SET discoverable = \(.bool(discoverable)) WHERE container_id = \(.text(containerID)) \
                AND user_record_name = \(.text(userRecordName)) RETURNING 1 AS updated
                """,
            ],
            then: { results in
                if results[0].count != 1 { throw StorageError.noSuchAccount }
                return []
            }
        )
    }

    // MARK: - Sessions

    public func createSession(_ session: Session) async throws {
        try await transaction([
            """
            INSERT INTO sessions (id, container_id, user_record_name, created_at, expires_at, device_name, last_used_at)
            VALUES (\(.text(session.id)), \(.text(session.containerID)), \(.text(session.userRecordName)), \(.integer(session.createdAt)), \
            \(.integer(session.expiresAt)), \(SQLValue(session.deviceName)), \(.integer(session.lastUsedAt)))
            """,
            // Expired sessions are swept as new ones arrive, so the table never grows without bound.
            "DELETE FROM sessions WHERE expires_at < \(.integer(session.createdAt))",
        ])
    }

    public func session(id: String) async throws -> Session? {
        try await sessions(where: "id = \(.text(id))").first
    }

    /// Sessions matching `condition`, newest first.
    func sessions(where condition: SQLFragment) async throws -> [Session] {
        try await rows("""
            SELECT id, container_id, user_record_name, created_at, expires_at, device_name, last_used_at FROM sessions
            WHERE \(condition) ORDER BY created_at DESC, id
            """).map { row in
            Session(
                id: try row.text("id"), containerID: try row.text("container_id"), userRecordName: try row.text("user_record_name"),
                createdAt: try row.integer("created_at"), expiresAt: try row.integer("expires_at"), deviceName: try row.optionalText("device_name"),
                lastUsedAt: try row.integer("last_used_at")
            )
        }
    }

    public func deleteSession(id: String) async throws {
        try await transaction(["DELETE FROM sessions WHERE id = \(.text(id))"], emitting: [.sessionEnded(sessionID: id)])
    }

    // MARK: - Sign-in failures

    public func recordSignInFailures(keys: [String], now: Int64, window: Int64) async throws {
        // Counters of every kind share the table, each with its own window: a count restarts once its own window
        // passed, and rows idle for a day (longer than any window) are swept.
        var statements: [SQLFragment] = ["DELETE FROM sign_in_failures WHERE last_at < \(.integer(now - max(window, 86_400_000)))"]
        for key in keys {
            statements.append("""
                INSERT INTO sign_in_failures (key, count, last_at) VALUES (\(.text(key)), 1, \(.integer(now)))
                ON CONFLICT (key) DO UPDATE SET count = CASE WHEN sign_in_failures.last_at < \(.integer(now - window)) THEN 1 \
                ELSE sign_in_failures.count + 1 END, last_at = excluded.last_at
                """)
        }
        try await execute(statements)
    }

    public func signInFailures(keys: [String], now: Int64, window: Int64) async throws -> [String: SignInFailures] {
        guard !keys.isEmpty else { return [:] }
        let rows = try await rows("""
            SELECT key, count, last_at FROM sign_in_failures WHERE key\(anyOf: keys.map { .text($0) }) AND last_at >= \(.integer(now - window))
            """)
        var found: [String: SignInFailures] = [:]
        for row in rows {
            found[try row.text("key")] = SignInFailures(count: Int(try row.integer("count")), lastAt: try row.integer("last_at"))
        }
        return found
    }

    public func forgetSignInFailures(key: String) async throws {
        try await execute(["DELETE FROM sign_in_failures WHERE key = \(.text(key))"])
    }

    // MARK: - Secrets

    public func secret(named name: String, makeSecret: @Sendable () -> Data) async throws -> Data {
        let candidate = makeSecret()
        let results = try await transaction([
            "INSERT INTO meta (key, value) VALUES (\(.text(name)), \(.bytes(Array(candidate)))) ON CONFLICT (key) DO NOTHING",
            "SELECT value FROM meta WHERE key = \(.text(name))",
        ])
        guard let row = results[1].first else { throw StorageError(.internalFailure, "a secret could not be stored") }
        return Data(try row.bytes("value"))
    }
}
