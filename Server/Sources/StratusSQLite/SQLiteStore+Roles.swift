import Foundation
import GRDB
import StratusModel
import StratusStore

extension SQLiteStore: RoleStore {
    public func roles(containerID: String, environment: Environment, userRecordName: String) async throws -> Set<String> {
        try await read { db in
            guard let text = try String.fetchOne(
                db, sql: "SELECT roles FROM user_roles WHERE container_id = ? AND environment = ? AND user_record_name = ?",
                arguments: [containerID, environment.rawValue, userRecordName]
            ) else { return [] }
            return Set(try JSONDecoder().decode([String].self, from: Data(text.utf8)))
        }
    }

    public func setRoles(_ roles: Set<String>, containerID: String, environment: Environment, userRecordName: String) async throws {
        let text = String(decoding: try JSONEncoder().encode(roles.sorted()), as: UTF8.self)
        try await write { batch in
            try batch.db.execute(
                sql: """
                    INSERT INTO user_roles (container_id, environment, user_record_name, roles) VALUES (?, ?, ?, ?)
                    ON CONFLICT (container_id, environment, user_record_name) DO UPDATE SET roles = excluded.roles
                    """,
                arguments: [containerID, environment.rawValue, userRecordName, text]
            )
            batch.emit(.rolesChanged(containerID: containerID, environment: environment, userRecordName: userRecordName))
        }
    }
}
