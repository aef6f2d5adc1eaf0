/// How large one environment's schema may grow, by just-in-time changes or by import
/// (`docs/schema.md`, "Limits").
///
/// CloudKit keeps schemas small; these bounds keep one careless or hostile client from making every
/// schema read, write and deploy slow.
public enum SchemaLimits {
    /// Record types in one container environment, `Users` included.
    public static let maximumRecordTypes = 500
    /// Fields of one record type (the implicit system fields are not counted).
    public static let maximumFieldsPerType = 300
    /// Custom roles in one container environment.
    public static let maximumRoles = 100

    /// The first limit the schema exceeds, worded for the client; `nil` when it is within every limit.
    public static func violation(in schema: Schema) -> String? {
        if schema.recordTypes.count > maximumRecordTypes {
            return "the schema would have \(schema.recordTypes.count) record types; the limit is \(maximumRecordTypes)"
        }
        if let wide = schema.recordTypes.values.first(where: { $0.fields.count > maximumFieldsPerType }) {
            return "record type \(wide.name) would have \(wide.fields.count) fields; the limit is \(maximumFieldsPerType) per record type"
        }
        if schema.roles.count > maximumRoles {
            return "the schema would have \(schema.roles.count) roles; the limit is \(maximumRoles)"
        }
        return nil
    }
}
