import Foundation
import PostgresNIO
import StratusModel
import StratusStore

/// Containers, accounts, sessions and the server's secrets.
extension PostgresStore: AccountStore {
    public func createContainer(_ container: ContainerInfo) async throws {
        try await write { write in
            let inserted = try await write.connection.count(
                """
                INSERT INTO containers (id, api_token, created_at) VALUES (\(container.id), \(container.apiToken), \(container.createdAt))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """,
                logger: write.logger
            )
            if inserted == 0 { throw StorageError.containerExists(container.id) }
        }
    }

    public func container(id: String) async throws -> ContainerInfo? {
        try await containers(where: "WHERE id = $1", id).first
    }

    public func containers() async throws -> [ContainerInfo] {
        try await containers(where: "")
    }

    private func containers(where condition: String, _ arguments: String...) async throws -> [ContainerInfo] {
        var binds = PostgresBindings()
        for argument in arguments { binds.append(argument) }
        let query = PostgresQuery(unsafeSQL: "SELECT id, api_token, created_at FROM containers \(condition) ORDER BY id", binds: binds)
        return try await read { connection in
            var containers: [ContainerInfo] = []
            for try await (id, token, createdAt) in try await connection.query(query, logger: self.logger).decode((String, String, Int64).self) {
                containers.append(ContainerInfo(id: id, apiToken: token, createdAt: createdAt))
            }
            return containers
        }
    }

    public func setAPIToken(_ apiToken: String, containerID: String) async throws {
        try await write { write in
            let updated = try await write.connection.count(
                "UPDATE containers SET api_token = \(apiToken) WHERE id = \(containerID) RETURNING 1", logger: write.logger
            )
            guard updated == 1 else { throw StorageError.noSuchContainer(containerID) }
            write.emit(.containerChanged(containerID: containerID))
        }
    }

    public func createAccount(_ account: Account) async throws {
        try await writeRetryingConflicts { write in
            let inserted = try await write.connection.count(
                """
                INSERT INTO accounts (container_id, user_record_name, email, password_hash, given_name, family_name, phone_number,
                    discoverable, created_at)
                VALUES (\(account.containerID), \(account.userRecordName), \(account.emailAddress), \(account.passwordHash),
                    \(account.givenName), \(account.familyName), \(account.phoneNumber), \(account.isDiscoverable), \(account.createdAt))
                ON CONFLICT (container_id, email) DO NOTHING
                RETURNING 1
                """,
                logger: write.logger
            )
            if inserted == 0 { throw StorageError.accountExists }
            for zone in RecordEngine.userRecordZones(of: account) {
                let environment = zone.database.environment
                let zoneRow = try await Self.ensureZone(zone, write: write)
                let key = SchemaKey(containerID: account.containerID, environment: environment)
                let existing = try await write.connection.count(
                    "SELECT 1 FROM records WHERE zone_id = \(zoneRow.id) AND name = \(account.userRecordName)", logger: write.logger
                ) > 0
                guard let plan = try RecordEngine.userRecord(
                    named: account.userRecordName, in: zone.database, existing: existing, schema: try await write.schema(key, cache: self.schemas),
                    timestamp: account.createdAt, sequence: try await write.upcomingPosition()
                ) else { continue }
                _ = try await write.positions(plan.sequencesUsed)
                let loader = PostgresSnapshotLoader(connection: write.connection, logger: write.logger, zone: zoneRow, caller: .anonymous)
                try await PostgresPlanApplier(write: write, loader: loader).apply(plan)
                if let schema = plan.schema { write.setSchema(schema, for: key) }
            }
        }
    }

    public func account(containerID: String, emailAddress: String) async throws -> Account? {
        try await accounts("WHERE container_id = $1 AND email = $2", [containerID, emailAddress]).first
    }

    public func account(containerID: String, userRecordName: String) async throws -> Account? {
        try await accounts("WHERE container_id = $1 AND user_record_name = $2", [containerID, userRecordName]).first
    }

    public func account(containerID: String, phoneNumber: String) async throws -> Account? {
        try await accounts("WHERE container_id = $1 AND phone_number = $2", [containerID, phoneNumber]).first
    }

