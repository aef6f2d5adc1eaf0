import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var syncCases: [ConformanceCase] {
        [
            ConformanceCase("a client syncing from nothing and then from each token sees every change exactly once") { store in
                let zone = try await Fixture.createZone(store, "Sync")
                var token: String?
                var seen: [String: Int] = [:]
                func drain() async throws {
                    repeat {
                        let page = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: token, limit: 7))
                        for change in page.changes { seen[change.recordName, default: 0] += 1 }
                        #expect(page.changes.count <= 7)
                        token = page.syncToken
                        if !page.moreComing { break }
                    } while true
                }
                for index in 0..<30 { _ = try await Fixture.save(store, zone, Fixture.create("r\(index)")) }
                try await drain()
                #expect(seen.count == 30 && seen.values.allSatisfy { $0 == 1 })
                seen = [:]
                try await drain()
                #expect(seen.isEmpty)
                let r3 = try #require(try await store.lookupRecords(["r3"], in: zone)["r3"])
                _ = try await Fixture.save(store, zone, RecordOperation(type: .update, recordName: "r3", recordChangeTag: r3.recordChangeTag, fields: ["x": Fixture.field(.integer(1))]))
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "r4")])
                _ = try await Fixture.save(store, zone, Fixture.create("r30"))
                let page = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: token, limit: 200))
                #expect(page.changes.map(\.recordName) == ["r3", "r4", "r30"])
                guard case .deleted(let deletion) = page.changes[1] else { Issue.record("r4 should be a deletion"); return }
                #expect(deletion.recordType == "Note")
            },
            ConformanceCase("a feed read from the start holds no deletions, however many there were, and its token still passes them") { store in
                let zone = try await Fixture.createZone(store, "Compacted")
                for index in 0..<30 { _ = try await Fixture.save(store, zone, Fixture.create("gone\(index)")) }
                _ = try await Fixture.modify(store, zone, (0..<30).map { RecordOperation(type: .forceDelete, recordName: "gone\($0)") })
                _ = try await Fixture.save(store, zone, Fixture.create("kept"))
                var token: String?
                var seen: [String] = []
                repeat {
                    let page = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: token, limit: 7))
                    seen += page.changes.map { change in
                        if case .deleted = change { return "deleted \(change.recordName)" }
                        return change.recordName
                    }
                    token = page.syncToken
                    if !page.moreComing { break }
                } while true
                #expect(seen == ["kept"])
                // From that token on, deletions come as before.
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "kept")])
                let after = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: token, limit: 200))
                #expect(after.changes.count == 1)
                guard case .deleted(let deletion)? = after.changes.first else { Issue.record("kept should come as a deletion: \(after.changes)"); return }
                #expect(deletion.recordName == "kept")
            },
            ConformanceCase("a token taken of an empty zone, or of a default zone no write has stored, brings every deletion after it") { store in
                // A device that read the empty zone and then sent records to it must learn when another deletes them.
                let custom = try await Fixture.createZone(store, "Fresh")
                let defaultZone = Fixture.privateDB(Fixture.bob).zone(ZoneID.defaultZoneName)
                for zone in [custom, defaultZone] {
                    let empty = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200))
                    #expect(empty.changes.isEmpty)
                    let owner = zone.database.ownerRecordName
                    _ = try await Fixture.save(store, zone, Fixture.create("sent"), as: owner)
                    _ = try await Fixture.save(store, zone, Fixture.create("stays"), as: owner)
                    _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "sent")], as: owner)
                    let after = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: empty.syncToken, limit: 200))
                    let seen = after.changes.map { change in
                        if case .deleted = change { return "deleted \(change.recordName)" }
                        return change.recordName
                    }
                    #expect(Set(seen) == ["stays", "deleted sent"], "\(zone.zoneName): \(seen)")
                }
            },
            ConformanceCase("a feed through a query holds the matching records; one that stops matching comes as a deletion") { store in
                let zone = try await Fixture.createZone(store, "Filtered")
                for (name, list) in [("a", "groceries"), ("b", "work"), ("c", "groceries")] {
                    _ = try await Fixture.save(store, zone, Fixture.create(name, type: "Item", ["list": Fixture.field(.string(list))]))
                }
                _ = try await Fixture.save(store, zone, Fixture.create("n", type: "Note", ["list": Fixture.field(.string("groceries"))]))
                let groceries = QueryInput(recordType: "Item", filterBy: [
                    FilterInput(comparator: "EQUALS", fieldName: "list", systemFieldName: nil, fieldValue: FieldInput(value: .string("groceries")), distance: nil),
                ])
                let first = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200, matching: groceries))
                #expect(first.changes.map(\.recordName) == ["a", "c"])
                // c moves to another list and a new grocery item appears: c comes as a deletion, d as a record.
                let c = try #require(try await store.lookupRecords(["c"], in: zone)["c"])
                _ = try await Fixture.save(store, zone, RecordOperation(type: .update, recordName: "c", recordChangeTag: c.recordChangeTag, fields: ["list": Fixture.field(.string("work"))]))
                _ = try await Fixture.save(store, zone, Fixture.create("d", type: "Item", ["list": Fixture.field(.string("groceries"))]))
                let next = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: first.syncToken, limit: 200, matching: groceries))
                let seen = next.changes.map { change -> String in
                    if case .deleted = change { return "deleted \(change.recordName)" }
                    return change.recordName
                }
                #expect(seen == ["deleted c", "d"])
            },
            ConformanceCase("a zone's sync token is refused for another zone") { store in
                let a = try await Fixture.createZone(store, "A")
                let b = try await Fixture.createZone(store, "B")
                _ = try await Fixture.save(store, a, Fixture.create("n1"))
                let page = try await store.zoneChanges(ZoneChangesQuery(zone: a, syncToken: nil, limit: 200))
                await #expect {
                    try await store.zoneChanges(ZoneChangesQuery(zone: b, syncToken: page.syncToken, limit: 200))
                } throws: { error in
                    (error as? StorageError)?.code == .invalidArgument
                }
                await #expect(throws: StorageError.self) {
                    try await store.zoneChanges(ZoneChangesQuery(zone: a, syncToken: "garbage!", limit: 200))
                }
            },
            ConformanceCase("changes can be limited to some record types") { store in
                let zone = try await Fixture.createZone(store, "Mixed")
                _ = try await Fixture.save(store, zone, Fixture.create("n1", type: "Note"))
                _ = try await Fixture.save(store, zone, Fixture.create("t1", type: "Task"))
                let page = try await store.zoneChanges(ZoneChangesQuery(zone: zone, syncToken: nil, limit: 200, recordTypes: ["Task"]))
                #expect(page.changes.map(\.recordName) == ["t1"])
            },
            ConformanceCase("database changes list the zones changed since a token, deletions included") { store in
                let database = Fixture.privateDB()
                let first = try await store.databaseChanges(in: database, since: nil, limit: 200)
                let work = try await Fixture.createZone(store, "Work")
                _ = try await Fixture.createZone(store, "Home")
                let second = try await store.databaseChanges(in: database, since: first.syncToken, limit: 200)
                #expect(Set(second.zones.map(\.zoneID.zoneName)) == ["Work", "Home"])
                _ = try await Fixture.save(store, work, Fixture.create("n1"))
                let third = try await store.databaseChanges(in: database, since: second.syncToken, limit: 200)
                #expect(third.zones.map(\.zoneID.zoneName) == ["Work"])
                _ = try await store.modifyZones([.delete(zoneName: "Home")], in: database)
                let fourth = try await store.databaseChanges(in: database, since: third.syncToken, limit: 200)
                #expect(fourth.zones.map(\.zoneID.zoneName) == ["Home"])
                #expect(fourth.zones.first?.deleted == true)
                let paged = try await store.databaseChanges(in: database, since: first.syncToken, limit: 1)
                #expect(paged.zones.count == 1 && paged.moreComing)
                let bob = try await store.databaseChanges(in: Fixture.privateDB(Fixture.bob), since: nil, limit: 200)
                #expect(bob.zones.isEmpty)
            },
        ]
    }
}
