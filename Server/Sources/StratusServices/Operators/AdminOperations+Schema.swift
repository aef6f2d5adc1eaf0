import StratusModel
import StratusStore

extension AdminOperations {
    /// An environment's schema as schema text.
    /// - Throws: `NOT_FOUND` for an unknown container.
    public static func schemaText(containerID: String, environment: Environment, store: any Store) async throws -> String {
        try await requireContainer(containerID, store: store)
        return SchemaLanguage.print(try await store.schema(containerID: containerID, environment: environment))
    }

    /// An environment's schema.
    /// - Throws: `NOT_FOUND` for an unknown container.
    public static func schema(containerID: String, environment: Environment, store: any Store) async throws -> Schema {
        try await requireContainer(containerID, store: store)
        return try await store.schema(containerID: containerID, environment: environment)
    }

    /// Replaces the development schema with the one `text` describes, and returns what changed (the store's
    /// ``RecordStore/importDevelopmentSchema(_:containerID:force:)`` decides, in the transaction that changes it).
    ///
    /// - Parameter force: remove record types and fields, with their records and values, even when records hold them.
    /// - Throws: `BAD_REQUEST` for text that does not parse (naming line and column), for production, whose
    ///   schema changes only by deploy, or for removing a type or field that records hold (saying how many)
    ///   without `force`; `NOT_FOUND` for an unknown container.
    public static func importSchema(
        _ text: String, containerID: String, environment: Environment, force: Bool = false, store: any Store
    ) async throws -> [SchemaChange] {
        guard environment == .development else {
            throw ServiceError.invalidArgument("the production schema changes only by deploying the development schema")
        }
        try await requireContainer(containerID, store: store)
        return try await store.importDevelopmentSchema(try SchemaLanguage.parse(text), containerID: containerID, force: force)
    }

    /// The changes deploying the development schema would make to production.
    public static func schemaDiff(containerID: String, store: any Store) async throws -> [SchemaChange] {
        try await requireContainer(containerID, store: store)
        return try await store.schemaDeploymentChanges(containerID: containerID)
    }

    /// Copies the development schema to production when every change is additive.
    /// - Parameter dryRun: report the changes without applying them.
    /// - Throws: `BAD_REQUEST` naming each change that is not additive; `NOT_FOUND` for an unknown container.
    public static func deploy(containerID: String, dryRun: Bool, store: any Store) async throws -> SchemaDeployment {
        try await requireContainer(containerID, store: store)
        return try await store.deploySchema(containerID: containerID, dryRun: dryRun)
    }

    private static func requireContainer(_ containerID: String, store: any Store) async throws {
        guard try await store.container(id: containerID) != nil else {
            throw ServiceError(.notFound, "container \(containerID) does not exist")
        }
    }
}
