import Foundation
import StratusModel

/// Users' security roles, written once over any backend's tables (``SQLTables``): one row per user and
/// environment, the role names as a sorted JSON array.
extension RoleStore where Self: SQLTables {
    public func roles(containerID: String, environment: Environment, userRecordName: String) async throws -> Set<String> {
        let rows = try await rows("""
            SELECT roles FROM user_roles WHERE container_id = \(.text(containerID)) AND environment = \(.text(environment.rawValue)) \
            AND user_record_name = \(.text(userRecordName))
            """)
        guard let text = try rows.first?.text("roles") else { return [] }
        return Set(try JSONDecoder().decode([String].self, from: Data(text.utf8)))
    }

    public func setRoles(_ roles: Set<String>, containerID: String, environment: Environment, userRecordName: String) async throws {
        let text = String(decoding: try JSONEncoder().encode(roles.sorted()), as: UTF8.self)
        try await transaction(
            [
                """
                INSERT INTO user_roles (container_id, environment, user_record_name, roles) VALUES (\(.text(containerID)), \
                \(.text(environment.rawValue)), \(.text(userRecordName)), \(.text(text)))
                ON CONFLICT (container_id, environment, user_record_name) DO UPDATE SET roles = excluded.roles
                """,
            ],
            emitting: [.rolesChanged(containerID: containerID, environment: environment, userRecordName: userRecordName)]
        )
    }
}
