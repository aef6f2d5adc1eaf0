import StratusModel
import Testing

@Suite struct SchemaChangeTests {
    static let base = """
        DEFINE SCHEMA
            RECORD TYPE Message (title STRING QUERYABLE, version INT64, GRANT READ TO "_world");
        """

    func changes(to text: String) throws -> [SchemaChange] {
        SchemaChange.changes(from: try SchemaLanguage.parse(Self.base), to: try SchemaLanguage.parse(text))
    }

    @Test("new types, fields, indexes, roles and grants are additive")
    func additive() throws {
        let found = try changes(to: """
            DEFINE SCHEMA
                CREATE ROLE Admin;
                RECORD TYPE Message (title STRING QUERYABLE SORTABLE, version INT64, body STRING,
                    GRANT READ TO "_world", GRANT WRITE TO Admin);
                RECORD TYPE Banner (text STRING);
            """)
        #expect(found.map(\.description) == [
            "add role Admin", "add record type Banner", "add field Message.body STRING",
            "add SORTABLE index on Message.title", "change the grants of Message",
        ])
        #expect(found.allSatisfy { $0.isAdditive })
    }

    @Test("removed types and fields, and changed field types, are not additive and are named")
    func refused() throws {
        let found = try changes(to: """
            DEFINE SCHEMA
                RECORD TYPE Other (x STRING);
            """)
        #expect(found.filter { !$0.isAdditive }.map(\.description) == ["remove record type Message"])
        let changed = try changes(to: """
            DEFINE SCHEMA
                RECORD TYPE Message (title LIST<STRING> QUERYABLE, GRANT READ TO "_world");
            """)
        #expect(changed.filter { !$0.isAdditive }.map(\.description) == [
            "change the type of Message.title from STRING to STRING_LIST", "remove field Message.version INT64",
        ])
    }

    @Test("identical schemas have no changes")
    func identical() throws {
        #expect(try changes(to: Self.base).isEmpty)
    }
}
