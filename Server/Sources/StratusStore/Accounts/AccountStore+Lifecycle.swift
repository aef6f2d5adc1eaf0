import StratusModel

/// Settings, sessions, account changes and mailed codes, written once over any backend's tables (``SQLTables``).
extension AccountStore where Self: SQLTables {
    public func setAccountSettings(_ settings: AccountSettings, containerID: String) async throws {
        try await transaction(
            [
                """
                UPDATE containers SET account_settings = \(.text(settings.encoded)) WHERE id = \(.text(containerID)) RETURNING 1 AS updated
                """,
            ],
            then: { results in
                if results[0].count != 1 { throw StorageError.noSuchContainer(containerID) }
                return [.containerChanged(containerID: containerID)]
            }
        )
    }

    // MARK: - Sessions

    public func sessions(containerID: String, userRecordName: String, now: Int64) async throws -> [Session] {
        try await sessions(where: """
            container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) AND expires_at > \(.integer(now))
            """)
    }

    public func endSessions(containerID: String, userRecordName: String, keeping: String?) async throws -> [String] {
        try await transaction { transaction in
            try await Self.endSessions(containerID: containerID, userRecordName: userRecordName, keeping: keeping, in: transaction)
        }
    }

    /// Deletes an account's sessions but `keeping` and announces each ended one.
    static func endSessions(containerID: String, userRecordName: String, keeping: String?, in transaction: any SQLTransaction) async throws
        -> [String]
    {
        var condition: SQLFragment = "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))"
        if let keeping { condition = "\(condition) AND id <> \(.text(keeping))" }
        let ended = try await transaction.rows("DELETE FROM sessions WHERE \(condition) RETURNING id").map { try $0.text("id") }
        for id in ended { transaction.emit(.sessionEnded(sessionID: id)) }
        return ended
    }

    public func touchSession(id: String, at time: Int64) async throws {
        try await execute(["UPDATE sessions SET last_used_at = \(.integer(time)) WHERE id = \(.text(id)) AND last_used_at < \(.integer(time))"])
    }

    // MARK: - Changes

    public func changeAccount(containerID: String, userRecordName: String, change: AccountChange) async throws -> Account {
        try await transaction { transaction in
            try await Self.apply(change, containerID: containerID, userRecordName: userRecordName, in: transaction)
        }
    }

    /// Makes `change` in `transaction` and returns the account as changed.
    static func apply(_ change: AccountChange, containerID: String, userRecordName: String, in transaction: any SQLTransaction) async throws
        -> Account
    {
        let key: SQLFragment = "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))"
        var endsSessions = false
        var keeping: String?
        switch change {
        case .verifyEmail:
            try await transaction.rows("UPDATE accounts SET email_verified = \(.bool(true)) WHERE \(key)")
        case .unverifyEmail:
            try await transaction.rows("UPDATE accounts SET email_verified = \(.bool(false)) WHERE \(key)")
        case .password(let hash, let keepingSession):
            try await transaction.rows("UPDATE accounts SET password_hash = \(.text(hash)) WHERE \(key)")
            endsSessions = true
            keeping = keepingSession
        case .emailAddress(let address):
            let taken = try await transaction.rows("""
                SELECT 1 AS taken FROM accounts WHERE container_id = \(.text(containerID)) AND email = \(.text(address)) \
                AND user_record_name <> \(.text(userRecordName))
                """)
            if !taken.isEmpty { throw StorageError.accountExists }
            try await transaction.rows("UPDATE accounts SET email = \(.text(address)), email_verified = \(.bool(true)) WHERE \(key)")
        case .attachPassword(let address, let hash):
            let taken = try await transaction.rows("""
                SELECT 1 AS taken FROM accounts WHERE container_id = \(.text(containerID)) AND email = \(.text(address)) \
                AND user_record_name <> \(.text(userRecordName))
                """)
            if !taken.isEmpty { throw StorageError.accountExists }
            try await transaction.rows("""
                UPDATE accounts SET email = \(.text(address)), email_verified = \(.bool(false)), password_hash = \(.text(hash)), \
                anonymous = \(.bool(false)) WHERE \(key)
                """)
        case .disabled(let disabled):
            try await transaction.rows("UPDATE accounts SET disabled = \(.bool(disabled)) WHERE \(key)")
            endsSessions = disabled
        case .pendingTOTP(let sealed):
            try await transaction.rows("UPDATE accounts SET totp_secret = \(.text(sealed)), totp_enabled = \(.bool(false)) WHERE \(key)")
        case .enableTOTP(let hashes, let step):
            try await transaction.rows("""
                UPDATE accounts SET totp_enabled = \(.bool(true)), totp_last_step = \(.integer(step)), \
                recovery_codes = \(.text(SecondFactorState.encoded(hashes))) WHERE \(key) AND totp_secret IS NOT NULL
                """)
        case .disableTOTP:
            try await transaction.rows("""
                UPDATE accounts SET totp_secret = NULL, totp_enabled = \(.bool(false)), recovery_codes = '[]' WHERE \(key)
                """)
        case .useTOTPStep(let step):
            let used = try await transaction.rows("""
                UPDATE accounts SET totp_last_step = \(.integer(step)) WHERE \(key) AND totp_last_step < \(.integer(step)) RETURNING 1 AS used
                """)
            if used.isEmpty { throw StorageError(.conflict, "this code was used already; wait for the next one") }
        case .useRecoveryCode(let hash):
            guard let row = try await transaction.rows("SELECT recovery_codes FROM accounts WHERE \(key)").first else { break }
            let before = try row.text("recovery_codes")
            var hashes = SecondFactorState.hashes(decoding: before)
            guard let index = hashes.firstIndex(of: hash) else { throw StorageError(.notFound, "no such recovery code") }
            hashes.remove(at: index)
            let updated = try await transaction.rows("""
                UPDATE accounts SET recovery_codes = \(.text(SecondFactorState.encoded(hashes))) WHERE \(key) \
                AND recovery_codes = \(.text(before)) RETURNING 1 AS updated
                """)
            if updated.isEmpty { throw StorageError(.notFound, "no such recovery code") }
        case .removeSecondFactors:
            try await transaction.rows("""
                UPDATE accounts SET totp_secret = NULL, totp_enabled = \(.bool(false)), recovery_codes = '[]' WHERE \(key)
                """)
            try await transaction.rows("DELETE FROM passkeys WHERE \(key)")
            endsSessions = true
        case .none:
            break
        }
        guard let row = try await transaction.rows("SELECT \(accountColumns) FROM accounts WHERE \(key)").first else {
            throw StorageError.noSuchAccount
        }
        if endsSessions {
            _ = try await endSessions(containerID: containerID, userRecordName: userRecordName, keeping: keeping, in: transaction)
        }
        return try account(from: row)
    }

