import StratusModel
import StratusStore
import Testing

/// The one sort order (``IndexKey``) holds in the store as in memory: seeded random records and queries,
/// each answered by the store page by page and by ``RecordMatcher`` over every record.
extension StoreConformance {
    static var orderingCases: [ConformanceCase] {
        [
            ConformanceCase("random queries answer what RecordMatcher answers, in IndexKey order, page by page") { store in
                try await checkRandomQueries(store, seed: 15, records: 1_500, queries: 120)
            },
            ConformanceCase("a query sorted by a compound index reads one page, and its cursor resumes exactly") { store in
                try await checkCompoundPages(store)
            },
        ]
    }

    private static let orderingSchema = """
        DEFINE SCHEMA
            RECORD TYPE Mixed (
                i INT64 QUERYABLE SORTABLE, d DOUBLE QUERYABLE SORTABLE, s STRING QUERYABLE SORTABLE,
                c STRING QUERYABLE, l LIST<STRING> QUERYABLE, "___createTime" TIMESTAMP QUERYABLE SORTABLE,
                INDEX (c, i), INDEX (c, "___createTime"),
                GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator"
            );
        """

    /// Values near the edges of the order: signs, zero, integers beyond 2^53 that one double cannot tell
    /// apart, text with a zero byte, a prefix of another, upper before lower case, and non-ASCII.
    private static let integers: [Int64] = [
        -9_007_199_254_740_993, -3, -1, 0, 1, 2, 3, 7, 42, 9_007_199_254_740_992, 9_007_199_254_740_993,
        Int64.max - 1, Int64.max, Int64.min,
    ]
    private static let doubles: [Double] = [-1e300, -2.5, -1, -0.0, 0, 0.25, 1, 2, 2.5, 1e15, 9_007_199_254_740_992]
    private static let texts = ["", "a", "a\u{0}", "a\u{0}b", "ab", "abc", "B", "b", "é", "ö", "z", "zz", "\u{1F600}"]

    private static func randomRecord(_ index: Int, using generator: inout SeededGenerator) -> RecordOperation {
        var fields: [String: FieldInput] = [:]
        if Int.random(in: 0..<10, using: &generator) > 0 { fields["i"] = Fixture.field(.integer(integers.randomElement(using: &generator)!)) }
        if Int.random(in: 0..<10, using: &generator) > 0 { fields["d"] = Fixture.field(.double(doubles.randomElement(using: &generator)!)) }
        if Int.random(in: 0..<10, using: &generator) > 0 { fields["s"] = Fixture.field(.string(texts.randomElement(using: &generator)!)) }
        if Int.random(in: 0..<10, using: &generator) > 1 { fields["c"] = Fixture.field(.string("c\(Int.random(in: 0..<4, using: &generator))")) }
        let elements = (0..<Int.random(in: 0..<3, using: &generator)).map { _ in JSONValue.string(texts.randomElement(using: &generator)!) }
        fields["l"] = Fixture.field(.array(elements), "STRING_LIST")
        return Fixture.create("m\(index)", type: "Mixed", fields)
    }

