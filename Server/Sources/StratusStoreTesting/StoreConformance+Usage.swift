import StratusModel
import StratusStore
import Testing

/// Quotas, storage measurements and request counts.
extension StoreConformance {
    static var usageCases: [ConformanceCase] {
        [
            ConformanceCase("quotas are kept per container and as defaults; an empty set removes them") { store in
                #expect(try await store.quotas().isEmpty)
                try await store.setQuotas(Quotas(userStorageBytes: 1_000_000, addressRequestsPerMinute: 600), containerID: nil)
                try await store.setQuotas(Quotas(publicStorageBytes: 0, userRequestsPerMinute: 120), containerID: Fixture.container)
                let stored = try await store.quotas()
                #expect(stored[Quotas.defaultsKey] == Quotas(userStorageBytes: 1_000_000, addressRequestsPerMinute: 600))
                #expect(stored[Fixture.container] == Quotas(publicStorageBytes: 0, userRequestsPerMinute: 120))
                let effective = stored[Fixture.container]!.filled(from: stored[Quotas.defaultsKey]!)
                #expect(effective == Quotas(publicStorageBytes: 0, userStorageBytes: 1_000_000, userRequestsPerMinute: 120, addressRequestsPerMinute: 600))
                #expect(Quotas.limit(effective.publicStorageBytes) == nil && Quotas.limit(effective.userStorageBytes) == 1_000_000)
                try await store.setQuotas(Quotas(), containerID: Fixture.container)
                #expect(try await store.quotas().keys.sorted() == [Quotas.defaultsKey])
            },
            ConformanceCase("storage is measured per database: live records' fields in bytes, and the asset files they hold") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, zone, Fixture.create("ascii", ["text": Fixture.field(.string("aaaa"))]))
                _ = try await Fixture.save(store, zone, Fixture.create("accents", ["text": Fixture.field(.string("éééé"))]))
                try await AssetFixture.upload(store, "a1", receipt: "r1", field: "image", database: zone.database)
                _ = try await Fixture.save(store, zone, Fixture.create("photo", type: "Photo", ["image": AssetFixture.value("r1")]))
                let publicZone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                _ = try await Fixture.save(store, publicZone, Fixture.create("notice", ["text": Fixture.field(.string("hello"))]))
                #expect(try await store.measureStorage(now: Fixture.now) == 2)
                let alice = try #require(try await store.storageUsage(of: Fixture.privateDB()))
                #expect(alice.records == 3 && alice.assetBytes == 10 && alice.measuredAt == Fixture.now, "\(alice)")
                let publicUse = try #require(try await store.storageUsage(of: Fixture.publicDB()))
                #expect(publicUse.records == 1 && publicUse.assetBytes == 0 && publicUse.recordBytes > 5, "\(publicUse)")
                #expect(try await store.storageUsage(of: Fixture.privateDB(Fixture.bob)) == nil)
                #expect(try await store.storageUsage(containerID: Fixture.container, limit: 10).map(\.database) == [Fixture.publicDB(), Fixture.privateDB()])

                // Bytes, not characters: "é" is two bytes in UTF-8.
                let withAccents = alice.recordBytes
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "accents")])
                _ = try await Fixture.save(store, zone, Fixture.create("accents2", ["text": Fixture.field(.string("aaaa"))]))
                try await store.measureStorage(now: Fixture.now + 1)
                let after = try #require(try await store.storageUsage(of: Fixture.privateDB()))
                #expect(withAccents - after.recordBytes == 4, "four two-byte characters replaced by one-byte ones: \(withAccents) → \(after.recordBytes)")

                // Deleted records and the files only they held no longer count.
                _ = try await Fixture.modify(store, zone, ["ascii", "accents2", "photo"].map { RecordOperation(type: .forceDelete, recordName: $0) })
                try await store.measureStorage(now: Fixture.now + 2)
                #expect(try await store.storageUsage(of: Fixture.privateDB()) == nil)
                #expect(try await store.storageUsage(of: Fixture.publicDB())?.measuredAt == Fixture.now + 2)
            },
            ConformanceCase("request counts add up across callers per key and minute, and old minutes are swept") { store in
                let first = try await store.addRequestCounts([
                    RequestCount(key: "user|c|ann", window: 100, count: 3), RequestCount(key: "address|c|1.2.3.4", window: 100, count: 1),
                ])
                #expect(Set(first) == [RequestCount(key: "user|c|ann", window: 100, count: 3), RequestCount(key: "address|c|1.2.3.4", window: 100, count: 1)])
                let second = try await store.addRequestCounts([
                    RequestCount(key: "user|c|ann", window: 100, count: 2), RequestCount(key: "user|c|ann", window: 101, count: 0),
                ])
                #expect(Set(second) == [RequestCount(key: "user|c|ann", window: 100, count: 5), RequestCount(key: "user|c|ann", window: 101, count: 0)])
                let read = try await store.requestCounts(keys: ["user|c|ann", "address|c|1.2.3.4", "nobody"], windows: [99, 100])
                #expect(Set(read) == [RequestCount(key: "user|c|ann", window: 100, count: 5), RequestCount(key: "address|c|1.2.3.4", window: 100, count: 1)])
                try await store.sweepRequestCounts(before: 101)
                #expect(try await store.requestCounts(keys: ["user|c|ann", "address|c|1.2.3.4"], windows: [100, 101]) == [
                    RequestCount(key: "user|c|ann", window: 101, count: 0),
                ])
            },
        ]
    }
}
