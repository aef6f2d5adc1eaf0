import StratusModel
import StratusStore
import Testing

/// The statement driver both backends share: values bound where they appear in the text, lists in each
/// dialect's way, and a page statement whose placeholders and values agree.
@Suite struct QueryStatementTests {
    /// Numbers placeholders `?` like SQLite, or `$n` with arrays like PostgreSQL.
    struct TestDialect: SQLDialect {
        var numbered: Bool
        func placeholder(_ position: Int) -> String { numbered ? "$\(position)" : "?" }
        func membership(_ values: [SQLValue], bind: (SQLValue) -> String) -> String {
            numbered ? " = ANY(\(bind(.array(values))))" : " IN (\(values.map(bind).joined(separator: ", ")))"
        }
        func phrase(_ phrase: SQLPhrase) -> String { "" }
        func live(_ alias: String) -> String { "\(alias).deleted = 0" }
        func byteOrdered(_ column: String) -> String { column }
        func order(ascending: Bool) -> String { ascending ? "ASC" : "DESC" }
        let latitudeColumn = "value"
        let disablesRecordIndexesBehindLookups = true
        func hasMember(_ column: String, _ name: String) -> SQLFragment { "has(\(raw: column), \(.text(name)))" }
        func removingMember(_ column: String, _ name: String) -> SQLFragment { "without(\(raw: column), \(.text(name)))" }
    }

    @Test func whatTheDialectWritesBindsItsValuesWhereItAppears() {
        let fragment: SQLFragment = "a = \(.integer(1)) AND \(dialect: { $0.hasMember("f", "title") }) AND b = \(.integer(2))"
        let numbered = fragment.rendered(in: TestDialect(numbered: true))
        #expect(numbered.sql == "a = $1 AND has(f, $2) AND b = $3")
        #expect(numbered.values == [.integer(1), .text("title"), .integer(2)])
    }

    @Test func valuesAreBoundInTheOrderOfTheText() {
        let inner: SQLFragment = "b = \(.text("second"))"
        let fragment: SQLFragment = "a = \(.integer(1)) AND \(inner) AND c\(anyOf: [.text("x"), .text("y")]) AND d = \(.double(2))"

        let positional = fragment.rendered(in: TestDialect(numbered: false))
        #expect(positional.sql == "a = ? AND b = ? AND c IN (?, ?) AND d = ?")
        #expect(positional.values == [.integer(1), .text("second"), .text("x"), .text("y"), .double(2)])

        let numbered = fragment.rendered(in: TestDialect(numbered: true))
        #expect(numbered.sql == "a = $1 AND b = $2 AND c = ANY($3) AND d = $4")
        #expect(numbered.values == [.integer(1), .text("second"), .array([.text("x"), .text("y")]), .double(2)])
    }

    @Test func aPageStatementBindsOneValuePerPlaceholder() throws {
        let schema = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Item (cat STRING QUERYABLE, n INT64 QUERYABLE SORTABLE, tags LIST<STRING> QUERYABLE);
            """)
        let database = DatabaseRef(containerID: "iCloud.test", environment: .development, scope: .public, ownerRecordName: "_public")
        let query = Query(
            recordType: "Item",
            filters: [
                Filter(comparator: .notEquals, field: .field("cat"), value: .string("c1")),
                Filter(comparator: .listContainsAny, field: .field("tags"), value: .list(.string, [.string("red"), .string("blue")])),
                Filter(comparator: .beginsWith, field: .system(.recordName), value: .string("item-")),
            ],
            sort: [SortDescriptor(field: .field("n"), ascending: false)]
        )
        let cursor = QueryCursor(fingerprint: QueryCursor.fingerprint(of: query, zoneName: nil, sharedRoots: nil), keys: [.null], lastID: 7)
        let request = RecordQuery(database: database, zoneName: nil, query: QueryInput(recordType: "Item"), limit: 10, continuationMarker: cursor.marker)
        let planned = try PlannedQuery(request, typed: query, type: schema.recordTypes["Item"], building: [])

        for numbered in [false, true] {
            let dialect = TestDialect(numbered: numbered)
            let statement = try #require(try planned.pageStatement(zones: .ids([1, 2]), dialect: dialect))
            let (sql, values) = statement.statement.rendered(in: dialect)
            let placeholders = numbered ? sql.matches(of: /\$(\d+)/).map { Int($0.1)! }.max() ?? 0 : sql.filter { $0 == "?" }.count
            #expect(placeholders == values.count, "\(sql) with \(values)")
            #expect(sql.contains("LIMIT 11"), "one row past the page says that more come: \(sql)")
            #expect(statement.sortKeys.map(\.kind) == [.encoded])
        }
    }

    @Test func sharedTreesAreReadFromOneZoneOnly() throws {
        let database = DatabaseRef(containerID: "iCloud.test", environment: .development, scope: .private, ownerRecordName: "_owner")
        let request = RecordQuery(
            database: database, zoneName: nil, query: QueryInput(recordType: "Item"), limit: 10, continuationMarker: nil, sharedRoots: ["root"]
        )
        let planned = try PlannedQuery(request, typed: Query(recordType: "Item", filters: [], sort: []), type: nil, building: [])
        #expect(try planned.pageStatement(zones: .ids([1, 2]), dialect: TestDialect(numbered: false)) == nil)
        let (sql, values) = try #require(try planned.pageStatement(zones: .ids([1]), dialect: TestDialect(numbered: false)))
            .statement.rendered(in: TestDialect(numbered: false))
        #expect(sql.contains("WITH RECURSIVE tree"))
        #expect(values.contains(.text("root")))
    }
}
