import Foundation
import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: AccountStore {
    public func createContainer(_ container: ContainerInfo) async throws {
        try await write { batch in
            let exists = try Bool.fetchOne(batch.db, sql: "SELECT 1 FROM containers WHERE id = ?", arguments: [container.id]) ?? false
            if exists { throw StorageError.containerExists(container.id) }
            try batch.db.execute(
                sql: "INSERT INTO containers (id, api_token, created_at) VALUES (?, ?, ?)",
                arguments: [container.id, container.apiToken, container.createdAt]
            )
        }
    }

    public func container(id: String) async throws -> ContainerInfo? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT id, api_token, created_at FROM containers WHERE id = ?", arguments: [id])
                .map(Self.container(from:))
        }
    }

    public func containers() async throws -> [ContainerInfo] {
        try await read { db in
            try Row.fetchAll(db, sql: "SELECT id, api_token, created_at FROM containers ORDER BY id").map(Self.container(from:))
        }
    }

    private static func container(from row: Row) -> ContainerInfo {
        ContainerInfo(id: row[0], apiToken: row[1], createdAt: row[2])
    }

    public func createAccount(_ account: Account) async throws {
        try await write { batch in
            let db = batch.db
            let taken = try Bool.fetchOne(
                db, sql: "SELECT 1 FROM accounts WHERE container_id = ? AND email = ?",
                arguments: [account.containerID, account.emailAddress]
            ) ?? false
            if taken { throw StorageError.accountExists }
            try db.execute(
                sql: """
                    INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number,
                        discoverable, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    account.containerID, account.userRecordName, account.emailAddress, account.passwordHash,
                    account.givenName, account.familyName, account.phoneNumber, account.isDiscoverable, account.createdAt,
                ]
            )
            for zone in RecordEngine.userRecordZones(of: account) {
                let environment = zone.database.environment
                let zoneRow = try self.ensureZone(zone, db: db)
                let key = SchemaKey(containerID: account.containerID, environment: environment)
                let existing = try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT 1 FROM records WHERE zone_id = ? AND name = ?"), arguments: [zoneRow.id, account.userRecordName]
                ) ?? false
                guard let plan = try RecordEngine.userRecord(
                    named: account.userRecordName, in: zone.database, existing: existing, schema: try batch.schema(key),
                    timestamp: account.createdAt, sequence: self.sequence.upcoming()
                ) else { continue }
                self.sequence.advance(by: plan.sequencesUsed)
                var applier = PlanApplier(db: db, loader: SnapshotLoader(db: db, zone: zoneRow, caller: .anonymous))
                try applier.apply(plan)
                if let schema = plan.schema { batch.schemas[key] = schema }
            }
        }
    }

    public func account(containerID: String, emailAddress: String) async throws -> Account? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM accounts WHERE container_id = ? AND email = ?", arguments: [containerID, emailAddress]
            ).map(Self.account(from:))
        }
    }

    public func account(containerID: String, userRecordName: String) async throws -> Account? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM accounts WHERE container_id = ? AND user_record_name = ?",
                arguments: [containerID, userRecordName]
            ).map(Self.account(from:))
        }
    }

    static func account(from row: Row) -> Account {
        Account(
            containerID: row["container_id"], userRecordName: row["user_record_name"], emailAddress: row["email"],
            passwordHash: row["password_hash"], givenName: row["given_name"], familyName: row["family_name"],
            phoneNumber: row["phone_number"], isDiscoverable: row["discoverable"], createdAt: row["created_at"]
        )
    }

    public func account(containerID: String, phoneNumber: String) async throws -> Account? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM accounts WHERE container_id = ? AND phone_number = ?", arguments: [containerID, phoneNumber]
            ).map(Self.account(from:))
        }
    }

    public func setDiscoverable(_ discoverable: Bool, containerID: String, userRecordName: String) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "UPDATE accounts SET discoverable = ? WHERE container_id = ? AND user_record_name = ?",
                arguments: [discoverable, containerID, userRecordName]
            )
            guard batch.db.changesCount == 1 else { throw StorageError.noSuchAccount }
        }
    }

    public func createSession(_ session: Session) async throws {
        try await write { batch in
            try batch.db.execute(
                sql: "INSERT INTO sessions (id, container_id, user_record_name, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [session.id, session.containerID, session.userRecordName, session.createdAt, session.expiresAt]
            )
            // Expired sessions are swept as new ones arrive, so the table never grows without bound.
            try batch.db.execute(sql: "DELETE FROM sessions WHERE expires_at < ?", arguments: [session.createdAt])
        }
    }

    public func session(id: String) async throws -> Session? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM sessions WHERE id = ?", arguments: [id]).map { row in
                Session(
                    id: row["id"], containerID: row["container_id"], userRecordName: row["user_record_name"],
                    createdAt: row["created_at"], expiresAt: row["expires_at"]
                )
            }
        }
    }

    public func deleteSession(id: String) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM sessions WHERE id = ?", arguments: [id])
            batch.emit(.sessionEnded(sessionID: id))
        }
    }

    public func recordSignInFailures(keys: [String], now: Int64, window: Int64) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM sign_in_failures WHERE last_at < ?", arguments: [now - window])
            for key in keys {
                try batch.db.execute(
                    sql: """
                        INSERT INTO sign_in_failures (key, count, last_at) VALUES (?, 1, ?)
                        ON CONFLICT (key) DO UPDATE SET count = count + 1, last_at = excluded.last_at
                        """,
                    arguments: [key, now]
                )
            }
        }
    }

    public func signInFailures(keys: [String], now: Int64, window: Int64) async throws -> [String: SignInFailures] {
        try await read { db in
            var found: [String: SignInFailures] = [:]
            for key in keys {
                if let row = try Row.fetchOne(
                    db, sql: "SELECT count, last_at FROM sign_in_failures WHERE key = ? AND last_at >= ?", arguments: [key, now - window]
                ) {
                    found[key] = SignInFailures(count: row[0], lastAt: row[1])
                }
            }
            return found
        }
    }

    public func forgetSignInFailures(key: String) async throws {
        try await write { batch in
            try batch.db.execute(sql: "DELETE FROM sign_in_failures WHERE key = ?", arguments: [key])
        }
    }

    public func secret(named name: String, makeSecret: @Sendable () -> Data) async throws -> Data {
        let candidate = makeSecret()
        return try await write { batch in
            try batch.db.execute(sql: "INSERT OR IGNORE INTO meta (key, value) VALUES (?, ?)", arguments: [name, candidate])
            guard let value = try Data.fetchOne(batch.db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [name]) else {
                throw StorageError(.internalFailure, "a secret could not be stored")
            }
            return value
        }
    }
}
