import StratusModel

/// Types incoming field values against a schema, growing the schema in development
/// (just-in-time schema) and refusing unknown types and fields in production.
///
/// Pure logic shared by every backend: the backend keeps the working schema, calls
/// ``resolve(recordType:fields:in:environment:)`` inside its write transaction, and persists the
/// schema when it changed.
public enum SchemaResolver {
    /// Checks that a record type may be written, creating it in development.
    /// - Throws: ``StorageError/Code/notFound`` for an invalid or (in production) unknown type, as Apple's
    ///   server answers; ``StorageError/Code/limitExceeded`` when the schema has as many types as it may.
    public static func requireRecordType(_ recordType: String, in schema: inout Schema, environment: Environment) throws(StorageError) {
        if schema.recordTypes[recordType] != nil { return }
        try checkUnknownType(recordType, environment: environment)
        guard schema.recordTypes.count < SchemaLimits.maximumRecordTypes else {
            throw StorageError(.limitExceeded, "record type '\(recordType)' cannot be created: the schema has \(schema.recordTypes.count) record types, the limit")
        }
        schema.recordTypes[recordType] = RecordTypeSchema(name: recordType)
    }

    /// Refuses a record type the schema lacks unless development may create it: `NOT_FOUND` for a name that
    /// is not valid, or any unknown name in production.
    public static func checkUnknownType(_ recordType: String, environment: Environment) throws(StorageError) {
        guard RecordNames.isValidIdentifier(recordType) else {
            throw StorageError(.notFound, "record type '\(recordType)' is not a valid name: use letters, digits and _ and start with a letter")
        }
        guard environment == .development else {
            throw StorageError(.notFound, "record type '\(recordType)' is not in the production schema; deploy it from development first")
        }
    }

    /// Types each field of a record against the schema. A `null` value resolves to `nil` (remove the field).
    /// - Throws: ``StorageError/Code/invalidArgument`` naming the field and what was expected.
    public static func resolve(
        recordType: String, fields: [String: FieldInput], in schema: inout Schema, environment: Environment
    ) throws(StorageError) -> [String: FieldValue?] {
        try requireRecordType(recordType, in: &schema, environment: environment)
        var resolved: [String: FieldValue?] = [:]
        resolved.reserveCapacity(fields.count)
        for (name, input) in fields {
            if case .null = input.value {
                resolved[name] = .some(nil)
                continue
            }
            let known = schema.recordTypes[recordType]?.fields[name]?.type
            let declared: FieldType?
            do { declared = try input.declaredType() } catch { throw StorageError(.invalidArgument, "field '\(name)': \(error.message)") }
            if let known, let declared, declared != known {
                throw StorageError(.invalidArgument, "field '\(name)' of \(recordType) has type \(known.wireName), not \(declared.wireName)")
            }
            let type: FieldType
            if let known {
                type = known
            } else {
                guard RecordNames.isValidIdentifier(name) else {
                    throw StorageError(.invalidArgument, "field name '\(name)' is not valid: use letters, digits and _ and start with a letter")
                }
                guard environment == .development else {
                    throw StorageError(.invalidArgument, "field '\(name)' is not in the production schema of \(recordType); deploy it from development first")
                }
                let fieldCount = schema.recordTypes[recordType]?.fields.count ?? 0
                guard fieldCount < SchemaLimits.maximumFieldsPerType else {
                    throw StorageError(.limitExceeded, "field '\(name)' cannot be added: \(recordType) has \(fieldCount) fields, the limit per record type")
                }
                guard let inferred = declared ?? FieldValue.inferredType(of: input.value) else {
                    throw StorageError(.invalidArgument, "field '\(name)': cannot tell the type of \(input.value.kindName); send \"type\" with the value")
                }
                type = inferred
                schema.recordTypes[recordType]?.fields[name] = FieldSchema(type: type)
            }
            do {
                resolved[name] = try FieldValue(json: input.value, as: type)
            } catch {
                throw StorageError(.invalidArgument, "field '\(name)' of \(recordType): \(error.message)")
            }
        }
        return resolved
    }
}