    private static func randomFilter(using generator: inout SeededGenerator) -> FilterInput {
        let scalar = ["EQUALS", "NOT_EQUALS", "LESS_THAN", "LESS_THAN_OR_EQUALS", "GREATER_THAN", "GREATER_THAN_OR_EQUALS"]
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return filter(scalar.randomElement(using: &generator)!, "i", .integer(integers.randomElement(using: &generator)!))
        case 1: return filter(scalar.randomElement(using: &generator)!, "d", .double(doubles.randomElement(using: &generator)!))
        case 2: return filter((scalar + ["BEGINS_WITH"]).randomElement(using: &generator)!, "s", .string(texts.randomElement(using: &generator)!))
        case 3: return filter("EQUALS", "c", .string("c\(Int.random(in: 0..<4, using: &generator))"))
        case 4: return filter("LIST_CONTAINS", "l", .string(texts.randomElement(using: &generator)!))
        default:
            let values = (0..<3).map { _ in JSONValue.integer(integers.randomElement(using: &generator)!) }
            return filter("IN", "i", .array(values), type: "INT64_LIST")
        }
    }

    private static func randomSort(using generator: inout SeededGenerator) -> [SortInput] {
        let ascending = Bool.random(using: &generator)
        switch Int.random(in: 0..<6, using: &generator) {
        case 0: return []
        case 1: return [SortInput(fieldName: "i", ascending: ascending)]
        case 2: return [SortInput(fieldName: "d", ascending: ascending)]
        case 3: return [SortInput(fieldName: "s", ascending: ascending)]
        case 4: return [SortInput(systemFieldName: "createdTimestamp", ascending: ascending)]
        default: return [SortInput(fieldName: "i", ascending: ascending), SortInput(fieldName: "s", ascending: !ascending)]
        }
    }

    private static func checkRandomQueries(_ store: any Store, seed: UInt64, records count: Int, queries: Int) async throws {
        let schema = try SchemaLanguage.parse(orderingSchema)
        try await store.changeSchemas(containerID: Fixture.container) { development, _ in
            development.recordTypes["Mixed"] = schema.recordTypes["Mixed"]
        }
        var generator = SeededGenerator(seed: seed)
        let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
        var saved: [Record] = []
        for start in stride(from: 0, to: count, by: 100) {
            let operations = (start..<min(count, start + 100)).map { randomRecord($0, using: &generator) }
            // Each batch its own time, so that sorting by creation time has ties and differences.
            let results = try await store.modifyRecords(RecordBatch(
                zone: zone, operations: operations, atomic: false, caller: Caller(userRecordName: Fixture.alice),
                timestamp: Fixture.now + Int64(start / 300)
            ))
            for result in results {
                guard case .saved(let record) = result else {
                    Issue.record("not saved: \(result)")
                    return
                }
                saved.append(record)
            }
        }
        let memory = try saved.map { record in (record, RecordMatcher(record: record, fields: try record.fields.decode()), try record.fields.decode()) }
        let currentSchema = try await store.schema(containerID: Fixture.container, environment: .development)
        for number in 0..<queries {
            let filters = (0..<Int.random(in: 0...2, using: &generator)).map { _ in randomFilter(using: &generator) }
            let sort = randomSort(using: &generator)
            let input = QueryInput(recordType: "Mixed", filterBy: filters, sortBy: sort)
            let typed = try #require(try QueryTyper.typedQuery(input, schema: currentSchema, environment: .development))
            let expected = Set(memory.filter { $0.1.matches(typed) }.map(\.0.recordName))

            let names = try await allPages(store, input, pageSize: 37)
            let context = "query \(number): \(filters.map { "\($0.fieldName ?? "") \($0.comparator) \(String(describing: $0.fieldValue?.value))" }) sorted by \(sort.map { "\($0.fieldName ?? $0.systemFieldName ?? "") \($0.ascending ?? true)" })"
            #expect(names.count == Set(names).count, "a record came twice: \(context)")
            #expect(Set(names) == expected, "\(context): store \(Set(names).subtracting(expected).sorted()) extra, \(expected.subtracting(names).sorted()) missing")

            let byName = Dictionary(uniqueKeysWithValues: memory.map { ($0.0.recordName, $0) })
            func keys(_ name: String) -> [IndexKey] {
                guard let (record, _, fields) = byName[name] else { return [] }
                return typed.sort.map { descriptor in
                    switch descriptor.field {
                    case .system: IndexKey(.integer(record.created.timestamp))
                    case .field(let field): IndexKey(fields[field].flatMap(IndexEntry.key(for:)))
                    }
                }
            }
            for (earlier, later) in zip(names, names.dropFirst()) {
                let (a, b) = (keys(earlier), keys(later))
                for (position, descriptor) in typed.sort.enumerated() {
                    if a[position] == b[position] { continue }
                    #expect((a[position] < b[position]) == descriptor.ascending, "\(context): \(earlier) before \(later)")
                    break
                }
            }
        }
    }

    /// The names of every record a query returns in the public default zone, page after page.
    private static func allPages(_ store: any Store, _ input: QueryInput, pageSize: Int) async throws -> [String] {
        var names: [String] = []
        var marker: String?
        repeat {
            let page = try await store.queryRecords(RecordQuery(
                database: Fixture.publicDB(), zoneName: ZoneID.defaultZoneName, query: input, limit: pageSize, continuationMarker: marker
            ))
            names += page.records.map(\.recordName)
            marker = page.continuationMarker
        } while marker != nil
        return names
    }

    private static func checkCompoundPages(_ store: any Store) async throws {
        let schema = try SchemaLanguage.parse(orderingSchema)
        try await store.changeSchemas(containerID: Fixture.container) { development, _ in
            development.recordTypes["Mixed"] = schema.recordTypes["Mixed"]
        }
        let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
        for start in stride(from: 0, to: 1_000, by: 200) {
            let operations = (start..<start + 200).map { index in
                // i repeats every 100 records, so that pages end inside runs of equal values.
                Fixture.create("m\(index)", type: "Mixed", ["c": Fixture.field(.string("c\(index % 4)")), "i": Fixture.field(.integer(Int64(index % 100)))])
            }
            try await Fixture.modify(store, zone, operations, atomic: false)
        }
        let input = QueryInput(
            recordType: "Mixed",
            filterBy: [filter("EQUALS", "c", .string("c1")), filter("GREATER_THAN", "i", .integer(20))],
            sortBy: [SortInput(fieldName: "i", ascending: false)]
        )
        let names = try await allPages(store, input, pageSize: 7)
        // c1 holds indexes 1, 5, 9, ...; i = index % 100 > 20; each i value appears 10 times (every 100 records).
        let expected = (0..<1_000).filter { $0 % 4 == 1 && $0 % 100 > 20 }
        #expect(names.count == expected.count && Set(names) == Set(expected.map { "m\($0)" }))
        let values = names.compactMap { Int($0.dropFirst()) }.map { $0 % 100 }
        #expect(values == values.sorted(by: >), "not in descending order of i")
    }
}
