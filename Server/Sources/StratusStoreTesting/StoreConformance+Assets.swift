import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var assetCases: [ConformanceCase] {
        [
            ConformanceCase("an upload is invisible until complete, then a record takes it with its receipt") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                try await store.beginAssetUpload(id: "a1", database: zone.database, holdUntil: Fixture.now + 60_000)
                #expect(try await store.asset(id: "a1") == nil)
                try await AssetFixture.complete(store, "a1", receipt: "r1", field: "image", database: zone.database)
                #expect(try await store.asset(id: "a1")?.size == 10)
                let record = try await Fixture.save(store, zone, Fixture.create("p1", type: "Photo", ["image": AssetFixture.value("r1")]))
                guard case .asset(let stored)? = try Fixture.fields(of: record)["image"] else { Issue.record("no asset"); return }
                #expect(stored.assetID == "a1")
                #expect(stored.receipt == nil)
                #expect(stored.fileChecksum == "c-a1")
            },
            ConformanceCase("receipts are refused when expired, reused, for another field, database or checksum") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                try await AssetFixture.upload(store, "a1", receipt: "r1", field: "image", database: zone.database)
                _ = try await Fixture.save(store, zone, Fixture.create("p1", type: "Photo", ["image": AssetFixture.value("r1")]))
                let reused = try await Fixture.modify(store, zone, [Fixture.create("p2", type: "Photo", ["image": AssetFixture.value("r1")])])
                #expect(Fixture.failure(reused)?.error.code == .invalidArgument)
                try await AssetFixture.upload(store, "a2", receipt: "r2", field: "image", database: zone.database)
                let wrongField = try await Fixture.modify(store, zone, [Fixture.create("p3", type: "Photo", ["thumb": AssetFixture.value("r2", asset: "a2")])])
                #expect(Fixture.failure(wrongField)?.error.code == .invalidArgument)
                let wrongChecksum = try await Fixture.modify(store, zone, [Fixture.create("p4", type: "Photo", ["image": AssetFixture.value("r2", asset: "other")])])
                #expect(Fixture.failure(wrongChecksum)?.error.code == .invalidArgument)
                let otherDatabase = Fixture.privateDB(Fixture.bob).zone(ZoneID.defaultZoneName)
                let stolen = try await Fixture.modify(store, otherDatabase, [Fixture.create("p5", type: "Photo", ["image": AssetFixture.value("r2", asset: "a2")])], as: Fixture.bob)
                #expect(Fixture.failure(stolen)?.error.code == .invalidArgument)
                let late = try await store.modifyRecords(RecordBatch(
                    zone: zone, operations: [Fixture.create("p6", type: "Photo", ["image": AssetFixture.value("r2", asset: "a2")])],
                    atomic: true, caller: Caller(userRecordName: Fixture.alice), timestamp: Fixture.now + 3_600_000
                ))
                #expect(Fixture.failure(late)?.error.code == .invalidArgument)
            },
            ConformanceCase("an asset is collected once no record holds it and its hold has passed") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                try await AssetFixture.upload(store, "a1", receipt: "r1", field: "image", database: zone.database)
                try await AssetFixture.upload(store, "a2", receipt: "r2", field: "image", database: zone.database)
                let held = try await Fixture.save(store, zone, Fixture.create("p1", type: "Photo", ["image": AssetFixture.value("r1")]))
                #expect(try await store.assetsToCollect(now: Fixture.now, limit: 10).isEmpty)
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10) == ["a2"])
                // A collection a crash interrupted (files deleted, rows not yet forgotten) is found again.
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10) == ["a2"])
                try await store.forgetAssets(ids: ["a2"])
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10).isEmpty)
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .delete, recordName: "p1", recordChangeTag: held.recordChangeTag)])
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10) == ["a1"])
            },
            ConformanceCase("a receipt holds its asset against collection; a collected asset gets no receipt") { store in
                let zone = Fixture.privateDB().zone(ZoneID.defaultZoneName)
                try await AssetFixture.upload(store, "a1", receipt: "r1", field: "image", database: zone.database)
                try await AssetFixture.upload(store, "a2", receipt: "r2", field: "image", database: zone.database)
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 1) == ["a1"])
                let gone = try await store.issueAssetReceipts([
                    AssetReceipt(receipt: "x1", assetID: "a1", fieldName: nil, expiresAt: Fixture.now + 7_200_000),
                    AssetReceipt(receipt: "x2", assetID: "a2", fieldName: nil, expiresAt: Fixture.now + 7_200_000),
                ])
                #expect(gone == ["a1"])
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10) == ["a1"])
                _ = try await Fixture.save(store, zone, Fixture.create("p1", type: "Photo", ["cover": AssetFixture.value("x2", asset: "a2")]))
            },
            ConformanceCase("an abandoned upload is forgotten at once") { store in
                let database = Fixture.privateDB()
                try await store.beginAssetUpload(id: "a1", database: database, holdUntil: Fixture.now + 60_000)
                try await store.abandonAssetUpload(id: "a1")
                #expect(try await store.assetsToCollect(now: Fixture.now + 3_600_000, limit: 10).isEmpty)
                await #expect(throws: StorageError.self) {
                    try await AssetFixture.complete(store, "a1", receipt: "r1", field: "image", database: database)
                }
            },
        ]
    }
}

/// Uploads as the server records them, with made-up checksums.
enum AssetFixture {
    static func upload(_ store: any Store, _ id: String, receipt: String, field: String, database: DatabaseRef) async throws {
        try await store.beginAssetUpload(id: id, database: database, holdUntil: Fixture.now + 60_000)
        try await complete(store, id, receipt: receipt, field: field, database: database)
    }

    static func complete(_ store: any Store, _ id: String, receipt: String, field: String, database: DatabaseRef) async throws {
        try await store.completeAssetUpload(
            StoredAsset(id: id, database: database, size: 10, fileChecksum: "c-\(id)", contentType: "image/png"),
            receipt: AssetReceipt(receipt: receipt, assetID: id, fieldName: field, expiresAt: Fixture.now + 900_000)
        )
    }

    /// The value a client saves: the upload's answer.
    static func value(_ receipt: String, asset: String = "a1") -> FieldInput {
        Fixture.field(.object(["receipt": .string(receipt), "fileChecksum": .string("c-\(asset)"), "size": .integer(10)]), "ASSETID")
    }
}
