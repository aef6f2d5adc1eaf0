/// The schema of one container environment: its roles and record types (`docs/protocol.md#roles-indexes-and-schema`).
public struct Schema: Sendable, Hashable {
    /// Custom roles, by name (the built-in `_world`, `_icloud` and `_creator` are implied).
    public var roles: Set<String>
    /// Record types by name.
    public var recordTypes: [String: RecordTypeSchema]

    public init(roles: Set<String> = [], recordTypes: [String: RecordTypeSchema] = [:]) {
        self.roles = roles
        self.recordTypes = recordTypes
    }

    /// The name of the built-in type of user records.
    public static let usersType = "Users"

    /// The schema every environment starts with: the built-in `Users` type, readable by everyone and
    /// writable by its user.
    public static var initial: Schema {
        Schema(recordTypes: [usersType: RecordTypeSchema(name: usersType, grants: RecordTypeSchema.usersGrants)])
    }
}

extension Schema: Codable {
    private enum CodingKeys: String, CodingKey {
        case roles, recordTypes
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        roles = try container.decodeIfPresent(Set<String>.self, forKey: .roles) ?? []
        recordTypes = try container.decodeIfPresent([String: RecordTypeSchema].self, forKey: .recordTypes) ?? [:]
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(roles.sorted(), forKey: .roles)
        try container.encode(recordTypes, forKey: .recordTypes)
    }
}
