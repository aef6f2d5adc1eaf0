/// An index over several fields of a record type, in order: a Stratus extension of the schema language,
/// written inside a record type as `INDEX (category, ___createTime)`.
///
/// It answers a query with `EQUALS` filters on its leading fields and a sort (or a range filter) on the
/// next ones by reading only the page it returns, as a relational database's multi-column index does:
/// `category = 'news' ORDER BY ___createTime DESC` reads 50 entries for 50 records, however many records
/// the type holds. In development, a query that would use one adds it, as it adds single-field indexes.
public struct CompoundIndex: Sendable, Hashable, Codable {
    /// The fields, most significant first: user fields of a scalar type, or the system fields in
    /// ``systemFields``.
    public var fields: [String]

    public init(_ fields: [String]) {
        self.fields = fields
    }

    /// The index's name in storage and messages: its fields joined by commas.
    public var name: String { fields.joined(separator: ",") }

    /// The system fields a compound index may hold.
    public static let systemFields: Set<String> = ["___createTime", "___modTime", "___recordID", "___createdBy", "___modifiedBy"]

    /// The most fields in one compound index.
    public static let maximumFields = 5

    /// Why the index cannot be declared on `type`, or `nil` when it can: too few or too many fields, a field
    /// twice, a field the type lacks, or one whose values cannot be ordered (lists, assets, bytes, locations,
    /// localized strings, encrypted fields).
    public func problem(in type: RecordTypeSchema) -> String? {
        guard fields.count >= 2 else { return "an INDEX needs at least two fields; a single field is indexed by QUERYABLE or SORTABLE" }
        guard fields.count <= Self.maximumFields else { return "an INDEX holds at most \(Self.maximumFields) fields" }
        guard Set(fields).count == fields.count else { return "an INDEX names a field twice" }
        for field in fields {
            if field.hasPrefix("___") {
                guard Self.systemFields.contains(field) else { return "\(field) cannot be part of an INDEX" }
                continue
            }
            guard let schema = type.fields[field] else { return "INDEX names \(field), which \(type.name) does not have" }
            guard Self.orderable(schema) else { return "\(type.name).\(field) is of type \(schema.type.wireName), which an INDEX cannot hold" }
        }
        return nil
    }

    /// Whether a field's values can be a compound index's component: one ordered value per record.
    public static func orderable(_ field: FieldSchema) -> Bool {
        guard !field.type.isList, !field.isEncrypted else { return false }
        switch field.type.scalar {
        case .string, .int64, .double, .timestamp, .reference, .boolean: return true
        case .bytes, .location, .asset, .localizedString: return false
        }
    }
}
