import Foundation
import StratusModel
import Testing

@Suite struct SchemaLanguageTests {
    static func fixture(_ name: String) throws -> String {
        let url = try #require(Bundle.module.url(forResource: name, withExtension: "ckdb", subdirectory: "Fixtures"))
        return try String(contentsOf: url, encoding: .utf8)
    }

    @Test("a schema exported by cktool imports unchanged")
    func cktoolExport() throws {
        let schema = try SchemaLanguage.parse(try Self.fixture("department"))
        #expect(schema.roles == ["DeptManager"])
        let department = try #require(schema.recordTypes["Department"])
        #expect(department.fields["name"] == FieldSchema(type: FieldType(.string), indexes: [.queryable, .searchable, .sortable]))
        #expect(department.fields["phone"]?.type == .list(.string))
        #expect(department.fields["employees"]?.type == .list(.reference))
        #expect(department.systemFieldIndexes["___createTime"] == [.queryable, .sortable])
        #expect(department.systemFieldIndexes["___recordID"] == [.queryable])
        #expect(department.grants == [
            Role.creator: [.write], Role.authenticated: [.create], Role.world: [.read], "DeptManager": [.read, .create, .write],
        ])
        #expect(schema.recordTypes["Users"]?.fields["roles"]?.type == .list(.int64))
        #expect(schema.recordTypes["Users"]?.grants == RecordTypeSchema.usersGrants)
    }

    @Test("printed schema text parses back to the same schema, and prints the same again")
    func roundTrip() throws {
        let schema = try SchemaLanguage.parse(try Self.fixture("department"))
        let printed = SchemaLanguage.print(schema)
        #expect(try SchemaLanguage.parse(printed) == schema)
        #expect(SchemaLanguage.print(try SchemaLanguage.parse(printed)) == printed)
    }

    @Test("comments of all three styles, any keyword case, quoted keywords as names, numbers and encrypted fields")
    func languageFeatures() throws {
        let schema = try SchemaLanguage.parse("""
            // A line comment
            define schema
                /* a block
                   comment */
                record type Item ( -- another line comment
                    "grant"   STRING,
                    count     NUMBER,
                    total     NUMBER PREFERRED AS INT64,
                    ratio     NUMBER preferred as DOUBLE,
                    secret    ENCRYPTED STRING,
                    notes     LIST<ENCRYPTED STRING>,
                    picture   ASSET,
                    place     LOCATION SORTABLE,
                    grant read to "_world"
                );
            """)
        let item = try #require(schema.recordTypes["Item"])
        #expect(item.fields["grant"]?.type == FieldType(.string))
        #expect(item.fields["count"] == FieldSchema(type: FieldType(.double), numberSpelling: .number))
        #expect(item.fields["total"] == FieldSchema(type: FieldType(.int64), numberSpelling: .preferred))
        #expect(item.fields["ratio"] == FieldSchema(type: FieldType(.double), numberSpelling: .preferred))
        #expect(item.fields["secret"] == FieldSchema(type: FieldType(.string), isEncrypted: true))
        #expect(item.fields["notes"] == FieldSchema(type: .list(.string), isEncrypted: true))
        #expect(item.fields["picture"]?.type == FieldType(.asset))
        #expect(item.grants == [Role.world: [.read]])
        let printed = SchemaLanguage.print(schema)
        #expect(printed.contains("\"grant\""))
        #expect(printed.contains("NUMBER PREFERRED AS INT64"))
        #expect(try SchemaLanguage.parse(printed) == schema)
    }

    @Test("Stratus extensions: BOOLEAN, LOCALIZED STRING and constraints parse and print back")
    func extensions() throws {
        let schema = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Message (
                    title      LOCALIZED STRING REQUIRED NOT EMPTY,
                    isCurrent  BOOLEAN QUERYABLE UNIQUE WHERE isCurrent = TRUE,
                    slug       STRING UNIQUE,
                    kind       STRING VALUES ('banner', 'alert'),
                    priority   INT64 RANGE 1..5,
                    ratio      DOUBLE RANGE -0.5..1.5,
                    flags      LIST<BOOLEAN>,
                    GRANT READ TO "_world"
                );
            """)
        let message = try #require(schema.recordTypes["Message"])
        #expect(message.fields["title"]?.type == FieldType(.localizedString))
        #expect(message.fields["title"]?.constraints == FieldConstraints(isRequired: true, isNotEmpty: true))
        #expect(message.fields["isCurrent"]?.constraints.uniqueWhere == FieldConstraints.Condition(field: "isCurrent", value: .bool(true)))
        #expect(message.fields["slug"]?.constraints.isUnique == true)
        #expect(message.fields["kind"]?.constraints.allowedValues == [.string("banner"), .string("alert")])
        #expect(message.fields["priority"]?.constraints.minimum == 1 && message.fields["priority"]?.constraints.maximum == 5)
        #expect(message.fields["ratio"]?.constraints.minimum == -0.5)
        #expect(message.fields["flags"]?.type == .list(.boolean))
        #expect(try SchemaLanguage.parse(SchemaLanguage.print(schema)) == schema)
    }

    @Test("CloudKit fields named like the extension words still import")
    func contextualWords() throws {
        let schema = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Stats (range INT64, values LIST<DOUBLE>, unique STRING, required INT64, boolean STRING);
            """)
        #expect(schema.recordTypes["Stats"]?.fields.keys.sorted() == ["boolean", "range", "required", "unique", "values"])
        #expect(try SchemaLanguage.parse(SchemaLanguage.print(schema)) == schema)
    }

    @Test("errors name the line, the column and what was expected", arguments: [
        ("DEFINE SCHEMA\n  RECORD TYPE A (x BOOLEAN UNIQUE WHERE missing = TRUE);", "line 2, column 18", "does not have"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (x INT64 RANGE 5..1);", "line 2, column 26", "minimum is above its maximum"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (x STRING VALUES (banner));", "line 2, column 35", "a value"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (\n    name STRNG\n  );", "line 3, column 10", "a field type"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (name STRING", "line 2", "')'"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (GRANT READ TO Admin);", "line 2, column 32", "CREATE ROLE Admin"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (name STRING, name INT64);", "line 2, column 31", "defined twice"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (grant STRING);", "line 2, column 24", "READ, CREATE or WRITE"),
        ("DEFINE SCHEMA /* never closed", "line 1, column 15", "never closed"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (\"___mystery\" STRING);", "line 2, column 18", "not a system field"),
        ("DEFINE SCHEMA\n  RECORD TYPE A (secret ENCRYPTED STRING QUERYABLE);", "line 2", "cannot be indexed"),
        ("SCHEMA", "line 1, column 1", "DEFINE"),
        ("DEFINE SCHEMA\n  TABLE A ();", "line 2, column 3", "CREATE ROLE or RECORD TYPE"),
    ])
    func errors(_ text: String, _ location: String, _ expected: String) {
        #expect {
            try SchemaLanguage.parse(text)
        } throws: { error in
            guard let error = error as? ModelError else { return false }
            return error.code == .invalidSchema && error.message.contains(location) && error.message.contains(expected)
        }
    }
}
