import Foundation
import StratusModel

/// The deletion of an account, written once over any backend's tables (``SQLTables``); ``AccountDeletion`` runs
/// its steps in order.
extension AccountStore where Self: SQLTables {
    public func beginAccountDeletion(containerID: String, userRecordName: String) async throws -> Account {
        try await transaction { transaction in
            let key: SQLFragment = "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))"
            try await transaction.rows("""
                UPDATE accounts SET deleting = \(.bool(true)), disabled = \(.bool(true)), discoverable = \(.bool(false)) WHERE \(key)
                """)
            guard let row = try await transaction.rows("SELECT \(Self.accountColumns) FROM accounts WHERE \(key)").first else {
                throw StorageError.noSuchAccount
            }
            try await transaction.rows("DELETE FROM account_codes WHERE \(key)")
            try await transaction.rows("DELETE FROM passkey_challenges WHERE \(key)")
            _ = try await Self.endSessions(containerID: containerID, userRecordName: userRecordName, keeping: nil, in: transaction)
            return try Self.account(from: row)
        }
    }

    public func accountsBeingDeleted(limit: Int) async throws -> [Account] {
        try await rows("""
            SELECT \(Self.accountColumns) FROM accounts WHERE deleting = \(.bool(true)) ORDER BY created_at LIMIT \(.integer(Int64(limit)))
            """).map(Self.account(from:))
    }

    public func erasePrivateData(containerID: String, userRecordName: String, environment: Environment) async throws {
        try await transaction { transaction in
            let database = DatabaseRef.privateDatabase(containerID, environment, owner: userRecordName)
            // The private database: every zone with its records, index entries, references, asset holds and shares
            // (whose participants see the zones go).
            for row in try await transaction.read(ZoneTables.liveZones(in: database)) {
                try await ZoneTables.deleteZone(row, in: transaction)
            }
            let inEnvironment: SQLFragment = "container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue))"
            // Participation in other users' shares.
            try await transaction.rows("""
                UPDATE share_participants SET status = 'REMOVED', seq = \(.integer(try await transaction.position()))
                WHERE user_record_name = \(.text(userRecordName)) AND status != 'REMOVED'
                AND zone_id IN (SELECT id FROM zones WHERE \(inEnvironment))
                """)
            let removed = try await transaction.rows("""
                DELETE FROM subscriptions WHERE \(inEnvironment) AND owner = \(.text(userRecordName))
                RETURNING id, container_id, environment, scope, db_owner, owner
                """)
            for row in removed {
                transaction.emit(.subscriptionDeleted(database: try row.database(ownerColumn: "db_owner"), owner: userRecordName, id: try row.text("id")))
            }
            let mine: SQLFragment = "\(inEnvironment) AND user_record_name = \(.text(userRecordName))"
            try await transaction.rows("DELETE FROM push_devices WHERE \(mine)")
            try await transaction.rows("DELETE FROM push_tokens WHERE \(mine)")
            try await transaction.rows("DELETE FROM notifications WHERE \(inEnvironment) AND recipient = \(.text(userRecordName))")
            try await transaction.rows("""
                DELETE FROM user_roles WHERE \(inEnvironment) AND user_record_name = \(.text(userRecordName))
                """)
        }
    }

    public func publicRecordNames(createdBy userRecordName: String, containerID: String, environment: Environment, after: String?, limit: Int) async throws
        -> [String]
    {
        let start: SQLFragment = after.map { "AND r.name > \(.text($0))" } ?? ""
        return try await rows("""
            SELECT r.name FROM records r JOIN zones z ON z.id = r.zone_id
            WHERE z.container_id = \(.text(containerID)) AND z.environment = \(.text(environment.rawValue)) AND z.scope = 'public' \
            AND r.created_by = \(.text(userRecordName)) AND r.deleted = \(.bool(false)) \(start)
            ORDER BY r.name LIMIT \(.integer(Int64(limit)))
            """).map { try $0.text("name") }
    }

    public func finishAccountDeletion(containerID: String, userRecordName: String) async throws {
        let key: SQLFragment = "container_id = \(.text(containerID)) AND user_record_name = \(.text(userRecordName))"
        try await transaction { transaction in
            try await transaction.rows("DELETE FROM account_codes WHERE \(key)")
            let sessions = try await transaction.rows("DELETE FROM sessions WHERE \(key) RETURNING id")
            try await transaction.rows("DELETE FROM passkeys WHERE \(key)")
            try await transaction.rows("DELETE FROM passkey_challenges WHERE \(key)")
            try await transaction.rows(
                PendingRevocation.queueStatement(containerID: containerID, userRecordName: userRecordName, now: Int64(Date().timeIntervalSince1970 * 1000))
            )
            try await transaction.rows("DELETE FROM account_identities WHERE \(key)")
            let removed = try await transaction.rows("DELETE FROM accounts WHERE \(key) AND deleting = \(.bool(true)) RETURNING email")
            if let account = removed.first {
                try await WebhookTables.queueAccountEvent(
                    "account.deleted", containerID: containerID, userRecordName: userRecordName, emailAddress: try account.optionalText("email"),
                    in: transaction
                )
            }
            for session in sessions { transaction.emit(.sessionEnded(sessionID: try session.text("id"))) }
        }
    }
}
