/// Reads and writes CloudKit's text schema language (`docs/protocol.md#roles-indexes-and-schema`), as cktool exports it.
///
/// ```swift
/// let schema = try SchemaLanguage.parse("""
///     DEFINE SCHEMA
///         RECORD TYPE Note (title STRING QUERYABLE, GRANT READ TO "_world");
///     """)
/// let text = SchemaLanguage.print(schema) // re-imports to the same schema
/// ```
public enum SchemaLanguage {
    /// Parses schema text.
    /// - Throws: ``ModelError/Code/invalidSchema`` naming the line and column and what was expected.
    public static func parse(_ text: String) throws(ModelError) -> Schema {
        var parser = SchemaParser(tokens: try SchemaLexer.tokens(in: text))
        return try parser.parseSchema()
    }

    static func error(line: Int, column: Int, _ message: String) -> ModelError {
        ModelError(.invalidSchema, "line \(line), column \(column): \(message)")
    }

    /// Words that must be quoted when used as names.
    static let keywords: Set<String> = [
        "DEFINE", "SCHEMA", "CREATE", "ROLE", "RECORD", "TYPE", "GRANT", "TO", "READ", "WRITE", "LIST", "ENCRYPTED",
        "NUMBER", "PREFERRED", "AS", "QUERYABLE", "SORTABLE", "SEARCHABLE", "ASSET", "BYTES", "DOUBLE", "INT64",
        "LOCATION", "REFERENCE", "STRING", "TIMESTAMP",
    ]
}

/// A recursive-descent parser over schema tokens.
struct SchemaParser {
    private let tokens: [SchemaToken]
    private var position = 0
    /// `UNIQUE WHERE` conditions seen in the current record type: (type, condition field, where).
    private var conditions: [(String, String, SchemaToken)] = []

    init(tokens: [SchemaToken]) {
        self.tokens = tokens
    }

    private var current: SchemaToken { tokens[position] }

    private mutating func next() -> SchemaToken {
        let token = tokens[position]
        if position < tokens.count - 1 { position += 1 }
        return token
    }

    private func fail(_ expected: String, at token: SchemaToken? = nil) -> ModelError {
        let token = token ?? current
        return SchemaLanguage.error(line: token.line, column: token.column, "expected \(expected), found \(token.description)")
    }

    /// Whether the current token is the (case-insensitive) keyword.
    private func isKeyword(_ keyword: String) -> Bool {
        if case .word(let word) = current.kind { return word.uppercased() == keyword }
        return false
    }

    private func isSymbol(_ symbol: Character) -> Bool {
        if case .symbol(let found) = current.kind { return found == symbol }
        return false
    }

    private mutating func expectKeyword(_ keyword: String) throws(ModelError) {
        guard isKeyword(keyword) else { throw fail(keyword) }
        _ = next()
    }

    private mutating func expectSymbol(_ symbol: Character) throws(ModelError) {
        guard isSymbol(symbol) else { throw fail("'\(symbol)'") }
        _ = next()
    }

    /// A name: an unquoted identifier that is not a keyword, or any quoted name.
    private mutating func name(_ what: String) throws(ModelError) -> String {
        switch current.kind {
        case .quoted(let name):
            _ = next()
            return name
        case .word(let word) where !SchemaLanguage.keywords.contains(word.uppercased()):
            _ = next()
            return word
        default:
            throw fail(what)
        }
    }

    mutating func parseSchema() throws(ModelError) -> Schema {
        try expectKeyword("DEFINE")
        try expectKeyword("SCHEMA")
        var schema = Schema(recordTypes: [:])
        var grantsToCheck: [(role: String, token: SchemaToken)] = []
        while true {
            if case .end = current.kind { break }
            if isSymbol(";") {
                _ = next()
            } else if isKeyword("CREATE") {
                _ = next()
                try expectKeyword("ROLE")
                let token = current
                let role = try name("a role name")
                guard !Role.builtIn.contains(role) else {
                    throw SchemaLanguage.error(line: token.line, column: token.column, "\(role) is a built-in role; it needs no CREATE ROLE")
                }
                schema.roles.insert(role)
            } else if isKeyword("RECORD") {
                let start = current
                _ = next()
                try expectKeyword("TYPE")
                let (type, grants) = try parseRecordType()
                guard schema.recordTypes[type.name] == nil else {
                    throw SchemaLanguage.error(line: start.line, column: start.column, "record type \(type.name) is defined twice")
                }
                schema.recordTypes[type.name] = type
                grantsToCheck += grants
            } else {
                throw fail("CREATE ROLE or RECORD TYPE")
            }
        }
        for (role, token) in grantsToCheck where !Role.builtIn.contains(role) && !schema.roles.contains(role) {
            throw SchemaLanguage.error(line: token.line, column: token.column, "role \(role) is not defined; add CREATE ROLE \(role);")
        }
        return schema
    }

