import StratusModel
import StratusStore

extension AdminOperations {
    /// The outcome of a deploy: the changes, and whether they were applied.
    public struct Deployment: Sendable {
        public var changes: [SchemaChange]
        public var deployed: Bool
    }

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

    /// Replaces the development schema with the one `text` describes, and returns what changed.
    ///
    /// The built-in `Users` type is kept when the text leaves it out.
    /// - Parameter force: remove record types and fields even when records hold them.
    /// - Throws: `BAD_REQUEST` for text that does not parse (naming line and column), for production, whose
    ///   schema changes only by deploy, or for removing a type or field that records hold (saying how many)
    ///   without `force`; `NOT_FOUND` for an unknown container.
    public static func importSchema(
        _ text: String, containerID: String, environment: Environment, force: Bool = false, store: any Store
    ) async throws -> [SchemaChange] {
        guard environment == .development else {
            throw APIError.badRequest("the production schema changes only by deploying the development schema")
        }
        try await requireContainer(containerID, store: store)
        var schema = try SchemaLanguage.parse(text)
        if schema.recordTypes[Schema.usersType] == nil {
            schema.recordTypes[Schema.usersType] = Schema.initial.recordTypes[Schema.usersType]
        }
        if let violation = SchemaLimits.violation(in: schema) {
            throw APIError.badRequest(violation)
        }
        let imported = schema
        if !force {
            let current = try await store.schema(containerID: containerID, environment: .development)
            try await refuseLosingRecords(SchemaChange.changes(from: current, to: imported), containerID: containerID, store: store)
        }
        return try await store.changeSchemas(containerID: containerID) { development, _ in
            let changes = SchemaChange.changes(from: development, to: imported)
            development = imported
            return changes
        }
    }

    /// Refuses removals of record types and fields that development records hold, naming each with its count.
    private static func refuseLosingRecords(_ changes: [SchemaChange], containerID: String, store: any Store) async throws {
        var losses: [String] = []
        for change in changes where change.kind == .removeRecordType || change.kind == .removeField {
            guard let recordType = change.recordType else { continue }
            let count = try await store.recordCount(ofType: recordType, holding: change.field, containerID: containerID, environment: .development)
            guard count > 0 else { continue }
            let what = change.field.map { "field \(recordType).\($0)" } ?? "record type \(recordType)"
            losses.append("\(what), which \(count) record\(count == 1 ? "" : "s") hold\(count == 1 ? "s" : "")")
        }
        guard losses.isEmpty else {
            throw APIError.badRequest(
                "importing this schema would remove \(losses.joined(separator: ", and ")); import with force to remove them and their values"
            )
        }
    }

    /// The changes deploying the development schema would make to production.
    public static func schemaDiff(containerID: String, store: any Store) async throws -> [SchemaChange] {
        try await requireContainer(containerID, store: store)
        async let development = store.schema(containerID: containerID, environment: .development)
        async let production = store.schema(containerID: containerID, environment: .production)
        return SchemaChange.changes(from: try await production, to: try await development)
    }

    /// Copies the development schema to production when every change is additive.
    /// - Parameter dryRun: report the changes without applying them.
    /// - Throws: `BAD_REQUEST` naming each change that is not additive; `NOT_FOUND` for an unknown container.
    public static func deploy(containerID: String, dryRun: Bool, store: any Store) async throws -> Deployment {
        try await requireContainer(containerID, store: store)
        return try await store.changeSchemas(containerID: containerID) { development, production in
            let changes = SchemaChange.changes(from: production, to: development)
            let refused = changes.filter { !$0.isAdditive }
            guard refused.isEmpty else {
                throw StorageError(
                    .invalidArgument,
                    "the development schema cannot be deployed because production would lose data: "
                        + refused.map(\.description).joined(separator: "; ")
                )
            }
            if !dryRun { production = development }
            return Deployment(changes: changes, deployed: !dryRun)
        }
    }

    private static func requireContainer(_ containerID: String, store: any Store) async throws {
        guard try await store.container(id: containerID) != nil else {
            throw APIError(.notFound, "container \(containerID) does not exist")
        }
    }
}
