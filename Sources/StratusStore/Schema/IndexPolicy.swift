import StratusModel

/// Which indexes a query needs, as CloudKit requires them (`ckws-protocol.md` §4, §12): equality,
/// membership, prefix, list and location filters need `QUERYABLE`; ordering filters and sorts need
/// `SORTABLE`; token filters need `SEARCHABLE`; a query without filters needs `___recordID QUERYABLE`.
public enum IndexPolicy {
    /// One index a query needs.
    public struct Requirement: Sendable, Hashable {
        /// The field's schema name (`title`, or a system field such as `___createTime`).
        public var field: String
        public var index: FieldIndexes

        public var indexName: String {
            switch index {
            case .sortable: "SORTABLE"
            case .searchable: "SEARCHABLE"
            default: "QUERYABLE"
            }
        }
    }

    /// The indexes `query` needs.
    public static func requirements(of query: Query) -> [Requirement] {
        var requirements: [Requirement] = []
        if query.filters.isEmpty {
            requirements.append(Requirement(field: "___recordID", index: .queryable))
        }
        for filter in query.filters {
            let index: FieldIndexes
            switch filter.comparator {
            case .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals: index = .sortable
            case .containsAllTokens, .containsAnyTokens: index = .searchable
            default: index = .queryable
            }
            requirements.append(Requirement(field: schemaName(of: filter.field), index: index))
        }
        for sort in query.sort {
            requirements.append(Requirement(field: schemaName(of: sort.field), index: .sortable))
        }
        return requirements
    }

    /// The requirements `type` does not meet yet. Fields the type does not have are left out: they hold
    /// no values, so no index can help.
    public static func missing(_ requirements: [Requirement], in type: RecordTypeSchema) -> [Requirement] {
        requirements.filter { requirement in
            if requirement.field.hasPrefix("___") {
                return !(type.systemFieldIndexes[requirement.field] ?? []).contains(requirement.index)
            }
            guard let field = type.fields[requirement.field] else { return false }
            return !field.indexes.contains(requirement.index)
        }
    }

    /// Adds the indexes to a type (just-in-time indexes, in development).
    public static func add(_ requirements: [Requirement], to type: inout RecordTypeSchema) {
        for requirement in requirements {
            if requirement.field.hasPrefix("___") {
                type.systemFieldIndexes[requirement.field, default: []].insert(requirement.index)
            } else {
                type.fields[requirement.field]?.indexes.insert(requirement.index)
            }
        }
    }

    /// Checks a query against its type's indexes: in production a missing index is refused; in development it
    /// is added to the schema, so that deploying carries it over.
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the field and the missing index (production).
    public static func ensureIndexes(for query: Query, in database: DatabaseRef, store: some RecordStore) async throws {
        let schema = try await store.schema(containerID: database.containerID, environment: database.environment)
        guard let type = schema.recordTypes[query.recordType] else { return }
        let requirements = requirements(of: query)
        let missing = missing(requirements, in: type)
        guard !missing.isEmpty else {
            try await requireBuilt(requirements, of: query.recordType, in: database, store: store)
            return
        }
        guard database.environment == .development else {
            let first = missing[0]
            throw StorageError(
                .invalidArgument,
                "field '\(first.field)' of \(query.recordType) is not marked \(first.indexName); add the index to the development schema and deploy it"
            )
        }
        let recordType = query.recordType
        try await store.changeSchemas(containerID: database.containerID) { development, _ in
            guard var type = development.recordTypes[recordType] else { return }
            add(missing, to: &type)
            development.recordTypes[recordType] = type
        }
        try await requireBuilt(requirements, of: query.recordType, in: database, store: store)
    }

    /// Refuses, for now, a query whose index is still being built over existing records.
    /// - Throws: ``StorageError/Code/unavailable``, which clients retry.
    private static func requireBuilt(_ requirements: [Requirement], of recordType: String, in database: DatabaseRef, store: some RecordStore) async throws {
        let building = try await store.indexesBeingBuilt(containerID: database.containerID, environment: database.environment)
        guard !building.isEmpty else { return }
        for requirement in requirements where building.contains("\(recordType).\(requirement.field)") {
            throw StorageError(
                .unavailable,
                "the \(requirement.indexName) index on \(recordType).\(requirement.field) is still being built over existing records; try again shortly"
            )
        }
    }

    /// A field's name in the schema: a system field's `___` name, or the field a language path belongs to.
    static func schemaName(of field: FieldReference) -> String {
        switch field {
        case .field(let name): String(name.prefix { $0 != "." })
        case .system(let system):
            switch system {
            case .recordName: "___recordID"
            case .createdTimestamp: "___createTime"
            case .modifiedTimestamp: "___modTime"
            case .createdUserRecordName: "___createdBy"
            case .modifiedUserRecordName: "___modifiedBy"
            }
        }
    }
}
