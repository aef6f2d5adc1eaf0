import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var zoneCases: [ConformanceCase] {
        [
            ConformanceCase("zones are created, listed, looked up and deleted with their records") { store in
                let database = Fixture.privateDB()
                var zones = try await store.zones(in: database)
                #expect(zones.map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
                let work = try await Fixture.createZone(store, "Work")
                _ = try await Fixture.createZone(store, "Home")
                zones = try await store.zones(in: database)
                #expect(Set(zones.map(\.zoneID.zoneName)) == [ZoneID.defaultZoneName, "Work", "Home"])
                #expect(zones.first { $0.zoneID.zoneName == "Work" }?.atomic == true)
                #expect(zones.first { $0.zoneID.zoneName == "Work" }?.zoneID.ownerRecordName == Fixture.alice)
                _ = try await Fixture.save(store, work, Fixture.create("n1"))
                let found = try await store.lookupZones(["Work", "Missing"], in: database)
                #expect(Set(found.keys) == ["Work"])
                let deleted = try await store.modifyZones([.delete(zoneName: "Work"), .delete(zoneName: "Missing")], in: database)
                guard case .deleted = deleted[0] else { Issue.record("Work not deleted"); return }
                guard case .failed(_, let error) = deleted[1] else { Issue.record("Missing should fail"); return }
                #expect(error.code == .zoneNotFound)
                await #expect(throws: StorageError.self) { _ = try await store.lookupRecords(["n1"], in: work) }
                let recreated = try await Fixture.createZone(store, "Work")
                #expect(try await store.lookupRecords(["n1"], in: recreated).isEmpty)
            },
            ConformanceCase("writing to a custom zone that does not exist fails with zoneNotFound") { store in
                let zone = Fixture.privateDB().zone("Nowhere")
                await #expect {
                    try await Fixture.modify(store, zone, [Fixture.create("n1")])
                } throws: { error in
                    (error as? StorageError)?.code == .zoneNotFound
                }
            },
            ConformanceCase("the public database has only its default zone") { store in
                let results = try await store.modifyZones([.create(zoneName: "Extra")], in: Fixture.publicDB())
                guard case .failed(_, let error) = results[0] else { Issue.record("public zone created"); return }
                #expect(error.code == .invalidArgument)
            },
        ]
    }
}
