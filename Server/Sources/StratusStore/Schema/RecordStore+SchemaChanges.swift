import StratusModel

/// The outcome of a deploy: the changes, and whether they were applied.
public struct SchemaDeployment: Sendable {
    public var changes: [SchemaChange]
    public var deployed: Bool
}

/// The operator's schema changes, with CloudKit's rules, decided inside the transaction that makes them.
extension RecordStore {
    /// Changes a container's schemas in one transaction without counting records first.
    public func changeSchemas<T: Sendable>(
        containerID: String, _ change: @escaping @Sendable (_ development: inout Schema, _ production: inout Schema) throws -> T
    ) async throws -> T {
        try await changeSchemas(containerID: containerID, counting: { _, _ in [] }) { development, production, _ in
            try change(&development, &production)
        }
    }

    /// Replaces the development schema, and returns what changed.
    ///
    /// The built-in `Users` type is kept when `schema` leaves it out. Record types and fields the new schema
    /// lacks are removed with their records and values (``SchemaRemovals``), which only `force` allows when
    /// records hold them.
    /// - Throws: ``StorageError/Code/invalidArgument`` for a schema past the limits (``SchemaLimits``), or for
    ///   removing a record type or field that records hold (saying how many) without `force`.
    public func importDevelopmentSchema(_ schema: Schema, containerID: String, force: Bool) async throws -> [SchemaChange] {
        var imported = schema
        if imported.recordTypes[Schema.usersType] == nil {
            imported.recordTypes[Schema.usersType] = Schema.initial.recordTypes[Schema.usersType]
        }
        if let violation = SchemaLimits.violation(in: imported) {
            throw StorageError(.invalidArgument, violation)
        }
        let replacement = imported
        return try await changeSchemas(
            containerID: containerID,
            counting: { development, _ in force ? [] : Self.losses(SchemaChange.changes(from: development, to: replacement)) }
        ) { development, _, counts in
            let changes = SchemaChange.changes(from: development, to: replacement)
            if !force { try Self.refuseLosingRecords(changes, counts: counts) }
            development = replacement
            return changes
        }
    }

    /// The changes deploying the development schema would make to production.
    public func schemaDeploymentChanges(containerID: String) async throws -> [SchemaChange] {
        async let development = schema(containerID: containerID, environment: .development)
        async let production = schema(containerID: containerID, environment: .production)
        return SchemaChange.changes(from: try await production, to: try await development)
    }

    /// Copies the development schema to production when every change is additive: production never loses data.
    /// - Parameter dryRun: report the changes without applying them.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming each change that is not additive.
    public func deploySchema(containerID: String, dryRun: Bool) async throws -> SchemaDeployment {
        try await changeSchemas(containerID: containerID) { development, production in
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
            return SchemaDeployment(changes: changes, deployed: !dryRun)
        }
    }

    /// The counts that tell whether development changes lose records: one per record type or field removed.
    private static func losses(_ changes: [SchemaChange]) -> Set<RecordCountRequest> {
        Set(changes.compactMap { change in
            guard change.kind == .removeRecordType || change.kind == .removeField, let recordType = change.recordType else { return nil }
            return RecordCountRequest(environment: .development, recordType: recordType, field: change.kind == .removeField ? change.field : nil)
        })
    }

    /// Refuses removals of record types and fields that development records hold, naming each with its count.
    private static func refuseLosingRecords(_ changes: [SchemaChange], counts: [RecordCountRequest: Int]) throws(StorageError) {
        var losses: [String] = []
        for change in changes where change.kind == .removeRecordType || change.kind == .removeField {
            guard let recordType = change.recordType else { continue }
            let request = RecordCountRequest(environment: .development, recordType: recordType, field: change.kind == .removeField ? change.field : nil)
            guard let count = counts[request], count > 0 else { continue }
            let what = change.field.map { "field \(recordType).\($0)" } ?? "record type \(recordType)"
            losses.append("\(what), which \(count) record\(count == 1 ? "" : "s") hold\(count == 1 ? "s" : "")")
        }
        guard losses.isEmpty else {
            throw StorageError(
                .invalidArgument,
                "importing this schema would remove \(losses.joined(separator: ", and ")); import with force to remove them and their values"
            )
        }
    }
}
