import StratusModel

/// Push tokens, the devices APNs reaches, and the sweep of expired ones, written once over any backend's tables
/// (``SQLTables``). The outbox and the notifications are in NotificationQueue+SQLTables.swift.
extension NotificationStore where Self: SQLTables {
    public func savePushToken(_ token: PushToken) async throws {
        try await execute([
            """
            INSERT INTO push_tokens (token, container_id, environment, user_record_name, apns_environment, expires_at, cursor)
            VALUES (\(.text(token.token)), \(.text(token.containerID)), \(.text(token.environment.rawValue)), \(.text(token.user)), \
            \(.text(token.apnsEnvironment)), \(.integer(token.expiresAt)), \(.integer(token.cursor)))
            ON CONFLICT (token) DO UPDATE SET container_id = excluded.container_id, environment = excluded.environment,
                user_record_name = excluded.user_record_name, apns_environment = excluded.apns_environment,
                expires_at = excluded.expires_at, cursor = excluded.cursor
            """,
        ])
    }

    public func pushToken(_ token: String, now: Int64) async throws -> PushToken? {
        try await rows("""
            SELECT token, container_id, environment, user_record_name, apns_environment, expires_at, cursor FROM push_tokens
            WHERE token = \(.text(token)) AND expires_at > \(.integer(now))
            """).map { row in
            PushToken(
                token: try row.text("token"), containerID: try row.text("container_id"), environment: try row.environment(),
                user: try row.text("user_record_name"), apnsEnvironment: try row.text("apns_environment"),
                expiresAt: try row.integer("expires_at"), cursor: try row.integer("cursor")
            )
        }.first
    }

    public func savePushDevice(_ device: PushDevice) async throws {
        try await execute([
            """
            INSERT INTO push_devices (token, container_id, environment, user_record_name, apns_environment)
            VALUES (\(.text(device.token)), \(.text(device.containerID)), \(.text(device.environment.rawValue)), \(.text(device.user)), \
            \(.text(device.apnsEnvironment)))
            ON CONFLICT (token) DO UPDATE SET container_id = excluded.container_id, environment = excluded.environment,
                user_record_name = excluded.user_record_name, apns_environment = excluded.apns_environment
            """,
        ])
    }

    public func pushDevices(for user: String, containerID: String, environment: Environment) async throws -> [PushDevice] {
        try await rows("""
            SELECT token, container_id, environment, user_record_name, apns_environment FROM push_devices
            WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) AND user_record_name = \(.text(user))
            """).map { row in
            PushDevice(
                token: try row.text("token"), containerID: try row.text("container_id"), environment: try row.environment(),
                user: try row.text("user_record_name"), apnsEnvironment: try row.text("apns_environment")
            )
        }
    }

    public func deletePushDevice(token: String) async throws {
        try await execute(["DELETE FROM push_devices WHERE token = \(.text(token))"])
    }

    public func removeExpiredNotifications(now: Int64, createdBefore cutoff: Int64) async throws {
        try await execute([
            "DELETE FROM push_tokens WHERE expires_at <= \(.integer(now))",
            "DELETE FROM notifications WHERE created_at < \(.integer(cutoff))",
        ])
    }
}

extension SQLRow {
    /// The environment a row names in its `environment` column.
    public func environment() throws(StorageError) -> Environment {
        guard let environment = Environment(rawValue: try text("environment")) else {
            throw StorageError(.internalFailure, "a row names an unknown environment")
        }
        return environment
    }
}
