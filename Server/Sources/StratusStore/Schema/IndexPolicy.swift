import StratusModel

/// Which indexes a query needs, as CloudKit requires them (`docs/protocol.md#queries`, `#roles-indexes-and-schema`): equality,
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
        expanded(requirements, in: type).filter { requirement in
            if requirement.field.hasPrefix("___") {
                return !(type.systemFieldIndexes[requirement.field] ?? []).contains(requirement.index)
            }
            guard let field = type.fields[requirement.field] else { return false }
            return !field.indexes.contains(requirement.index)
        }
    }

    /// The requirements with a search of every searchable field (`allTokens`) made concrete: met when the type
    /// has a SEARCHABLE string field (those are searched), else it needs every string field SEARCHABLE.
    static func expanded(_ requirements: [Requirement], in type: RecordTypeSchema) -> [Requirement] {
        requirements.flatMap { requirement -> [Requirement] in
            guard requirement.field == FieldReference.allTokensName else { return [requirement] }
            let strings = type.fields.filter { [FieldType(.string), FieldType(.localizedString)].contains($0.value.type) }
            if strings.values.contains(where: { $0.indexes.contains(.searchable) }) { return [] }
            return strings.keys.sorted().map { Requirement(field: $0, index: .searchable) }
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

    /// The indexes a query lacks in its type: `nil` when it lacks none. In development they are added to the schema
    /// (through the store's normal schema write, before the query reads), so that deploying carries them over.
    /// - Throws: ``StorageError/Code/invalidArgument`` in production, naming the field and the missing index.
    public static func missingIndexes(for query: Query, in type: RecordTypeSchema, environment: Environment) throws(StorageError) -> IndexAddition? {
        let missing = missing(requirements(of: query), in: type)
        let compound = environment == .development ? missingCompoundIndex(for: query, in: type) : nil
        guard !missing.isEmpty || compound != nil else { return nil }
        guard environment == .development else {
            let first = missing[0]
            throw StorageError(
                .invalidArgument,
                "field '\(first.field)' of \(query.recordType) is not marked \(first.indexName); add the index to the development schema and deploy it"
            )
        }
        return IndexAddition(recordType: query.recordType, requirements: missing, compound: compound)
    }

    /// Indexes development adds to a record type for a query.
    public struct IndexAddition: Sendable {
        public var recordType: String
        public var requirements: [Requirement]
        public var compound: CompoundIndex?

        /// Adds the indexes to the type in `schema`, if it still has the type.
        public func apply(to schema: inout Schema) {
            guard var type = schema.recordTypes[recordType] else { return }
            IndexPolicy.add(requirements, to: &type)
            if let compound, !type.compoundIndexes.contains(compound), compound.problem(in: type) == nil {
                type.compoundIndexes.append(compound)
            }
            schema.recordTypes[recordType] = type
        }
    }

    /// The compound index a query would read a page from, when its type lacks one: its `EQUALS` fields (by
    /// name) then its sort fields, for a query sorted one way by fields an index can hold. Development adds
    /// it like a single-field index; a query runs without it (``QueryPlanner``), reading more.
    public static func missingCompoundIndex(for query: Query, in type: RecordTypeSchema) -> CompoundIndex? {
        guard let sortNames = QueryPlanner.orderedSortFields(query.sort) else { return nil }
        var equalityNames = Set<String>()
        for filter in query.filters where filter.comparator == .equals && IndexEntry.key(for: filter.value) != nil {
            if let name = QueryPlanner.exactName(of: filter.field), !sortNames.contains(name) { equalityNames.insert(name) }
        }
        guard !equalityNames.isEmpty else { return nil }
        let index = CompoundIndex(equalityNames.sorted() + sortNames)
        guard index.problem(in: type) == nil else { return nil }
        let covered = type.compoundIndexes.contains { existing in
            existing.fields.count == index.fields.count && Set(existing.fields.prefix(equalityNames.count)) == equalityNames
                && Array(existing.fields.dropFirst(equalityNames.count)) == sortNames
        }
        return covered ? nil : index
    }

    /// Refuses, for now, a query whose index is still being built over existing records.
    /// - Parameter building: `Type.field` of the indexes being built.
    /// - Throws: ``StorageError/Code/unavailable``, which clients retry.
    public static func requireBuilt(for query: Query, building: Set<String>) throws(StorageError) {
        guard !building.isEmpty else { return }
        for requirement in requirements(of: query) where building.contains("\(query.recordType).\(requirement.field)")
            || (requirement.field == FieldReference.allTokensName && building.contains { $0.hasPrefix("\(query.recordType).") }) {
            throw StorageError(
                .unavailable,
                "the \(requirement.indexName) index on \(query.recordType).\(requirement.field) is still being built over existing records; try again shortly"
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
