import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    /// A content type with every constraint, installed as the development schema.
    private static func installMessages(_ store: any Store) async throws -> ZoneRef {
        let schema = try SchemaLanguage.parse("""
            DEFINE SCHEMA
                RECORD TYPE Message (
                    title      LOCALIZED STRING REQUIRED NOT EMPTY,
                    isCurrent  BOOLEAN UNIQUE WHERE isCurrent = TRUE,
                    slug       STRING UNIQUE,
                    kind       STRING VALUES ('banner', 'alert'),
                    priority   INT64 RANGE 1..5,
                    GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator"
                );
            """)
        try await store.changeSchemas(containerID: Fixture.container) { development, _ in
            development.recordTypes["Message"] = schema.recordTypes["Message"]
        }
        return Fixture.privateDB().zone(ZoneID.defaultZoneName)
    }

    private static func message(_ name: String, title: JSONValue = .object(["en": .string("Hello")]), _ extra: [String: FieldInput] = [:]) -> RecordOperation {
        var fields = ["title": Fixture.field(title)]
        fields.merge(extra) { _, new in new }
        return Fixture.create(name, type: "Message", fields)
    }

    static var constraintCases: [ConformanceCase] {
        [
            ConformanceCase("REQUIRED, NOT EMPTY, VALUES and RANGE refuse the record, naming field and constraint") { store in
                let zone = try await installMessages(store)
                let refusals: [(RecordOperation, String)] = [
                    (Fixture.create("m0", type: "Message"), "REQUIRED"),
                    (message("m1", title: .object(["en": .string("  ")])), "NOT EMPTY"),
                    (message("m2", ["kind": Fixture.field(.string("popup"))]), "VALUES 'banner', 'alert'"),
                    (message("m3", ["priority": Fixture.field(.integer(9))]), "RANGE 1..5"),
                ]
                for (operation, constraint) in refusals {
                    let failure = Fixture.failure(try await Fixture.modify(store, zone, [operation]))
                    #expect(failure?.error.code == .invalidArgument, "\(constraint)")
                    #expect(failure?.error.message.contains(constraint) == true, "\(failure?.error.message ?? "no error")")
                }
                _ = try await Fixture.save(store, zone, message("ok", ["kind": Fixture.field(.string("alert")), "priority": Fixture.field(.integer(5))]))
            },
            ConformanceCase("UNIQUE refuses a second record with the same value, but not the record itself") { store in
                let zone = try await installMessages(store)
                let first = try await Fixture.save(store, zone, message("m1", ["slug": Fixture.field(.string("welcome"))]))
                let second = try await Fixture.modify(store, zone, [message("m2", ["slug": Fixture.field(.string("welcome"))])])
                #expect(Fixture.failure(second)?.error.code == .uniqueViolation)
                _ = try await Fixture.save(store, zone, RecordOperation(
                    type: .update, recordName: "m1", recordChangeTag: first.recordChangeTag, fields: ["slug": Fixture.field(.string("welcome"))]
                ))
            },
            ConformanceCase("UNIQUE WHERE isCurrent = TRUE keeps at most one current record; an atomic batch can swap it") { store in
                _ = try await installMessages(store)
                let zone = try await Fixture.createZone(store, "Content")
                let current = try await Fixture.save(store, zone, message("m1", ["isCurrent": Fixture.field(.bool(true))]))
                _ = try await Fixture.save(store, zone, message("m2", ["isCurrent": Fixture.field(.bool(false))]))
                let draft = try #require(try await store.lookupRecords(["m2"], in: zone)["m2"])
                let second = try await Fixture.modify(store, zone, [RecordOperation(
                    type: .update, recordName: "m2", recordChangeTag: draft.recordChangeTag, fields: ["isCurrent": Fixture.field(.bool(true))]
                )])
                #expect(Fixture.failure(second)?.error.code == .uniqueViolation)
                // Unset the old one and set the new one in one atomic batch: both happen, in order.
                let swapped = try await Fixture.modify(store, zone, [
                    RecordOperation(type: .update, recordName: "m1", recordChangeTag: current.recordChangeTag, fields: ["isCurrent": Fixture.field(.bool(false))]),
                    RecordOperation(type: .update, recordName: "m2", recordChangeTag: draft.recordChangeTag, fields: ["isCurrent": Fixture.field(.bool(true))]),
                ], atomic: true)
                #expect(swapped.allSatisfy { if case .saved = $0 { true } else { false } })
                // A batch that would leave two current records writes nothing.
                let m1 = try #require(try await store.lookupRecords(["m1"], in: zone)["m1"])
                let both = try await Fixture.modify(store, zone, [
                    RecordOperation(type: .update, recordName: "m1", recordChangeTag: m1.recordChangeTag, fields: ["isCurrent": Fixture.field(.bool(true))]),
                    message("m3"),
                ], atomic: true)
                #expect(Fixture.failure(both, at: 0)?.error.code == .uniqueViolation)
                #expect(Fixture.failure(both, at: 1)?.error.code == .atomicFailure)
                #expect(try await store.lookupRecords(["m3"], in: zone).isEmpty)
            },
            ConformanceCase("development queries add the indexes they need to the schema; production refuses a missing one") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("p1", type: "Post", [
                    "title": Fixture.field(.string("Hello world")), "rank": Fixture.field(.integer(1)),
                ]))
                _ = try await names(store, type: "Post")
                _ = try await names(store, [filter("EQUALS", "title", .string("x")), filter("GREATER_THAN", "rank", .integer(0))], type: "Post")
                _ = try await names(store, [filter("CONTAINS_ANY_TOKENS", "title", .string("hello"))], sort: [SortInput(systemFieldName: "createdTimestamp")], type: "Post")
                let development = try await store.schema(containerID: Fixture.container, environment: .development)
                let post = try #require(development.recordTypes["Post"])
                #expect(post.fields["title"]?.indexes == [.queryable, .searchable])
                #expect(post.fields["rank"]?.indexes == [.sortable])
                #expect(post.systemFieldIndexes["___recordID"] == [.queryable])
                #expect(post.systemFieldIndexes["___createTime"] == [.sortable])

                // Production gets the type without the rank index: querying rank there is refused, naming it.
                try await store.changeSchemas(containerID: Fixture.container) { development, production in
                    var type = development.recordTypes["Post"]!
                    type.fields["rank"]?.indexes = []
                    production.recordTypes["Post"] = type
                }
                let production = DatabaseRef.publicDatabase(Fixture.container, .production)
                await #expect {
                    _ = try await names(store, [filter("LESS_THAN", "rank", .integer(3))], type: "Post", database: production)
                } throws: { error in
                    guard let error = error as? StorageError else { return false }
                    return error.code == .invalidArgument && error.message.contains("'rank'") && error.message.contains("SORTABLE")
                }
                #expect(try await names(store, [filter("EQUALS", "title", .string("Hello world"))], type: "Post", database: production).isEmpty)
            },
            ConformanceCase("BOOLEAN fields and one language of a LOCALIZED_STRING field are queryable and sortable") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("a", type: "Banner", [
                    "text": Fixture.field(.object(["en": .string("No Thanks"), "es": .string("No, Gracias")]), "LOCALIZED_STRING"),
                    "live": Fixture.field(.bool(true)),
                ]))
                _ = try await Fixture.save(store, zone, Fixture.create("b", type: "Banner", [
                    "text": Fixture.field(.object(["en": .string("Accept"), "es": .string("Aceptar")]), "LOCALIZED_STRING"),
                    "live": Fixture.field(.bool(false)),
                ]))
                #expect(try await names(store, [filter("EQUALS", "live", .bool(true))], type: "Banner") == ["a"])
                #expect(try await names(store, [filter("EQUALS", "text.es", .string("Aceptar"))], type: "Banner") == ["b"])
                #expect(try await names(store, [filter("CONTAINS_ANY_TOKENS", "text.es", .string("gracias"))], type: "Banner") == ["a"])
                #expect(try await names(store, sort: [SortInput(fieldName: "text.en")], type: "Banner") == ["b", "a"])
                await #expect(throws: StorageError.self) {
                    _ = try await names(store, [filter("EQUALS", "text", .string("Accept"))], type: "Banner")
                }
            },
        ]
    }
}
