import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var schemaCases: [ConformanceCase] {
        [
            ConformanceCase("in development, saving creates unknown record types and fields") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("m1", type: "Message", [
                    "title": Fixture.field(.string("Hi")), "version": Fixture.field(.integer(2)),
                    "at": Fixture.field(.integer(5), "TIMESTAMP"),
                ]))
                let schema = try await store.schema(containerID: Fixture.container, environment: .development)
                let message = try #require(schema.recordTypes["Message"])
                #expect(message.fields["title"]?.type == FieldType(.string))
                #expect(message.fields["version"]?.type == FieldType(.int64))
                #expect(message.fields["at"]?.type == FieldType(.timestamp))
                #expect(schema.recordTypes["Users"] != nil)
            },
            ConformanceCase("a value of another type for an existing field is refused") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("m1", type: "Message", ["version": Fixture.field(.integer(2))]))
                let wrong = try await Fixture.modify(store, zone, [Fixture.create("m2", type: "Message", ["version": Fixture.field(.string("two"))])])
                #expect(Fixture.failure(wrong)?.error.code == .invalidArgument)
                let declared = try await Fixture.modify(store, zone, [Fixture.create("m3", type: "Message", ["version": Fixture.field(.integer(3), "DOUBLE")])])
                #expect(Fixture.failure(declared)?.error.code == .invalidArgument)
                // A bare number on a TIMESTAMP field is read as milliseconds.
                _ = try await Fixture.save(store, zone, Fixture.create("m4", type: "Message", ["at": Fixture.field(.integer(9), "TIMESTAMP")]))
                let typed = try await Fixture.save(store, zone, Fixture.create("m5", type: "Message", ["at": Fixture.field(.integer(10))]))
                #expect(try Fixture.fields(of: typed)["at"] == .timestamp(10))
            },
            ConformanceCase("a failed save leaves no trace in the schema") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("m1", type: "Message"))
                // The new field is typed, then the save fails on its VALIDATE reference to a missing record.
                let dangling = Fixture.field(.object(["recordName": .string("missing"), "action": .string("VALIDATE")]), "REFERENCE")
                let failed = try await Fixture.modify(store, zone, [Fixture.create("m2", type: "Message", ["ghost": Fixture.field(.integer(1)), "link": dangling])])
                #expect(Fixture.failure(failed)?.error.code == .validatingReference)
                let schema = try await store.schema(containerID: Fixture.container, environment: .development)
                #expect(schema.recordTypes["Message"]?.fields["ghost"] == nil)
                #expect(schema.recordTypes["Message"]?.fields["link"] == nil)
            },
            ConformanceCase("in production, unknown record types and fields are refused") { store in
                let zone = Fixture.publicDB(.production).zone(ZoneID.defaultZoneName)
                let unknownType = try await Fixture.modify(store, zone, [Fixture.create("m1", type: "Message")])
                #expect(Fixture.failure(unknownType)?.error.code == .notFound)
                let schema = try await store.schema(containerID: Fixture.container, environment: .production)
                #expect(schema.recordTypes["Message"] == nil)
            },
            ConformanceCase("schemas change together in one transaction, and not at all when the change fails") { store in
                try await store.changeSchemas(containerID: Fixture.container) { development, production in
                    development.roles.insert("Admin")
                    production.recordTypes["Banner"] = RecordTypeSchema(name: "Banner", fields: ["text": FieldSchema(type: FieldType(.string))])
                }
                #expect(try await store.schema(containerID: Fixture.container, environment: .development).roles == ["Admin"])
                #expect(try await store.schema(containerID: Fixture.container, environment: .production).recordTypes["Banner"] != nil)
                await #expect(throws: StorageError.self) {
                    try await store.changeSchemas(containerID: Fixture.container) { development, _ in
                        development.roles.insert("Ghost")
                        throw StorageError(.invalidArgument, "refused")
                    }
                }
                #expect(try await store.schema(containerID: Fixture.container, environment: .development).roles == ["Admin"])
                // A production type now exists: saving it in production works, with its declared field.
                let zone = Fixture.publicDB(.production).zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("b1", type: "Banner", ["text": Fixture.field(.string("Hi"))]))
            },
            ConformanceCase("a schema import that loses records is refused with their counts; forced, it removes the records of a removed type (deletions in the change feed) and the values of a removed field") { store in
                let zone = try await Fixture.createZone(store, "Notes")
                _ = try await Fixture.save(store, zone, Fixture.create("n1", type: "Note", ["title": Fixture.field(.string("kept")), "body": Fixture.field(.string("gone"))]))
                _ = try await Fixture.save(store, zone, Fixture.create("t1", type: "Task", ["title": Fixture.field(.string("x"))]))
                _ = try await Fixture.save(store, zone, Fixture.create("t2", type: "Task"))
                let before = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200)).syncToken
                var reduced = try await store.schema(containerID: Fixture.container, environment: .development)
                reduced.recordTypes["Task"] = nil
                reduced.recordTypes["Note"]?.fields["body"] = nil

                let refusal = await #expect(throws: StorageError.self) {
                    try await store.importDevelopmentSchema(reduced, containerID: Fixture.container, force: false)
                }
                #expect(refusal?.code == .invalidArgument)
                #expect(refusal?.message.contains("record type Task, which 2 records hold") == true, "\(String(describing: refusal))")
                #expect(refusal?.message.contains("field Note.body, which 1 record holds") == true, "\(String(describing: refusal))")
                #expect(try await store.lookupRecords(["t1", "t2"], in: zone).count == 2)

                let changes = try await store.importDevelopmentSchema(reduced, containerID: Fixture.container, force: true)
                #expect(Set(changes.map(\.kind)) == [.removeRecordType, .removeField])
                #expect(try await store.lookupRecords(["t1", "t2"], in: zone).isEmpty)
                let note = try #require(try await store.lookupRecords(["n1"], in: zone)["n1"])
                #expect(try Fixture.fields(of: note) == ["title": .string("kept")])
                #expect(try await store.recordCount(ofType: "Task", holding: nil, containerID: Fixture.container, environment: .development) == 0)
                let after = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: before, limit: 200))
                let deleted = Set(after.changes.compactMap { change -> String? in
                    if case .deleted = change { return change.recordName }
                    return nil
                })
                #expect(deleted == ["t1", "t2"], "changes after the removal: \(after.changes.map(\.recordName))")
            },
            ConformanceCase("field values must fit their declared type") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let cases: [FieldInput] = [
                    Fixture.field(.string("abc"), "INT64"),
                    Fixture.field(.object(["latitude": .integer(100), "longitude": .integer(0)]), "LOCATION"),
                    Fixture.field(.string("not base64!"), "BYTES"),
                    Fixture.field(.integer(1), "WHATEVER"),
                    Fixture.field(.object([:])),
                ]
                for (index, input) in cases.enumerated() {
                    let results = try await Fixture.modify(store, zone, [Fixture.create("bad\(index)", type: "Bad", ["f\(index)": input])])
                    #expect(Fixture.failure(results)?.error.code == .invalidArgument, "case \(index)")
                }
            },
        ]
    }

    static var referenceCases: [ConformanceCase] {
        [
            ConformanceCase("deleting a record deletes, transitively, the records that point at it with DELETE_SELF") { store in
                let zone = try await Fixture.createZone(store, "Chat")
                func reference(_ name: String, _ action: String) -> FieldInput {
                    Fixture.field(.object(["recordName": .string(name), "action": .string(action)]))
                }
                _ = try await Fixture.save(store, zone, Fixture.create("room", type: "Room"))
                _ = try await Fixture.save(store, zone, Fixture.create("msg", type: "Message", ["room": reference("room", "DELETE_SELF")]))
                _ = try await Fixture.save(store, zone, Fixture.create("reaction", type: "Reaction", ["message": reference("msg", "DELETE_SELF")]))
                _ = try await Fixture.save(store, zone, Fixture.create("bookmark", type: "Bookmark", ["message": reference("msg", "NONE")]))
                let before = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200))
                let results = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "room")])
                guard case .deleted = results[0] else { Issue.record("room not deleted: \(results)"); return }
                let left = try await store.lookupRecords(["room", "msg", "reaction", "bookmark"], in: zone)
                #expect(Set(left.keys) == ["bookmark"])
                let changes = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: before.syncToken, limit: 200))
                let deleted = changes.changes.compactMap { change -> String? in
                    if case .deleted(let deletion) = change { return deletion.recordName }
                    return nil
                }
                #expect(Set(deleted) == ["room", "msg", "reaction"])
            },
            ConformanceCase("a VALIDATE reference must point at an existing record, which it then protects") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let dangling = try await Fixture.modify(store, zone, [Fixture.create("order", type: "Order", [
                    "customer": Fixture.field(.object(["recordName": .string("nobody"), "action": .string("VALIDATE")])),
                ])])
                #expect(Fixture.failure(dangling)?.error.code == .validatingReference)
                _ = try await Fixture.save(store, zone, Fixture.create("customer", type: "Customer"))
                _ = try await Fixture.save(store, zone, Fixture.create("order", type: "Order", [
                    "customer": Fixture.field(.object(["recordName": .string("customer"), "action": .string("VALIDATE")])),
                ]))
                let protected = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "customer")])
                #expect(Fixture.failure(protected)?.error.code == .validatingReference)
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "order")])
                let now = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "customer")])
                guard case .deleted = now[0] else { Issue.record("customer should be deletable now: \(now)"); return }
            },
        ]
    }
}
