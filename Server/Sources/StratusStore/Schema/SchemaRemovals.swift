import StratusModel

/// What a schema change takes out of storage, decided once for every backend: a record type the schema no longer
/// has takes its records along (they become deletions in their zones' change feeds, and drop their index entries,
/// references and assets), and a field it no longer has takes its values out of the records of its type.
public struct SchemaRemovals: Sendable, Hashable {
    /// A field of a record type.
    public struct Field: Sendable, Hashable {
        public var recordType: String
        public var name: String
    }

    /// The modifier's user record name and device that the deletions of a schema change carry.
    public static let modifier = (userRecordName: "_schema", deviceID: "schema")

    /// Record types whose records are removed.
    public var recordTypes: [String]
    /// Fields whose values are removed, in record types that stay.
    public var fields: [Field]

    /// The removals of the change from `old` to `new`.
    public init(from old: Schema, to new: Schema) {
        recordTypes = old.recordTypes.keys.filter { new.recordTypes[$0] == nil }.sorted()
        fields = new.recordTypes.keys.sorted().flatMap { typeName -> [Field] in
            guard let before = old.recordTypes[typeName], let after = new.recordTypes[typeName] else { return [] }
            return before.fields.keys.filter { after.fields[$0] == nil }.sorted().map { Field(recordType: typeName, name: $0) }
        }
    }

    /// Whether the change removes nothing.
    public var isEmpty: Bool { recordTypes.isEmpty && fields.isEmpty }
}

/// A count of live records a schema change must see before it decides: the records of a type in one
/// environment, or only those holding a value for one of its fields.
public struct RecordCountRequest: Sendable, Hashable {
    public var environment: Environment
    public var recordType: String
    /// Count only the records that have a value for this field.
    public var field: String?

    public init(environment: Environment, recordType: String, field: String? = nil) {
        self.environment = environment
        self.recordType = recordType
        self.field = field
    }
}