    public func accounts(containerID: String, matching search: String?, offset: Int, limit: Int) async throws -> [Account] {
        var condition = "WHERE container_id = $1"
        var arguments = [containerID]
        if let search, !search.isEmpty {
            arguments.append("%" + Self.escapeLike(search.lowercased()) + "%")
            let columns = ["email", "lower(coalesce(given_name, ''))", "lower(coalesce(family_name, ''))", "user_record_name"]
            condition += " AND (" + columns.map { "\($0) LIKE $2 ESCAPE '!'" }.joined(separator: " OR ") + ")"
        }
        condition += " ORDER BY email LIMIT \(max(0, limit)) OFFSET \(max(0, offset))"
        return try await accounts(condition, arguments)
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

    private func accounts(_ condition: String, _ arguments: [String]) async throws -> [Account] {
        var binds = PostgresBindings()
        for argument in arguments { binds.append(argument) }
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT container_id, user_record_name, email, password_hash, given_name, family_name, phone_number, discoverable, created_at
                FROM accounts \(condition)
                """,
            binds: binds
        )
        return try await read { connection in
            var accounts: [Account] = []
            let rows = try await connection.query(query, logger: self.logger)
                .decode((String, String, String, String, String?, String?, String?, Bool, Int64).self)
            for try await (container, user, email, hash, given, family, phone, discoverable, createdAt) in rows {
                accounts.append(Account(
                    containerID: container, userRecordName: user, emailAddress: email, passwordHash: hash, givenName: given,
                    familyName: family, phoneNumber: phone, isDiscoverable: discoverable, createdAt: createdAt
                ))
            }
            return accounts
        }
    }

    public func setDiscoverable(_ discoverable: Bool, containerID: String, userRecordName: String) async throws {
        try await write { write in
            let updated = try await write.connection.count(
                """
                UPDATE accounts SET discoverable = \(discoverable) WHERE container_id = \(containerID) AND user_record_name = \(userRecordName)
                RETURNING 1
                """,
                logger: write.logger
            )
            guard updated == 1 else { throw StorageError.noSuchAccount }
        }
    }

    public func createSession(_ session: Session) async throws {
        try await write { write in
            try await write.connection.run(
                """
                INSERT INTO sessions (id, container_id, user_record_name, created_at, expires_at)
                VALUES (\(session.id), \(session.containerID), \(session.userRecordName), \(session.createdAt), \(session.expiresAt))
                """,
                logger: write.logger
            )
            // Expired sessions are swept as new ones arrive, so the table never grows without bound.
            try await write.connection.run("DELETE FROM sessions WHERE expires_at < \(session.createdAt)", logger: write.logger)
        }
    }

    public func recordSignInFailures(keys: [String], now: Int64, window: Int64) async throws {
        let keys = Array(Set(keys))
        try await writeUnpositioned { connection in
            // Other keys' stale counts are swept as failures arrive, so the table never grows without bound.
            try await connection.run(
                """
                WITH swept AS (DELETE FROM sign_in_failures WHERE last_at < \(now - window) AND NOT (key = ANY(\(keys))))
                INSERT INTO sign_in_failures (key, count, last_at) SELECT k, 1, \(now) FROM unnest(\(keys)::text[]) AS k
                ON CONFLICT (key) DO UPDATE SET
                    count = CASE WHEN sign_in_failures.last_at < \(now - window) THEN 1 ELSE sign_in_failures.count + 1 END,
                    last_at = excluded.last_at
                """,
                logger: self.logger
            )
        }
    }

    public func signInFailures(keys: [String], now: Int64, window: Int64) async throws -> [String: SignInFailures] {
        try await read { connection in
            let rows = try await connection.rows(
                "SELECT key, count, last_at FROM sign_in_failures WHERE key = ANY(\(keys)) AND last_at >= \(now - window)",
                as: (String, Int64, Int64).self, logger: self.logger
            )
            return Dictionary(rows.map { ($0.0, SignInFailures(count: Int($0.1), lastAt: $0.2)) }) { first, _ in first }
        }
    }

    public func forgetSignInFailures(key: String) async throws {
        try await writeUnpositioned { connection in
            try await connection.run("DELETE FROM sign_in_failures WHERE key = \(key)", logger: self.logger)
        }
    }

    public func session(id: String) async throws -> Session? {
        try await read { connection in
            let rows = try await connection.query(
                "SELECT id, container_id, user_record_name, created_at, expires_at FROM sessions WHERE id = \(id)", logger: self.logger
            ).decode((String, String, String, Int64, Int64).self)
            for try await (id, container, user, createdAt, expiresAt) in rows {
                return Session(id: id, containerID: container, userRecordName: user, createdAt: createdAt, expiresAt: expiresAt)
            }
            return nil
        }
    }

    public func deleteSession(id: String) async throws {
        try await write { write in
            try await write.connection.run("DELETE FROM sessions WHERE id = \(id)", logger: write.logger)
            write.emit(.sessionEnded(sessionID: id))
        }
    }

    public func secret(named name: String, makeSecret: @Sendable () -> Data) async throws -> Data {
        let candidate = makeSecret()
        return try await write { write in
            try await write.connection.run(
                "INSERT INTO meta (key, value) VALUES (\(name), \(ByteBuffer(bytes: candidate))) ON CONFLICT (key) DO NOTHING", logger: write.logger
            )
            guard let value = try await write.connection.all("SELECT value FROM meta WHERE key = \(name)", as: ByteBuffer.self, logger: write.logger)
                .first
            else {
                throw StorageError(.internalFailure, "a secret could not be stored")
            }
            return Data(buffer: value)
        }
    }
}
