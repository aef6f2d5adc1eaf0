import Foundation
import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var recordCases: [ConformanceCase] {
        [
            ConformanceCase("every field type round-trips exactly") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let fields: [String: FieldInput] = [
                    "s": Fixture.field(.string("héllo \"quoted\"\n")),
                    "maxInt": Fixture.field(.integer(Int64.max)),
                    "minInt": Fixture.field(.integer(Int64.min)),
                    "d": Fixture.field(.double(-0.125)),
                    "b": Fixture.field(.string(Data([0, 1, 2, 255]).base64EncodedString()), "BYTES"),
                    "t": Fixture.field(.integer(1_700_000_000_123), "TIMESTAMP"),
                    "ref": Fixture.field(.object(["recordName": .string("other"), "action": .string("NONE")])),
                    "loc": Fixture.field(.object(["latitude": .double(48.8566), "longitude": .double(2.3522), "altitude": .double(35)])),
                    "strings": Fixture.field(.array([.string("a"), .string("b")])),
                    "ints": Fixture.field(.array([.integer(1), .integer(-2)])),
                    "doubles": Fixture.field(.array([.double(1.5)]), "DOUBLE_LIST"),
                    "times": Fixture.field(.array([.integer(1), .integer(2)]), "TIMESTAMP_LIST"),
                    "blobs": Fixture.field(.array([.string("AAE=")]), "BYTES_LIST"),
                    "refs": Fixture.field(.array([.object(["recordName": .string("x"), "action": .string("NONE")])]), "REFERENCE_LIST"),
                    "locs": Fixture.field(.array([.object(["latitude": .integer(1), "longitude": .integer(2)])]), "LOCATION_LIST"),
                    "empty": Fixture.field(.array([]), "STRING_LIST"),
                ]
                let saved = try await Fixture.save(store, zone, Fixture.create("all", type: "Everything", fields))
                let found = try await store.lookupRecords(["all"], in: zone)
                let record = try #require(found["all"])
                #expect(record.fields == saved.fields)
                let values = try Fixture.fields(of: record)
                #expect(values["s"] == .string("héllo \"quoted\"\n"))
                #expect(values["maxInt"] == .int64(Int64.max))
                #expect(values["minInt"] == .int64(Int64.min))
                #expect(values["d"] == .double(-0.125))
                #expect(values["b"] == .bytes(Data([0, 1, 2, 255])))
                #expect(values["t"] == .timestamp(1_700_000_000_123))
                #expect(values["ref"] == .reference(Reference(recordName: "other")))
                #expect(values["loc"] == .location(Location(latitude: 48.8566, longitude: 2.3522, altitude: 35)))
                #expect(values["strings"] == .list(.string, [.string("a"), .string("b")]))
                #expect(values["ints"] == .list(.int64, [.int64(1), .int64(-2)]))
                #expect(values["doubles"] == .list(.double, [.double(1.5)]))
                #expect(values["times"] == .list(.timestamp, [.timestamp(1), .timestamp(2)]))
                #expect(values["blobs"] == .list(.bytes, [.bytes(Data([0, 1]))]))
                #expect(values["locs"] == .list(.location, [.location(Location(latitude: 1, longitude: 2))]))
                #expect(values["empty"] == .list(.string, []))
                #expect(record.created.userRecordName == Fixture.alice)
                #expect(record.created.timestamp == Fixture.now)
            },
            ConformanceCase("an imported record keeps its source's stamps and short GUID, may be a Users record, and its VALIDATE references may wait for their targets") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let created = RecordStamp(timestamp: 1_500_000_000_000, userRecordName: Fixture.bob, deviceID: "source")
                let modified = RecordStamp(timestamp: 1_600_000_000_000, userRecordName: Fixture.alice, deviceID: "source")
                let stamps = ImportedMetadata(created: created, modified: modified, shortGUID: "kept-guid")
                let operator_ = Caller(userRecordName: "_console", hasAllPermissions: true)
                let results = try await store.modifyRecords(RecordBatch(zone: zone, operations: [
                    RecordOperation(
                        type: .forceReplace, recordName: "n1", recordType: "Note",
                        fields: ["tag": Fixture.field(.object(["recordName": .string("later"), "action": .string("VALIDATE")]))], imported: stamps
                    ),
                    RecordOperation(type: .forceReplace, recordName: Fixture.bob, recordType: Schema.usersType, fields: ["nickname": Fixture.field(.string("b"))], imported: ImportedMetadata(created: created, modified: modified)),
                ], atomic: false, caller: operator_, timestamp: Fixture.now))
                for result in results {
                    guard case .saved(let record) = result else {
                        Issue.record("not saved: \(result)")
                        continue
                    }
                    #expect(record.created == created && record.modified == modified)
                }
                let found = try await store.lookupRecords(["n1", Fixture.bob], in: zone)
                #expect(found["n1"]?.created == created && found["n1"]?.modified == modified)
                #expect(found["n1"]?.shortGUID == "kept-guid")
                #expect(found[Fixture.bob]?.recordType == Schema.usersType)
                // Imported again (a resumed import): the same record, the same stamps.
                _ = try await store.modifyRecords(RecordBatch(zone: zone, operations: [
                    RecordOperation(type: .forceReplace, recordName: "n1", recordType: "Note", fields: [:], imported: stamps),
                ], atomic: false, caller: operator_, timestamp: Fixture.now + 5))
                #expect(try await store.lookupRecords(["n1"], in: zone)["n1"]?.created == created)
                // Without imported stamps, the same operations are refused as from any client.
                let plain = try await store.modifyRecords(RecordBatch(zone: zone, operations: [
                    RecordOperation(type: .create, recordName: Fixture.alice, recordType: Schema.usersType, fields: [:]),
                    RecordOperation(type: .create, recordName: "n2", recordType: "Note", fields: ["tag": Fixture.field(.object(["recordName": .string("later"), "action": .string("VALIDATE")]))]),
                ], atomic: false, caller: operator_, timestamp: Fixture.now))
                #expect(plain.allSatisfy { if case .failed = $0 { true } else { false } })
            },
            ConformanceCase("a transfer's status is saved, replaced by its next one, and listed newest first per container") { store in
                var first = TransferStatus(id: "t1", containerID: Fixture.container, kind: "import cloudkit", peer: "source", state: .running, startedAt: 1, updatedAt: 10)
                try await store.saveTransfer(first)
                try await store.saveTransfer(TransferStatus(id: "t2", containerID: Fixture.container, kind: "import cloudkit", peer: "other", state: .failed, message: "no", startedAt: 1, updatedAt: 20))
                try await store.saveTransfer(TransferStatus(id: "t1", containerID: "iCloud.other", kind: "import cloudkit", peer: "x", state: .running, startedAt: 1, updatedAt: 30))
                first.recordsDone = 5
                first.recordsTotal = 9
                first.state = .finished
                first.updatedAt = 40
                try await store.saveTransfer(first)
                let listed = try await store.transfers(containerID: Fixture.container)
                #expect(listed.map(\.id) == ["t1", "t2"])
                #expect(listed.first == first)
                #expect(listed.last?.message == "no")
            },
            ConformanceCase("creating an existing record fails with conflict and returns the server record") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let saved = try await Fixture.save(store, zone, Fixture.create("n1"))
                let results = try await Fixture.modify(store, zone, [Fixture.create("n1")])
                #expect(Fixture.failure(results)?.error.code == .conflict)
                #expect(Fixture.failure(results)?.serverRecord?.recordChangeTag == saved.recordChangeTag)
            },
            ConformanceCase("saving with a stale change tag fails with conflict and returns the server record") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let first = try await Fixture.save(store, zone, Fixture.create("n1", ["title": Fixture.field(.string("one"))]))
                let second = try await Fixture.save(store, zone, RecordOperation(
                    type: .update, recordName: "n1", recordChangeTag: first.recordChangeTag, fields: ["title": Fixture.field(.string("two"))]
                ))
                #expect(second.recordChangeTag != first.recordChangeTag)
                let stale = try await Fixture.modify(store, zone, [RecordOperation(
                    type: .update, recordName: "n1", recordChangeTag: first.recordChangeTag, fields: ["title": Fixture.field(.string("three"))]
                )])
                let failure = try #require(Fixture.failure(stale))
                #expect(failure.error.code == .conflict)
                #expect(failure.serverRecord?.recordChangeTag == second.recordChangeTag)
                #expect(try failure.serverRecord.map(Fixture.fields(of:))?["title"] == .string("two"))
            },
            ConformanceCase("update merges fields, replace replaces them, null removes one") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let created = try await Fixture.save(store, zone, Fixture.create("n1", [
                    "a": Fixture.field(.string("a")), "b": Fixture.field(.string("b")), "c": Fixture.field(.string("c")),
                ]))
                let updated = try await Fixture.save(store, zone, RecordOperation(
                    type: .update, recordName: "n1", recordChangeTag: created.recordChangeTag,
                    fields: ["a": Fixture.field(.string("A")), "c": Fixture.field(.null)]
                ))
                #expect(try Fixture.fields(of: updated) == ["a": .string("A"), "b": .string("b")])
                let replaced = try await Fixture.save(store, zone, RecordOperation(
                    type: .replace, recordName: "n1", recordChangeTag: updated.recordChangeTag, fields: ["c": Fixture.field(.string("C"))]
                ))
                #expect(try Fixture.fields(of: replaced) == ["c": .string("C")])
                #expect(replaced.created == created.created)
            },
            ConformanceCase("update and replace need the change tag and an existing record") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let missing = try await Fixture.modify(store, zone, [RecordOperation(type: .update, recordName: "nope", recordChangeTag: "x")])
                #expect(Fixture.failure(missing)?.error.code == .notFound)
                _ = try await Fixture.save(store, zone, Fixture.create("n1"))
                let untagged = try await Fixture.modify(store, zone, [RecordOperation(type: .replace, recordName: "n1", fields: [:])])
                #expect(Fixture.failure(untagged)?.error.code == .invalidArgument)
                let untaggedDelete = try await Fixture.modify(store, zone, [RecordOperation(type: .delete, recordName: "n1")])
                #expect(Fixture.failure(untaggedDelete)?.error.code == .invalidArgument)
            },
            ConformanceCase("forceUpdate and forceReplace create missing records and ignore tags") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let created = try await Fixture.save(store, zone, RecordOperation(
                    type: .forceReplace, recordName: "n1", recordType: "Note", fields: ["a": Fixture.field(.integer(1))]
                ))
                #expect(try Fixture.fields(of: created) == ["a": .int64(1)])
                let updated = try await Fixture.save(store, zone, RecordOperation(
                    type: .forceUpdate, recordName: "n1", recordChangeTag: "stale", fields: ["b": Fixture.field(.integer(2))]
                ))
                #expect(try Fixture.fields(of: updated) == ["a": .int64(1), "b": .int64(2)])
                let upserted = try await Fixture.save(store, zone, RecordOperation(type: .forceUpdate, recordName: "n2", recordType: "Note"))
                #expect(upserted.recordName == "n2")
                let typeless = try await Fixture.modify(store, zone, [RecordOperation(type: .forceUpdate, recordName: "n3")])
                #expect(Fixture.failure(typeless)?.error.code == .invalidArgument)
            },
            ConformanceCase("delete checks the tag, forceDelete does not, and deleting a missing record succeeds") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let created = try await Fixture.save(store, zone, Fixture.create("n1"))
                _ = try await Fixture.save(store, zone, Fixture.create("n2"))
                let stale = try await Fixture.modify(store, zone, [RecordOperation(type: .delete, recordName: "n1", recordChangeTag: "stale")])
                #expect(Fixture.failure(stale)?.error.code == .conflict)
                let deleted = try await Fixture.modify(store, zone, [
                    RecordOperation(type: .delete, recordName: "n1", recordChangeTag: created.recordChangeTag),
                    RecordOperation(type: .forceDelete, recordName: "n2"),
                    RecordOperation(type: .forceDelete, recordName: "never-existed"),
                ], atomic: false)
                for result in deleted {
                    guard case .deleted = result else { Issue.record("expected a deletion, got \(result)"); continue }
                }
                #expect(try await store.lookupRecords(["n1", "n2"], in: zone).isEmpty)
                let recreated = try await Fixture.save(store, zone, Fixture.create("n1"))
                #expect(recreated.recordChangeTag != created.recordChangeTag)
            },
            ConformanceCase("an atomic batch in a custom zone is all or nothing") { store in
                let zone = try await Fixture.createZone(store, "Work")
                _ = try await Fixture.save(store, zone, Fixture.create("taken"))
                let results = try await Fixture.modify(store, zone, [Fixture.create("fresh"), Fixture.create("taken")], atomic: true)
                #expect(Fixture.failure(results, at: 0)?.error.code == .atomicFailure)
                #expect(Fixture.failure(results, at: 1)?.error.code == .conflict)
                #expect(try await store.lookupRecords(["fresh"], in: zone).isEmpty)
            },
            ConformanceCase("a non-atomic batch, or any batch in the default zone, keeps the operations that succeed") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("taken"))
                let results = try await Fixture.modify(store, zone, [Fixture.create("fresh"), Fixture.create("taken")], atomic: true)
                guard case .saved = results[0] else { Issue.record("first operation should succeed"); return }
                #expect(Fixture.failure(results, at: 1)?.error.code == .conflict)
                #expect(try await store.lookupRecords(["fresh"], in: zone).count == 1)
            },
            ConformanceCase("users never see each other's private records, and environments never mix") { store in
                let aliceZone = Fixture.privateDB(Fixture.alice).zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, aliceZone, Fixture.create("secret"))
                let bobZone = Fixture.privateDB(Fixture.bob).zone(ZoneID.defaultZoneName)
                #expect(try await store.lookupRecords(["secret"], in: bobZone).isEmpty)
                let production = Fixture.privateDB(Fixture.alice, .production).zone(ZoneID.defaultZoneName)
                #expect(try await store.lookupRecords(["secret"], in: production).isEmpty)
                let bobQuery = try await store.queryRecords(RecordQuery(
                    database: Fixture.privateDB(Fixture.bob), zoneName: nil, query: QueryInput(recordType: "Note"), limit: 200, continuationMarker: nil
                ))
                #expect(bobQuery.records.isEmpty)
            },
            ConformanceCase("in the public database only a record's creator may change or delete it") { store in
                let zone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                let created = try await Fixture.save(store, zone, Fixture.create("post"), as: Fixture.alice)
                let update = try await Fixture.modify(store, zone, [RecordOperation(
                    type: .update, recordName: "post", recordChangeTag: created.recordChangeTag, fields: ["x": Fixture.field(.integer(1))]
                )], as: Fixture.bob)
                #expect(Fixture.failure(update)?.error.code == .accessDenied)
                let delete = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "post")], as: Fixture.bob)
                #expect(Fixture.failure(delete)?.error.code == .accessDenied)
            },
            ConformanceCase("a record's fields are limited to 1 MB") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                let big = String(repeating: "x", count: RecordLimits.maximumRecordBytes)
                let results = try await Fixture.modify(store, zone, [Fixture.create("big", ["body": Fixture.field(.string(big))])])
                #expect(Fixture.failure(results)?.error.code == .limitExceeded)
                let fits = String(repeating: "x", count: RecordLimits.maximumRecordBytes - 100)
                _ = try await Fixture.save(store, zone, Fixture.create("fits", ["body": Fixture.field(.string(fits))]))
            },
        ]
    }
}
