/// A record field as a client sends it: `{value, type?}`. The type is resolved against the schema later.
public struct FieldInput: Sendable, Hashable, Codable {
    public var value: JSONValue
    /// The wire type name, when the client gave one.
    public var type: String?

    public init(value: JSONValue, type: String? = nil) {
        self.value = value
        self.type = type
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = try container.decodeIfPresent(JSONValue.self, forKey: .value) ?? .null
        type = try container.decodeIfPresent(String.self, forKey: .type)
    }

    /// The declared type, parsed.
    /// - Throws: ``ModelError/Code/invalidValue`` for an unknown type name.
    public func declaredType() throws(ModelError) -> FieldType? {
        guard let type else { return nil }
        guard let parsed = FieldType(wireName: type) else {
            throw ModelError(.invalidValue, "unknown field type \(type)")
        }
        return parsed
    }
}
