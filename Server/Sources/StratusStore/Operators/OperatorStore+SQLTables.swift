import Foundation
import StratusModel

/// Operators, their roles and the audit log, written once over any backend's tables (``SQLTables``).
extension OperatorStore where Self: SQLTables {
    /// The `meta` key the admin key's state is kept under, as JSON.
    static var adminKeyMetaKey: String { "admin_key" }

    public func adminKeyState() async throws -> AdminKeyState? {
        guard let row = try await rows("SELECT value FROM meta WHERE key = \(.text(Self.adminKeyMetaKey))").first else { return nil }
        do {
            return try JSONDecoder().decode(AdminKeyState.self, from: Data(try row.bytes("value")))
        } catch {
            throw StorageError(.internalFailure, "the stored admin key state is unreadable: \(error)")
        }
    }

    public func setAdminKeyState(_ state: AdminKeyState) async throws {
        let value = Array(try JSONEncoder().encode(state))
        try await transaction(
            ["INSERT INTO meta (key, value) VALUES (\(.text(Self.adminKeyMetaKey)), \(.bytes(value))) ON CONFLICT (key) DO UPDATE SET value = excluded.value"],
            emitting: [.adminKeyChanged]
        )
    }

    public func createOperator(_ account: OperatorAccount, roles: [String: OperatorRole]) async throws {
        try await transaction { transaction in
            let taken = try await transaction.rows("SELECT id FROM operators WHERE email = \(.text(account.emailAddress))")
            guard taken.isEmpty else { throw StorageError(.alreadyExists, "an operator with the address \(account.emailAddress) exists") }
            try await transaction.rows("""
                INSERT INTO operators (id, email, name, password_hash, totp_secret, totp_enabled, totp_last_step, administrator, disabled, created_at)
                VALUES (\(.text(account.id)), \(.text(account.emailAddress)), \(.text(account.name)), \(.text(account.passwordHash)), \
                \(SQLValue(account.sealedTOTPSecret)), \(.bool(account.isTOTPEnabled)), \(.integer(account.lastTOTPStep)), \
                \(.bool(account.isAdministrator)), \(.bool(account.isDisabled)), \(.integer(account.createdAt)))
                """)
            for (container, role) in roles {
                try await transaction.rows("""
                    INSERT INTO operator_roles (operator_id, container_id, role) VALUES (\(.text(account.id)), \(.text(container)), \(.text(role.rawValue)))
                    """)
            }
        }
    }

    public func operatorAccount(id: String) async throws -> OperatorAccount? {
        try await operators(where: "id = \(.text(id))").first
    }

    public func operatorAccount(emailAddress: String) async throws -> OperatorAccount? {
        try await operators(where: "email = \(.text(emailAddress.lowercased()))").first
    }

    public func operatorAccounts() async throws -> [OperatorAccount] {
        try await operators(where: "1 = 1")
    }

    private func operators(where condition: SQLFragment) async throws -> [OperatorAccount] {
        try await rows("""
            SELECT id, email, name, password_hash, totp_secret, totp_enabled, totp_last_step, administrator, disabled, created_at
            FROM operators WHERE \(condition) ORDER BY email
            """).map { row in
            OperatorAccount(
                id: try row.text("id"), emailAddress: try row.text("email"), name: try row.text("name"), passwordHash: try row.text("password_hash"),
                sealedTOTPSecret: try row.optionalText("totp_secret"), isTOTPEnabled: try row.bool("totp_enabled"),
                lastTOTPStep: try row.integer("totp_last_step"), isAdministrator: try row.bool("administrator"), isDisabled: try row.bool("disabled"),
                createdAt: try row.integer("created_at")
            )
        }
    }

    public func saveOperator(_ account: OperatorAccount) async throws {
        try await transaction(
            [
                """
                UPDATE operators SET email = \(.text(account.emailAddress)), name = \(.text(account.name)), password_hash = \(.text(account.passwordHash)), \
                totp_secret = \(SQLValue(account.sealedTOTPSecret)), totp_enabled = \(.bool(account.isTOTPEnabled)), \
                administrator = \(.bool(account.isAdministrator)), disabled = \(.bool(account.isDisabled)) WHERE id = \(.text(account.id)) RETURNING id
                """,
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "no operator \(account.id)") }
                return []
            }
        )
    }

    public func useOperatorTOTPStep(_ step: Int64, operatorID: String) async throws -> Bool {
        try await !execute([
            "UPDATE operators SET totp_last_step = \(.integer(step)) WHERE id = \(.text(operatorID)) AND totp_last_step < \(.integer(step)) RETURNING id",
        ])[0].isEmpty
    }

    public func deleteOperator(id: String) async throws {
        try await transaction(
            [
                "DELETE FROM operators WHERE id = \(.text(id)) RETURNING id",
                "DELETE FROM operator_roles WHERE operator_id = \(.text(id))",
            ],
            then: { results in
                if results[0].isEmpty { throw StorageError(.notFound, "no operator \(id)") }
                return []
            }
        )
    }

    public func operatorRoles(operatorID: String) async throws -> [String: OperatorRole] {
        var roles: [String: OperatorRole] = [:]
        for row in try await rows("SELECT container_id, role FROM operator_roles WHERE operator_id = \(.text(operatorID))") {
            if let role = OperatorRole(rawValue: try row.text("role")) { roles[try row.text("container_id")] = role }
        }
        return roles
    }

    public func setOperatorRoles(_ roles: [String: OperatorRole], operatorID: String) async throws {
        var statements: [SQLFragment] = ["DELETE FROM operator_roles WHERE operator_id = \(.text(operatorID))"]
        for (container, role) in roles.sorted(by: { $0.key < $1.key }) {
            statements.append("""
                INSERT INTO operator_roles (operator_id, container_id, role) VALUES (\(.text(operatorID)), \(.text(container)), \(.text(role.rawValue)))
                """)
        }
        try await transaction(statements)
    }

    public func appendAudit(_ entry: AuditEntry) async throws {
        try await execute(["""
            INSERT INTO audit_log (id, time, actor, container_id, action, status, address)
            VALUES (\(.text(entry.id)), \(.integer(entry.time)), \(.text(entry.actor)), \(SQLValue(entry.containerID)), \(.text(entry.action)), \
            \(.integer(Int64(entry.status))), \(.text(entry.address)))
            """])
    }

    public func auditLog(containerID: String?, actor: String?, beforeID: String?, limit: Int) async throws -> [AuditEntry] {
        var conditions: [SQLFragment] = ["1 = 1"]
        if let containerID { conditions.append("container_id = \(.text(containerID))") }
        if let actor { conditions.append("actor = \(.text(actor))") }
        if let beforeID { conditions.append("id < \(.text(beforeID))") }
        return try await rows("""
            SELECT id, time, actor, container_id, action, status, address FROM audit_log
            WHERE \(SQLFragment.joined(conditions, separator: " AND ")) ORDER BY id DESC LIMIT \(.integer(Int64(limit)))
            """).map { row in
            AuditEntry(
                id: try row.text("id"), time: try row.integer("time"), actor: try row.text("actor"), containerID: try row.optionalText("container_id"),
                action: try row.text("action"), status: Int(try row.integer("status")), address: try row.text("address")
            )
        }
    }
}
