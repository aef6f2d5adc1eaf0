/// One record type of a schema: its fields, the indexes on its system fields, and its grants.
public struct RecordTypeSchema: Sendable, Hashable {
    public var name: String
    /// Fields by name.
    public var fields: [String: FieldSchema]
    /// Index options on the implicit system fields, by schema name (`___createTime`, `___recordID`...).
    public var systemFieldIndexes: [String: FieldIndexes]
    /// Indexes over several fields (a Stratus extension), in the order they were declared.
    public var compoundIndexes: [CompoundIndex]
    /// Permissions by role name (`_world`, `_icloud`, `_creator` or a custom role).
    public var grants: [String: Set<Permission>]

    public init(
        name: String, fields: [String: FieldSchema] = [:], systemFieldIndexes: [String: FieldIndexes] = [:],
        compoundIndexes: [CompoundIndex] = [], grants: [String: Set<Permission>] = RecordTypeSchema.defaultGrants
    ) {
        self.name = name
        self.fields = fields
        self.systemFieldIndexes = systemFieldIndexes
        self.compoundIndexes = compoundIndexes
        self.grants = grants
    }

    /// CloudKit's defaults for a public record type: everyone reads, signed-in users create, creators write.
    public static let defaultGrants: [String: Set<Permission>] = [
        Role.world: [.read], Role.authenticated: [.create], Role.creator: [.write],
    ]

    /// The grants of the built-in `Users` type: everyone reads, each user writes their own.
    public static let usersGrants: [String: Set<Permission>] = [Role.world: [.read], Role.creator: [.write]]

    /// What a store keeps searchable of a field: its values (for `QUERYABLE`, `SORTABLE` and uniqueness
    /// checks) and the words of its text (for `SEARCHABLE`).
    public func indexing(of field: String) -> FieldIndexing {
        guard let schema = fields[field] else { return FieldIndexing() }
        let inUniqueCondition = fields.values.contains { $0.constraints.uniqueWhere?.field == field }
        let unique = schema.constraints.isUnique || schema.constraints.uniqueWhere != nil || inUniqueCondition
        return FieldIndexing(
            values: unique || !schema.indexes.intersection([.queryable, .sortable]).isEmpty,
            words: schema.indexes.contains(.searchable)
        )
    }

    /// The implicit system fields every record type has, with their types (`docs/protocol.md#roles-indexes-and-schema`).
    public static let systemFields: [(name: String, type: String)] = [
        ("___createTime", "TIMESTAMP"), ("___createdBy", "REFERENCE"), ("___etag", "STRING"),
        ("___modTime", "TIMESTAMP"), ("___modifiedBy", "REFERENCE"), ("___recordID", "REFERENCE"),
    ]
}

extension RecordTypeSchema: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, fields, systemFieldIndexes, compoundIndexes, grants
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        fields = try container.decodeIfPresent([String: FieldSchema].self, forKey: .fields) ?? [:]
        systemFieldIndexes = try container.decodeIfPresent([String: FieldIndexes].self, forKey: .systemFieldIndexes) ?? [:]
        compoundIndexes = try container.decodeIfPresent([CompoundIndex].self, forKey: .compoundIndexes) ?? []
        grants = try container.decodeIfPresent([String: Set<Permission>].self, forKey: .grants) ?? Self.defaultGrants
    }
}

/// What a store keeps searchable of one field.
public struct FieldIndexing: Sendable, Hashable {
    /// Its values (and list elements), for equality, ordering, sorting and uniqueness.
    public var values: Bool
    /// The words of its text, for token searches.
    public var words: Bool

    public init(values: Bool = false, words: Bool = false) {
        self.values = values
        self.words = words
    }

    /// Nothing is kept.
    public var isNone: Bool { !values && !words }
}

/// A permission a role can be granted on a record type.
public enum Permission: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    case create = "CREATE"
    case read = "READ"
    case write = "WRITE"

    public static func < (lhs: Permission, rhs: Permission) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// Names of the built-in roles.
public enum Role {
    /// Everyone, signed in or not.
    public static let world = "_world"
    /// Any signed-in user.
    public static let authenticated = "_icloud"
    /// The record's creator.
    public static let creator = "_creator"
    /// The three built-in roles.
    public static let builtIn: Set<String> = [world, authenticated, creator]
}
