import Foundation
import PostgresNIO
import StratusModel
import StratusStore

extension PostgresStore: RoleStore {
    public func roles(containerID: String, environment: Environment, userRecordName: String) async throws -> Set<String> {
        let text = try await read { connection in
            try await connection.all(
                """
                SELECT roles FROM user_roles
                WHERE container_id = \(containerID) AND environment = \(environment.rawValue) AND user_record_name = \(userRecordName)
                """,
                as: String.self, logger: self.logger
            ).first
        }
        guard let text else { return [] }
        return Set(try JSONDecoder().decode([String].self, from: Data(text.utf8)))
    }

    public func setRoles(_ roles: Set<String>, containerID: String, environment: Environment, userRecordName: String) async throws {
        let text = String(decoding: try JSONEncoder().encode(roles.sorted()), as: UTF8.self)
        try await write { write in
            try await write.connection.run(
                """
                INSERT INTO user_roles (container_id, environment, user_record_name, roles)
                VALUES (\(containerID), \(environment.rawValue), \(userRecordName), \(text))
                ON CONFLICT (container_id, environment, user_record_name) DO UPDATE SET roles = excluded.roles
                """,
                logger: write.logger
            )
            write.emit(.rolesChanged(containerID: containerID, environment: environment, userRecordName: userRecordName))
        }
    }
}
