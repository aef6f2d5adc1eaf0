/// The schema of one container environment: its record types and their fields.
public struct Schema: Sendable, Hashable, Codable {
    /// Record types by name.
    public var recordTypes: [String: RecordTypeSchema]

    public init(recordTypes: [String: RecordTypeSchema] = [:]) {
        self.recordTypes = recordTypes
    }

    /// The name of the built-in type of user records.
    public static let usersType = "Users"

    /// The schema every environment starts with: the built-in `Users` type.
    public static var initial: Schema {
        Schema(recordTypes: [usersType: RecordTypeSchema(name: usersType, fields: [:])])
    }
}

/// One record type of a schema.
public struct RecordTypeSchema: Sendable, Hashable, Codable {
    public var name: String
    /// Fields by name.
    public var fields: [String: FieldSchema]

    public init(name: String, fields: [String: FieldSchema] = [:]) {
        self.name = name
        self.fields = fields
    }
}

/// One field of a record type.
public struct FieldSchema: Sendable, Hashable, Codable {
    public var type: FieldType

    public init(type: FieldType) {
        self.type = type
    }
}