    // MARK: - Codes

    public func createAccountCode(_ code: AccountCode, mail: OutgoingMail) async throws {
        try await transaction(
            [
                "DELETE FROM account_codes WHERE expires_at < \(.integer(code.createdAt))",
                """
                DELETE FROM account_codes WHERE container_id = \(.text(code.containerID)) AND user_record_name = \(.text(code.userRecordName)) \
                AND purpose = \(.text(code.purpose.rawValue))
                """,
                """
                INSERT INTO account_codes (id, container_id, user_record_name, purpose, code_hash, link_hash, new_email, created_at, expires_at,
                    failed_attempts)
                VALUES (\(.text(code.id)), \(.text(code.containerID)), \(.text(code.userRecordName)), \(.text(code.purpose.rawValue)), \
                \(.text(code.codeHash)), \(.text(code.linkHash)), \(SQLValue(code.newEmailAddress)), \(.integer(code.createdAt)), \
                \(.integer(code.expiresAt)), 0)
                """,
            ] + MailStatements.queueing(mail, now: code.createdAt),
            emitting: [.mailQueued]
        )
    }

    public func accountCode(containerID: String, userRecordName: String, purpose: AccountCode.Purpose, now: Int64) async throws -> AccountCode? {
        try await accountCodes(where: """
            container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName)) AND purpose = \(.text(purpose.rawValue)) \
            AND expires_at >= \(.integer(now))
            """).first
    }

    public func accountCode(containerID: String, linkHash: String, now: Int64) async throws -> AccountCode? {
        try await accountCodes(where: """
            container_id = \(.text(containerID)) AND link_hash = \(.text(linkHash)) AND expires_at >= \(.integer(now))
            """).first
    }

    private func accountCodes(where condition: SQLFragment) async throws -> [AccountCode] {
        try await rows("""
            SELECT id, container_id, user_record_name, purpose, code_hash, link_hash, new_email, created_at, expires_at, failed_attempts
            FROM account_codes WHERE \(condition) ORDER BY created_at DESC
            """).compactMap { row in
            guard let purpose = AccountCode.Purpose(rawValue: try row.text("purpose")) else { return nil }
            return AccountCode(
                id: try row.text("id"), containerID: try row.text("container_id"), userRecordName: try row.text("user_record_name"),
                purpose: purpose, codeHash: try row.text("code_hash"), linkHash: try row.text("link_hash"),
                newEmailAddress: try row.optionalText("new_email"), createdAt: try row.integer("created_at"),
                expiresAt: try row.integer("expires_at"), failedAttempts: Int(try row.integer("failed_attempts"))
            )
        }
    }

    public func recordFailedCodeAttempt(id: String, limit: Int) async throws {
        try await execute([
            "UPDATE account_codes SET failed_attempts = failed_attempts + 1 WHERE id = \(.text(id))",
            "DELETE FROM account_codes WHERE id = \(.text(id)) AND failed_attempts >= \(.integer(Int64(limit)))",
        ])
    }

    public func redeemAccountCode(id: String, now: Int64, change: AccountChange) async throws -> Account {
        try await transaction { transaction in
            let redeemed = try await transaction.rows("""
                DELETE FROM account_codes WHERE id = \(.text(id)) AND expires_at >= \(.integer(now)) RETURNING container_id, user_record_name
                """)
            guard let row = redeemed.first else {
                throw StorageError(.notFound, "the code was used already, has expired, or was replaced by a newer one")
            }
            return try await Self.apply(
                change, containerID: try row.text("container_id"), userRecordName: try row.text("user_record_name"), in: transaction
            )
        }
    }
}
