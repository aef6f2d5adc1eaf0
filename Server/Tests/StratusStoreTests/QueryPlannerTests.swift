import StratusModel
import StratusStore
import Testing

@Suite struct QueryPlannerTests {
    static let schema = try! SchemaLanguage.parse("""
        DEFINE SCHEMA
            RECORD TYPE Item (
                cat STRING QUERYABLE, kind STRING QUERYABLE, n INT64 QUERYABLE SORTABLE, score DOUBLE SORTABLE,
                tags LIST<STRING> QUERYABLE, title STRING, place LOCATION QUERYABLE,
                INDEX (cat, n), INDEX (cat, kind, n), INDEX (kind, "___createTime")
            );
        """)

    static func query(_ filters: [Filter], sort: [SortDescriptor]) -> Query {
        Query(recordType: "Item", filters: filters, sort: sort)
    }

    static func equals(_ field: String, _ value: FieldValue) -> Filter { Filter(comparator: .equals, field: .field(field), value: value) }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var query: Query
        var building: Set<String> = []
        /// The plan's one-line description.
        var expected: String
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "equality and range on a compound index's fields, sorted by its last: walk the compound index",
            query: query([equals("cat", .string("c3")), Filter(comparator: .greaterThan, field: .field("n"), value: .int64(10))], sort: [SortDescriptor(field: .field("n"), ascending: false)]),
            expected: "walk INDEX (cat,n) descending, an equality prefix, 2 bounds, 0 filters checked"
        ),
        Case(
            name: "the longest equality prefix wins",
            query: query([equals("cat", .string("c3")), equals("kind", .string("k"))], sort: [SortDescriptor(field: .field("n"))]),
            expected: "walk INDEX (cat,kind,n) ascending, an equality prefix, 2 bounds, 0 filters checked"
        ),
        Case(
            name: "a filter the index does not hold is checked on each entry",
            query: query([equals("cat", .string("c3")), equals("title", .string("x"))], sort: [SortDescriptor(field: .field("n"))]),
            expected: "walk INDEX (cat,n) ascending, an equality prefix, 2 bounds, 1 filter checked"
        ),
        Case(
            name: "a system field in a compound index",
            query: query([equals("kind", .string("news"))], sort: [SortDescriptor(field: .system(.createdTimestamp), ascending: false)]),
            expected: "walk INDEX (kind,___createTime) descending, an equality prefix, 2 bounds, 0 filters checked"
        ),
        Case(
            name: "a compound index being built is not used; a bounded sort field is walked instead",
            query: query([equals("cat", .string("c3")), Filter(comparator: .greaterThan, field: .field("n"), value: .int64(10))], sort: [SortDescriptor(field: .field("n"), ascending: false)]),
            building: ["cat,n", "cat,kind,n"],
            expected: "walk n descending, no equality prefix, 1 bound, 1 filter checked"
        ),
        Case(
            name: "an unbounded sort field is not walked: records lacking it belong in the result",
            query: query([equals("title", .string("x"))], sort: [SortDescriptor(field: .field("score"))]),
            expected: "look up each filter, then sort"
        ),
        Case(
            name: "no sort: lookups",
            query: query([equals("cat", .string("c3")), Filter(comparator: .greaterThan, field: .field("n"), value: .int64(10))], sort: []),
            expected: "look up each filter, then sort"
        ),
        Case(
            name: "sorts in two directions: lookups",
            query: query([equals("cat", .string("c3"))], sort: [SortDescriptor(field: .field("n")), SortDescriptor(field: .field("score"), ascending: false)]),
            expected: "look up each filter, then sort"
        ),
        Case(
            name: "a sort by distance: lookups",
            query: query([equals("cat", .string("c3"))], sort: [SortDescriptor(field: .field("place"), relativeLocation: Location(latitude: 1, longitude: 2))]),
            expected: "look up each filter, then sort"
        ),
        Case(
            name: "BEGINS_WITH on the walked field is a bound",
            query: query([Filter(comparator: .beginsWith, field: .field("cat"), value: .string("c"))], sort: [SortDescriptor(field: .field("cat"))]),
            expected: "walk cat ascending, no equality prefix, 2 bounds, 0 filters checked"
        ),
    ]

    @Test("the planner picks the index that reads the fewest entries", arguments: cases)
    func plans(_ check: Case) {
        let plan = QueryPlanner.plan(check.query, type: Self.schema.recordTypes["Item"], building: check.building)
        #expect(plan.description == check.expected)
    }

    @Test("a walk's bounds are exactly the equal values and the range")
    func bounds() throws {
        let plan = QueryPlanner.plan(
            Self.query([Self.equals("cat", .string("c3")), Filter(comparator: .greaterThan, field: .field("n"), value: .int64(10))], sort: [SortDescriptor(field: .field("n"), ascending: false)]),
            type: Self.schema.recordTypes["Item"], building: []
        )
        guard case .walk(let walk) = plan else {
            Issue.record("expected a walk, got \(plan)")
            return
        }
        let prefix = IndexKey(.text("c3"))
        #expect(walk.prefix == prefix)
        // n > 10: from the first key past every (c3, 10, ...) to the end of c3's keys.
        #expect(walk.lowerBounds == [prefix.appending(IndexKey(.integer(10))).prefixEnd!])
        #expect(walk.upperBounds == [prefix.prefixEnd!])
        #expect(walk.resumeKey(sortKeys: [IndexKey(.integer(42))]) == prefix.appending(IndexKey(.integer(42))))
        // (c3, 11) is inside; (c3, 10), (c3, missing) and anything of c4 are outside.
        let eleven = prefix.appending(IndexKey(.integer(11)))
        #expect(eleven >= walk.lowerBounds[0] && eleven < walk.upperBounds[0])
        #expect(prefix.appending(IndexKey(.integer(10))) < walk.lowerBounds[0])
        #expect(prefix.appending(IndexKey.missing) < walk.lowerBounds[0])
        #expect(IndexKey(.text("c4")).appending(IndexKey(.integer(0))) >= walk.upperBounds[0])
    }

    @Test("development adds the compound index a sorted query with equalities needs, once")
    func missingCompoundIndex() throws {
        var type = try #require(Self.schema.recordTypes["Item"])
        type.compoundIndexes = []
        let query = Self.query(
            [Self.equals("kind", .string("k")), Self.equals("cat", .string("c")), Filter(comparator: .greaterThan, field: .field("n"), value: .int64(1))],
            sort: [SortDescriptor(field: .field("n"), ascending: false)]
        )
        let index = try #require(IndexPolicy.missingCompoundIndex(for: query, in: type))
        #expect(index.fields == ["cat", "kind", "n"])
        type.compoundIndexes = [CompoundIndex(["kind", "cat", "n"])]
        #expect(IndexPolicy.missingCompoundIndex(for: query, in: type) == nil)
        // Lists and unsorted queries get none.
        #expect(IndexPolicy.missingCompoundIndex(for: Self.query([Self.equals("cat", .string("c"))], sort: []), in: type) == nil)
        #expect(IndexPolicy.missingCompoundIndex(
            for: Self.query([Filter(comparator: .listContains, field: .field("tags"), value: .string("x"))], sort: [SortDescriptor(field: .field("n"))]), in: type
        ) == nil)
    }
}
