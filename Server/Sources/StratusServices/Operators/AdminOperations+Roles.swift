import StratusModel
import StratusStore

extension AdminOperations {
    /// The custom roles of a user in a container environment.
    /// - Throws: `NOT_FOUND` for an unknown container or user.
    public static func roles(of user: String, containerID: String, environment: Environment, store: any Store) async throws -> [String] {
        try await requireUser(user, containerID: containerID, store: store)
        return try await store.roles(containerID: containerID, environment: environment, userRecordName: user).sorted()
    }

    /// Assigns custom roles to a user in a container environment, replacing the ones assigned before.
    /// - Throws: `BAD_REQUEST` for a built-in role or a role the environment's schema does not define;
    ///   `NOT_FOUND` for an unknown container or user.
    public static func setRoles(_ roles: [String], of user: String, containerID: String, environment: Environment, store: any Store) async throws -> [String] {
        try await requireUser(user, containerID: containerID, store: store)
        let defined = try await store.schema(containerID: containerID, environment: environment).roles
        for role in roles {
            if Role.builtIn.contains(role) {
                throw ServiceError.invalidArgument("\(role) is a built-in role; it cannot be assigned")
            }
            guard defined.contains(role) else {
                throw ServiceError.invalidArgument("role \(role) is not defined in the \(environment.rawValue) schema; add CREATE ROLE \(role);")
            }
        }
        try await store.setRoles(Set(roles), containerID: containerID, environment: environment, userRecordName: user)
        return Set(roles).sorted()
    }

    private static func requireUser(_ user: String, containerID: String, store: any Store) async throws {
        guard try await store.container(id: containerID) != nil else {
            throw ServiceError(.notFound, "container \(containerID) does not exist")
        }
        guard try await store.account(containerID: containerID, userRecordName: user) != nil else {
            throw ServiceError(.notFound, "user \(user) does not exist in \(containerID)")
        }
    }
}
