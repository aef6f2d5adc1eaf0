import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    /// Five places with known answers to every comparator.
    private static func seedPlaces(_ store: any Store) async throws -> ZoneRef {
        let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
        func location(_ latitude: Double, _ longitude: Double) -> FieldInput {
            Fixture.field(.object(["latitude": .double(latitude), "longitude": .double(longitude)]))
        }
        func owner(_ name: String) -> FieldInput {
            Fixture.field(.object(["recordName": .string(name), "action": .string("NONE")]))
        }
        func tags(_ values: [String]) -> FieldInput {
            Fixture.field(.array(values.map(JSONValue.string)), "STRING_LIST")
        }
        let places: [(String, [String: FieldInput])] = [
            ("p0", ["name": Fixture.field(.string("Alpha")), "rank": Fixture.field(.integer(1)), "score": Fixture.field(.double(0.5)),
                    "tags": tags(["red", "blue"]), "loc": location(48.8566, 2.3522), "body": Fixture.field(.string("the quick brown fox")), "owner": owner("u1")]),
            ("p1", ["name": Fixture.field(.string("Beta")), "rank": Fixture.field(.integer(2)), "score": Fixture.field(.double(1.5)),
                    "tags": tags(["blue"]), "loc": location(51.5074, -0.1278), "body": Fixture.field(.string("lazy dog sleeps")), "owner": owner("u2")]),
            ("p2", ["name": Fixture.field(.string("Gamma")), "rank": Fixture.field(.integer(3)), "score": Fixture.field(.double(2.5)),
                    "tags": tags(["green", "greenish"]), "loc": location(48.8049, 2.1204), "body": Fixture.field(.string("Quick! The dog.")), "owner": owner("u1")]),
            ("p3", ["name": Fixture.field(.string("alphabet")), "rank": Fixture.field(.integer(4)), "score": Fixture.field(.double(3.5)),
                    "tags": tags([]), "loc": location(35.6762, 139.6503), "body": Fixture.field(.string("nothing here")), "owner": owner("u3")]),
            ("p4", ["name": Fixture.field(.string("Delta")), "rank": Fixture.field(.integer(5)),
                    "tags": tags(["red"]), "body": Fixture.field(.string("Brown fox jumps")), "owner": owner("u2")]),
        ]
        for (name, fields) in places {
            _ = try await Fixture.save(store, zone, Fixture.create(name, type: "Place", fields))
        }
        return zone
    }

    static func filter(_ comparator: String, _ field: String, _ value: JSONValue, type: String? = nil, distance: Double? = nil) -> FilterInput {
        FilterInput(comparator: comparator, fieldName: field, systemFieldName: nil, fieldValue: FieldInput(value: value, type: type), distance: distance)
    }

    static func names(
        _ store: any Store, _ filters: [FilterInput] = [], sort: [SortInput] = [], type: String = "Place",
        database: DatabaseRef = Fixture.publicDB(), zoneName: String? = ZoneID.defaultZoneName
    ) async throws -> [String] {
        let page = try await store.queryRecords(RecordQuery(
            database: database, zoneName: zoneName, query: QueryInput(recordType: type, filterBy: filters, sortBy: sort),
            limit: 200, continuationMarker: nil
        ))
        return page.records.map(\.recordName)
    }

    static var queryCases: [ConformanceCase] {
        let paris: JSONValue = .object(["latitude": .double(48.8566), "longitude": .double(2.3522)])
        let comparisons: [(FilterInput, Set<String>)] = [
            (filter("EQUALS", "name", .string("Beta")), ["p1"]),
            (filter("NOT_EQUALS", "name", .string("Beta")), ["p0", "p2", "p3", "p4"]),
            (filter("LESS_THAN", "rank", .integer(3)), ["p0", "p1"]),
            (filter("LESS_THAN_OR_EQUALS", "rank", .integer(3)), ["p0", "p1", "p2"]),
            (filter("GREATER_THAN", "rank", .integer(3)), ["p3", "p4"]),
            (filter("GREATER_THAN_OR_EQUALS", "rank", .integer(3)), ["p2", "p3", "p4"]),
            (filter("GREATER_THAN_OR_EQUALS", "score", .double(1.5)), ["p1", "p2", "p3"]),
            (filter("IN", "rank", .array([.integer(1), .integer(5)]), type: "INT64_LIST"), ["p0", "p4"]),
            (filter("NOT_IN", "rank", .array([.integer(1), .integer(5)])), ["p1", "p2", "p3"]),
            (filter("BEGINS_WITH", "name", .string("Al")), ["p0"]),
            (filter("NOT_BEGINS_WITH", "name", .string("Al")), ["p1", "p2", "p3", "p4"]),
            (filter("CONTAINS_ALL_TOKENS", "body", .string("quick DOG")), ["p2"]),
            (filter("CONTAINS_ANY_TOKENS", "body", .string("fox dog")), ["p0", "p1", "p2", "p4"]),
            (filter("CONTAINS_ALL_TOKENS", "allTokens", .string("alpha QUICK")), ["p0"]),
            (filter("CONTAINS_ANY_TOKENS", "allTokens", .string("delta dog")), ["p1", "p2", "p4"]),
            (filter("LIST_CONTAINS", "tags", .string("blue")), ["p0", "p1"]),
            (filter("NOT_LIST_CONTAINS", "tags", .string("blue")), ["p2", "p3", "p4"]),
            (filter("LIST_CONTAINS_ANY", "tags", .array([.string("red"), .string("green")])), ["p0", "p2", "p4"]),
            (filter("NOT_LIST_CONTAINS_ANY", "tags", .array([.string("red"), .string("green")])), ["p1", "p3"]),
            (filter("LIST_CONTAINS_ALL", "tags", .array([.string("red"), .string("blue")])), ["p0"]),
            (filter("NOT_LIST_CONTAINS_ALL", "tags", .array([.string("red"), .string("blue")])), ["p1", "p2", "p3", "p4"]),
            (filter("LIST_MEMBER_BEGINS_WITH", "tags", .string("gre")), ["p2"]),
            (filter("NOT_LIST_MEMBER_BEGINS_WITH", "tags", .string("gre")), ["p0", "p1", "p3", "p4"]),
            (filter("NEAR", "loc", paris, distance: 30_000), ["p0", "p2"]),
            (filter("NEAR", "loc", paris, distance: 1_000_000), ["p0", "p1", "p2"]),
            (filter("EQUALS", "owner", .object(["recordName": .string("u1")])), ["p0", "p2"]),
            (FilterInput(comparator: "EQUALS", fieldName: nil, systemFieldName: "recordName", fieldValue: FieldInput(value: .string("p3")), distance: nil), ["p3"]),
            (FilterInput(comparator: "IN", fieldName: nil, systemFieldName: "recordName", fieldValue: FieldInput(value: .array([.string("p1"), .string("p4")])), distance: nil), ["p1", "p4"]),
            (FilterInput(comparator: "EQUALS", fieldName: nil, systemFieldName: "createdUserRecordName", fieldValue: FieldInput(value: .object(["recordName": .string(Fixture.alice)])), distance: nil), ["p0", "p1", "p2", "p3", "p4"]),
        ]
        var cases = comparisons.map { filter, expected in
            ConformanceCase("query \(filter.comparator) on \(filter.fieldName ?? filter.systemFieldName ?? "?") finds exactly the matching records, as the in-memory matcher does") { store in
                let zone = try await seedPlaces(store)
                #expect(Set(try await names(store, [filter])) == expected)
                let schema = try await store.schema(containerID: Fixture.container, environment: .development)
                let query = try #require(try QueryTyper.typedQuery(QueryInput(recordType: "Place", filterBy: [filter]), schema: schema, environment: .development))
                let records = try await store.lookupRecords((0..<5).map { "p\($0)" }, in: zone)
                let matched = try records.values.filter { RecordMatcher(record: $0, fields: try $0.fields.decode()).matches(query) }
                #expect(Set(matched.map(\.recordName)) == expected)
            }
        }
        cases += [
            ConformanceCase("a search of every field (allTokens) takes only the token comparators and sorts nothing") { store in
                _ = try await seedPlaces(store)
                await #expect(throws: StorageError.self) { try await names(store, [filter("EQUALS", "allTokens", .string("Alpha"))]) }
                await #expect(throws: StorageError.self) { try await names(store, sort: [SortInput(fieldName: "allTokens")]) }
            },
            ConformanceCase("query filters are ANDed") { store in
                _ = try await seedPlaces(store)
                let found = try await names(store, [filter("GREATER_THAN_OR_EQUALS", "rank", .integer(2)), filter("LIST_CONTAINS", "tags", .string("blue"))])
                #expect(found == ["p1"])
            },
            ConformanceCase("query results sort by fields, system fields and distance") { store in
                _ = try await seedPlaces(store)
                #expect(try await names(store, sort: [SortInput(fieldName: "rank", ascending: false)]) == ["p4", "p3", "p2", "p1", "p0"])
                #expect(try await names(store, sort: [SortInput(fieldName: "name")]) == ["p0", "p1", "p4", "p2", "p3"])
                #expect(try await names(store, sort: [SortInput(fieldName: "score")]) == ["p4", "p0", "p1", "p2", "p3"])
                #expect(try await names(store, sort: [SortInput(systemFieldName: "recordName", ascending: false)]) == ["p4", "p3", "p2", "p1", "p0"])
                let byDistance = SortInput(fieldName: "loc", relativeLocation: FieldInput(value: paris))
                #expect(try await names(store, sort: [byDistance]) == ["p0", "p2", "p1", "p3", "p4"])
                #expect(try await names(store, [filter("NEAR", "loc", paris, distance: 1_000_000)], sort: [byDistance]) == ["p0", "p2", "p1"])
            },
            ConformanceCase("continuation markers return every matching record exactly once while records are written between pages") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                for index in 0..<45 {
                    _ = try await Fixture.save(store, zone, Fixture.create("r\(index)", type: "Row", ["n": Fixture.field(.integer(Int64(index % 9)))]))
                }
                for sort in [[SortInput](), [SortInput(fieldName: "n", ascending: false)], [SortInput(fieldName: "n"), SortInput(systemFieldName: "recordName")]] {
                    var seen: [String: Int] = [:]
                    var marker: String?
                    var pages = 0
                    repeat {
                        let page = try await store.queryRecords(RecordQuery(
                            database: Fixture.publicDB(), zoneName: ZoneID.defaultZoneName,
                            query: QueryInput(recordType: "Row", filterBy: [filter("GREATER_THAN_OR_EQUALS", "n", .integer(0))], sortBy: sort),
                            limit: 10, continuationMarker: marker
                        ))
                        #expect(page.records.count <= 10)
                        for record in page.records { seen[record.recordName, default: 0] += 1 }
                        // A write between pages: new records must not disturb the ones already counted.
                        _ = try await Fixture.save(store, zone, Fixture.create("extra\(sort.count)-\(pages)", type: "Row", ["n": Fixture.field(.integer(4))]))
                        marker = page.continuationMarker
                        pages += 1
                    } while marker != nil && pages < 50
                    for index in 0..<45 { #expect(seen["r\(index)"] == 1, "r\(index) with sort \(sort)") }
                    #expect(seen.values.allSatisfy { $0 == 1 })
                }
            },
            ConformanceCase("a continuation marker is refused for another query") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                for index in 0..<3 { _ = try await Fixture.save(store, zone, Fixture.create("r\(index)", type: "Row")) }
                let first = try await store.queryRecords(RecordQuery(
                    database: Fixture.publicDB(), zoneName: ZoneID.defaultZoneName, query: QueryInput(recordType: "Row"), limit: 1, continuationMarker: nil
                ))
                let marker = try #require(first.continuationMarker)
                await #expect {
                    try await store.queryRecords(RecordQuery(
                        database: Fixture.publicDB(), zoneName: ZoneID.defaultZoneName,
                        query: QueryInput(recordType: "Row", sortBy: [SortInput(systemFieldName: "recordName")]), limit: 1, continuationMarker: marker
                    ))
                } throws: { error in
                    (error as? StorageError)?.code == .invalidArgument
                }
            },
            ConformanceCase("a zone-wide query searches every zone of the database") { store in
                let work = try await Fixture.createZone(store, "Work")
                let home = try await Fixture.createZone(store, "Home")
                _ = try await Fixture.save(store, work, Fixture.create("w1"))
                _ = try await Fixture.save(store, home, Fixture.create("h1"))
                let all = try await names(store, type: "Note", database: Fixture.privateDB(), zoneName: nil)
                #expect(Set(all) == ["w1", "h1"])
                let one = try await names(store, type: "Note", database: Fixture.privateDB(), zoneName: "Work")
                #expect(one == ["w1"])
            },
            ConformanceCase("queries that do not fit the schema are refused") { store in
                _ = try await seedPlaces(store)
                let bad: [FilterInput] = [
                    filter("LIST_CONTAINS", "name", .string("x")),
                    filter("BEGINS_WITH", "rank", .integer(1)),
                    filter("NEAR", "loc", paris),
                    filter("SOUNDS_LIKE", "name", .string("x")),
                    filter("EQUALS", "rank", .string("one")),
                    filter("EQUALS", "tags", .string("red")),
                ]
                for input in bad {
                    await #expect(throws: StorageError.self, "\(input.comparator) on \(input.fieldName ?? "")") {
                        _ = try await names(store, [input])
                    }
                }
                #expect(try await names(store, type: "NotYetSaved").isEmpty)
                await #expect(throws: StorageError.self) {
                    _ = try await names(store, type: "Place", database: Fixture.publicDB(.production))
                }
            },
        ]
        return cases
    }
}
