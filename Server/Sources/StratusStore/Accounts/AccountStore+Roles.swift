import StratusModel

/// Storage for the custom roles assigned to users, per container environment.
public protocol RoleStore: Sendable {
    /// The custom roles assigned to a user in a container environment.
    func roles(containerID: String, environment: Environment, userRecordName: String) async throws -> Set<String>
    /// Replaces the custom roles assigned to a user in a container environment.
    func setRoles(_ roles: Set<String>, containerID: String, environment: Environment, userRecordName: String) async throws
}