    /// `Name ( field TYPE options, ..., GRANT permissions TO role, ... )`
    private mutating func parseRecordType() throws(ModelError) -> (RecordTypeSchema, [(String, SchemaToken)]) {
        let nameToken = current
        let typeName = try name("a record type name")
        guard RecordNames.isValidIdentifier(typeName) else {
            throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "'\(typeName)' is not a valid record type name")
        }
        var type = RecordTypeSchema(name: typeName, grants: [:])
        var grantRoles: [(String, SchemaToken)] = []
        var compoundIndexes: [(CompoundIndex, SchemaToken)] = []
        try expectSymbol("(")
        while !isSymbol(")") {
            if isKeyword("INDEX"), nextIsSymbol("(") {
                // A word here only before "(", so that CloudKit schemas with a field named INDEX still import.
                let start = next()
                compoundIndexes.append((try compoundIndex(), start))
            } else if isKeyword("GRANT") {
                _ = next()
                var permissions: Set<Permission> = []
                while true {
                    guard case .word(let word) = current.kind, let permission = Permission(rawValue: word.uppercased()) else {
                        throw fail("READ, CREATE or WRITE")
                    }
                    permissions.insert(permission)
                    _ = next()
                    // In a GRANT, a comma followed by a permission continues the list of permissions.
                    guard isSymbol(","), nextIsPermission() else { break }
                    _ = next()
                }
                try expectKeyword("TO")
                let roleToken = current
                let role = try name("a role name")
                type.grants[role, default: []].formUnion(permissions)
                grantRoles.append((role, roleToken))
            } else {
                try parseField(into: &type)
            }
            guard isSymbol(",") else { break }
            _ = next()
        }
        try expectSymbol(")")
        for (_, field, token) in conditions where type.fields[field] == nil {
            throw SchemaLanguage.error(line: token.line, column: token.column, "UNIQUE WHERE names \(field), which \(type.name) does not have")
        }
        conditions = []
        for (index, token) in compoundIndexes {
            if let problem = index.problem(in: type) {
                throw SchemaLanguage.error(line: token.line, column: token.column, problem)
            }
            guard !type.compoundIndexes.contains(index) else {
                throw SchemaLanguage.error(line: token.line, column: token.column, "INDEX (\(index.fields.joined(separator: ", "))) is declared twice")
            }
            type.compoundIndexes.append(index)
        }
        return (type, grantRoles)
    }

    /// `( field, field, ... )` after `INDEX`.
    private mutating func compoundIndex() throws(ModelError) -> CompoundIndex {
        try expectSymbol("(")
        var fields = [try name("a field name")]
        while isSymbol(",") {
            _ = next()
            fields.append(try name("a field name"))
        }
        try expectSymbol(")")
        return CompoundIndex(fields)
    }

    /// Whether the token after the current one is the symbol.
    private func nextIsSymbol(_ symbol: Character) -> Bool {
        guard position + 1 < tokens.count, case .symbol(let found) = tokens[position + 1].kind else { return false }
        return found == symbol
    }

    /// Whether the token after a comma is a permission (so the comma continues a GRANT list).
    private func nextIsPermission() -> Bool {
        guard position + 1 < tokens.count, case .word(let word) = tokens[position + 1].kind else { return false }
        return Permission(rawValue: word.uppercased()) != nil
    }

    private mutating func parseField(into type: inout RecordTypeSchema) throws(ModelError) {
        let nameToken = current
        let fieldName = try name("a field name or GRANT")
        var field = try parseFieldType()
        while true {
            if isKeyword("QUERYABLE") {
                field.indexes.insert(.queryable)
            } else if isKeyword("SORTABLE") {
                field.indexes.insert(.sortable)
            } else if isKeyword("SEARCHABLE") {
                field.indexes.insert(.searchable)
            } else if try parseConstraint(into: &field.constraints) {
                continue
            } else {
                break
            }
            _ = next()
        }
        if let condition = field.constraints.uniqueWhere {
            conditions.append((type.name, condition.field, nameToken))
        }
        if fieldName.hasPrefix("___") {
            guard let system = RecordTypeSchema.systemFields.first(where: { $0.name == fieldName }) else {
                throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "\(fieldName) is not a system field")
            }
            guard FieldType(wireName: system.type) == field.type else {
                throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "system field \(fieldName) has type \(system.type)")
            }
            type.systemFieldIndexes[fieldName] = field.indexes.isEmpty ? nil : field.indexes
            return
        }
        guard RecordNames.isValidIdentifier(fieldName) else {
            throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "'\(fieldName)' is not a valid field name")
        }
        guard type.fields[fieldName] == nil else {
            throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "field \(fieldName) is defined twice in \(type.name)")
        }
        if field.isEncrypted && !field.indexes.isEmpty {
            throw SchemaLanguage.error(line: nameToken.line, column: nameToken.column, "encrypted field \(fieldName) cannot be indexed")
        }
        type.fields[fieldName] = field
    }

    /// Parses one constraint option (a Stratus extension) if one comes next; the words are keywords only here,
    /// so CloudKit schemas with fields named like them still import.
    private mutating func parseConstraint(into constraints: inout FieldConstraints) throws(ModelError) -> Bool {
        if isKeyword("REQUIRED") {
            _ = next()
            constraints.isRequired = true
        } else if isKeyword("NOT") {
            _ = next()
            try expectKeyword("EMPTY")
            constraints.isNotEmpty = true
        } else if isKeyword("UNIQUE") {
            _ = next()
            if isKeyword("WHERE") {
                _ = next()
                let field = try name("a field name")
                try expectSymbol("=")
                constraints.uniqueWhere = FieldConstraints.Condition(field: field, value: try literal())
            } else {
                constraints.isUnique = true
            }
        } else if isKeyword("VALUES") {
            _ = next()
            try expectSymbol("(")
            var values = [try literal()]
            while isSymbol(",") {
                _ = next()
                values.append(try literal())
            }
            try expectSymbol(")")
            constraints.allowedValues = values
        } else if isKeyword("RANGE") {
            let start = next()
            let minimum = try number()
            try expectSymbol(":")
            let maximum = try number()
            guard minimum <= maximum else {
                throw SchemaLanguage.error(line: start.line, column: start.column, "the RANGE minimum is above its maximum")
            }
            constraints.minimum = minimum
            constraints.maximum = maximum
        } else {
            return false
        }
        return true
    }

    /// A constraint value: a number, 'text', TRUE or FALSE.
    private mutating func literal() throws(ModelError) -> JSONValue {
        switch current.kind {
        case .number(let text):
            _ = next()
            if let integer = Int64(text) { return .integer(integer) }
            if let double = Double(text) { return .double(double) }
        case .text(let text):
            _ = next()
            return .string(text)
        case .word(let word) where ["TRUE", "FALSE"].contains(word.uppercased()):
            _ = next()
            return .bool(word.uppercased() == "TRUE")
        default:
            break
        }
        throw fail("a value: a number, 'text', TRUE or FALSE")
    }

    private mutating func number() throws(ModelError) -> Double {
        guard case .number(let text) = current.kind, let value = Double(text) else { throw fail("a number") }
        _ = next()
        return value
    }

    /// `LIST<primitive>` or a primitive: `[ENCRYPTED] base`, `NUMBER [PREFERRED AS INT64|DOUBLE]`.
    private mutating func parseFieldType() throws(ModelError) -> FieldSchema {
        if isKeyword("LIST") {
            _ = next()
            try expectSymbol("<")
            var element = try parsePrimitive()
            try expectSymbol(">")
            element.type.isList = true
            return element
        }
        return try parsePrimitive()
    }

    private mutating func parsePrimitive() throws(ModelError) -> FieldSchema {
        if isKeyword("NUMBER") {
            _ = next()
            guard isKeyword("PREFERRED") else { return FieldSchema(type: FieldType(.double), numberSpelling: .number) }
            _ = next()
            try expectKeyword("AS")
            if isKeyword("INT64") {
                _ = next()
                return FieldSchema(type: FieldType(.int64), numberSpelling: .preferred)
            }
            try expectKeyword("DOUBLE")
            return FieldSchema(type: FieldType(.double), numberSpelling: .preferred)
        }
        // Stratus extensions: BOOLEAN and LOCALIZED STRING.
        if isKeyword("BOOLEAN") {
            _ = next()
            return FieldSchema(type: FieldType(.boolean))
        }
        if isKeyword("LOCALIZED") {
            _ = next()
            try expectKeyword("STRING")
            return FieldSchema(type: FieldType(.localizedString))
        }
        var encrypted = false
        if isKeyword("ENCRYPTED") {
            _ = next()
            encrypted = true
        }
        guard case .word(let word) = current.kind, let scalar = Self.scalarTypes[word.uppercased()] else {
            throw fail("a field type (STRING, INT64, DOUBLE, TIMESTAMP, BYTES, LOCATION, REFERENCE, ASSET, NUMBER, BOOLEAN, LOCALIZED STRING or LIST<...>)")
        }
        if encrypted && [.reference, .asset].contains(scalar) {
            throw fail("a type that can be encrypted")
        }
        _ = next()
        return FieldSchema(type: FieldType(scalar), isEncrypted: encrypted)
    }

    private static let scalarTypes: [String: ScalarType] = [
        "STRING": .string, "INT64": .int64, "DOUBLE": .double, "BYTES": .bytes, "TIMESTAMP": .timestamp,
        "REFERENCE": .reference, "LOCATION": .location, "ASSET": .asset,
    ]
}
