extension SchemaLanguage {
    /// Prints a schema as text that parses back to the same schema: roles, then record types by name,
    /// each with its six system fields, its fields by name, and its grants.
    public static func print(_ schema: Schema) -> String {
        var lines = ["DEFINE SCHEMA", ""]
        for role in schema.roles.sorted() {
            lines.append("    CREATE ROLE \(quoted(role));")
        }
        if !schema.roles.isEmpty { lines.append("") }
        for name in schema.recordTypes.keys.sorted() {
            lines += recordTypeLines(schema.recordTypes[name]!)
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    private static func recordTypeLines(_ type: RecordTypeSchema) -> [String] {
        var items: [(name: String, rest: String)] = []
        for system in RecordTypeSchema.systemFields {
            items.append(("\"\(system.name)\"", system.type + indexWords(type.systemFieldIndexes[system.name] ?? [])))
        }
        for name in type.fields.keys.sorted() {
            let field = type.fields[name]!
            items.append((quoted(name), typeWords(field) + indexWords(field.indexes) + constraintWords(field.constraints)))
        }
        let width = items.map(\.name.count).max() ?? 0
        var body = items.map { "        " + $0.name.padding(toLength: width, withPad: " ", startingAt: 0) + " " + $0.rest }
        for index in type.compoundIndexes {
            body.append("        INDEX (\(index.fields.map(quoted).joined(separator: ", ")))")
        }
        let builtInOrder = [Role.creator, Role.authenticated, Role.world]
        let roles = builtInOrder.filter { type.grants[$0] != nil } + type.grants.keys.filter { !Role.builtIn.contains($0) }.sorted()
        for role in roles {
            guard let permissions = type.grants[role], !permissions.isEmpty else { continue }
            body.append("        GRANT \(permissions.sorted().map(\.rawValue).joined(separator: ", ")) TO \(quoted(role))")
        }
        return ["    RECORD TYPE \(quoted(type.name)) ("] + [body.joined(separator: ",\n")] + ["    );"]
    }

    private static func typeWords(_ field: FieldSchema) -> String {
        var scalar: String
        switch field.numberSpelling {
        case .number?: scalar = "NUMBER"
        case .preferred?: scalar = "NUMBER PREFERRED AS \(field.type.scalar == .int64 ? "INT64" : "DOUBLE")"
        case nil:
            switch field.type.scalar {
            case .asset: scalar = "ASSET"
            case .localizedString: scalar = "LOCALIZED STRING"
            default: scalar = field.type.scalar.rawValue
            }
        }
        if field.isEncrypted { scalar = "ENCRYPTED " + scalar }
        return field.type.isList ? "LIST<\(scalar)>" : scalar
    }

    private static func indexWords(_ indexes: FieldIndexes) -> String {
        var words = ""
        if indexes.contains(.queryable) { words += " QUERYABLE" }
        if indexes.contains(.searchable) { words += " SEARCHABLE" }
        if indexes.contains(.sortable) { words += " SORTABLE" }
        return words
    }

    private static func constraintWords(_ constraints: FieldConstraints) -> String {
        var words = ""
        if constraints.isRequired { words += " REQUIRED" }
        if constraints.isNotEmpty { words += " NOT EMPTY" }
        if constraints.isUnique { words += " UNIQUE" }
        if let condition = constraints.uniqueWhere { words += " UNIQUE WHERE \(quoted(condition.field)) = \(literal(condition.value))" }
        if let values = constraints.allowedValues { words += " VALUES (\(values.map(literal).joined(separator: ", ")))" }
        if let minimum = constraints.minimum, let maximum = constraints.maximum {
            words += " RANGE \(number(minimum))..\(number(maximum))"
        }
        return words
    }

    private static func literal(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "'\(text)'"
        case .bool(let flag): flag ? "TRUE" : "FALSE"
        case .integer(let number): String(number)
        case .double(let number): String(number)
        default: "''"
        }
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    /// A name as written in schema text: quoted when it is a keyword or not a plain identifier.
    static func quoted(_ name: String) -> String {
        let plain = name.first.map { $0.isLetter } == true && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            && name.unicodeScalars.allSatisfy(\.isASCII)
        return plain && !keywords.contains(name.uppercased()) ? name : "\"\(name)\""
    }
}
