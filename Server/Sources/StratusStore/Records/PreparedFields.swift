import StratusModel

/// A record's fields typed, encoded and indexed ahead of a write, off the store's single writer.
///
/// Made for operations that replace every field (`create`, `replace`, `forceReplace`) when every field
/// is already in the schema. The writer uses it only if ``isValid(in:recordType:)`` still holds against
/// its own schema; otherwise it types the fields itself.
public struct PreparedFields: Sendable {
    public var values: [String: FieldValue]
    public var encoded: EncodedFields
    public var indexEntries: [IndexEntry]
    /// What was kept searchable of each field, so the writer can tell whether the schema changed since.
    public var indexing: [String: FieldIndexing]

    /// Encodes and indexes values of a record of `type` (every field is indexed when `type` is `nil`).
    public init(values: [String: FieldValue], type: RecordTypeSchema?) {
        self.values = values
        encoded = EncodedFields(values)
        var indexing: [String: FieldIndexing] = [:]
        for name in values.keys {
            indexing[name] = type?.indexing(of: name) ?? FieldIndexing(values: true, words: true)
        }
        self.indexing = indexing
        indexEntries = IndexEntry.entries(for: values) { indexing[$0] ?? FieldIndexing() }
    }

    /// Prepares an operation's fields against a schema snapshot, or returns `nil` when the writer must
    /// do it: a merging operation, an unknown type or field (just-in-time schema), an asset, or a bad
    /// value (whose error the writer reports).
    public static func prepare(_ operation: RecordOperation, schema: Schema, environment: Environment) -> PreparedFields? {
        guard operation.type == .create || operation.type == .replace || operation.type == .forceReplace,
            let recordType = operation.recordType, let known = schema.recordTypes[recordType]
        else { return nil }
        var values: [String: FieldValue] = [:]
        for (name, input) in operation.fields ?? [:] {
            if case .null = input.value { continue }
            guard let type = known.fields[name]?.type else { return nil }
            if let declared = input.type, FieldType(wireName: declared) != type { return nil }
            // Asset values are checked against their receipts by the writer.
            guard type.scalar != .asset, let value = try? FieldValue(json: input.value, as: type) else { return nil }
            values[name] = value
        }
        return PreparedFields(values: values, type: known)
    }

    /// Whether every prepared field still has the same type, and is kept searchable the same way, in `schema`.
    public func isValid(in schema: Schema, recordType: String) -> Bool {
        guard let known = schema.recordTypes[recordType] else { return false }
        return values.allSatisfy { name, value in
            known.fields[name]?.type == value.type && known.indexing(of: name) == indexing[name]
        }
    }
}
