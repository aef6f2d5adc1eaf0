import Foundation
@testable import StratusCloudKit
import Testing

/// StratusCloudKit's containers, records, zones and errors against a live server, written from CloudKit's documented
/// behaviour: what an app's CloudKit code reads and gets back.
@Suite struct CloudKitRecordsTests {
    /// A signed-up user's container, as `CKContainer.default()` gives it once configured.
    static func signedUp(_ server: KitTestServer, _ email: String) async throws -> CKContainer {
        CKContainer(try await server.signedUp(email))
    }

    @Test("fields read back as CloudKit gives them: as? String, Int, Double, Date, [String], Data, Reference, CLLocation")
    func fieldsReadAsOnApplesPlatforms() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.signedUp(server, "ann@example.com").privateCloudDatabase
            let when = Date(timeIntervalSince1970: 1_790_000_000.123)
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1"))
            note["title"] = "Groceries"
            note["count"] = 3
            note["score"] = 4.5
            note["done"] = true
            note["due"] = when
            note["tags"] = ["milk", "eggs"]
            note["blob"] = Data([1, 2, 3])
            note["place"] = CLLocation(latitude: 48.85, longitude: 2.35)
            note["link"] = CKRecord.Reference(recordID: CKRecord.ID(recordName: "other"), action: .none)
            #expect(note.changedKeys() == ["blob", "count", "done", "due", "link", "place", "score", "tags", "title"])
            #expect(note.recordChangeTag == nil)

            let saved = try await database.save(note)
            #expect(saved.recordChangeTag != nil && saved.creationDate != nil && saved.changedKeys().isEmpty)
            let fetched = try await database.record(for: CKRecord.ID(recordName: "n1"))
            #expect(fetched["title"] as? String == "Groceries")
            #expect(fetched["count"] as? Int == 3)
            #expect(fetched["count"] as? Double == 3)
            #expect(fetched["score"] as? Double == 4.5)
            #expect(fetched["done"] as? Int == 1)
            #expect(fetched["due"] as? Date == when, "dates keep milliseconds, as CloudKit does")
            #expect(fetched["tags"] as? [String] == ["milk", "eggs"])
            #expect(fetched["blob"] as? Data == Data([1, 2, 3]))
            #expect((fetched["place"] as? CLLocation)?.coordinate.latitude == 48.85)
            #expect((fetched["link"] as? CKRecord.Reference)?.recordID.recordName == "other")
            let count: Int? = fetched["count"]
            let title: String? = fetched.object(forKey: "title") as? String
            #expect(count == 3 && title == "Groceries")
            #expect(fetched["missing"] == nil && fetched["title"] as? Int == nil)
            #expect(fetched.allKeys().sorted() == ["blob", "count", "done", "due", "link", "place", "score", "tags", "title"])
            #expect(fetched.recordID == CKRecord.ID(recordName: "n1") && fetched.recordID.zoneID.ownerName == CKCurrentUserDefaultName)
        }
    }

    @Test("an edit of a stale version fails with serverRecordChanged carrying the server's record; catch CKError.code matches")
    func conflicts() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.signedUp(server, "bob@example.com").privateCloudDatabase
            let note = CKRecord(recordType: "Note")
            note["title"] = "first"
            let saved = try await database.save(note)
            let stale = saved.copy() as! CKRecord
            saved["title"] = "second"
            _ = try await database.save(saved)
            stale["title"] = "stale"
            do {
                _ = try await database.save(stale)
                Issue.record("a stale save went through")
            } catch let error as CKError where error.code == .serverRecordChanged {
                #expect(error.serverRecord?["title"] as? String == "second", "\(error)")
                #expect(error.clientRecord?["title"] as? String == "stale")
            }
            _ = try await database.deleteRecord(withID: note.recordID)
            do {
                _ = try await database.record(for: note.recordID)
                Issue.record("a deleted record was fetched")
            } catch CKError.unknownItem {
            }
        }
    }

    @Test("system fields archived with NSKeyedArchiver make a record that saves as an edit of that version; records and IDs round-trip")
    func archiving() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.signedUp(server, "cy@example.com").privateCloudDatabase
            let note = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "kept"))
            note["title"] = "v1"
            note["body"] = "text"
            let saved = try await database.save(note)

            let archiver = NSKeyedArchiver(requiringSecureCoding: true)
            saved.encodeSystemFields(with: archiver)
            archiver.finishEncoding()
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archiver.encodedData)
            unarchiver.requiresSecureCoding = true
            let restored = try #require(CKRecord(coder: unarchiver))
            #expect(restored.recordChangeTag == saved.recordChangeTag && restored.allKeys().isEmpty && restored.recordType == "Note")
            restored["title"] = "v2"
            let edited = try await database.save(restored)
            #expect(edited["title"] as? String == "v2" && edited["body"] as? String == "text", "the fields not set stay on the server")

            let whole = try NSKeyedArchiver.archivedData(withRootObject: edited, requiringSecureCoding: true)
            let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.self, from: whole))
            #expect(back["title"] as? String == "v2" && back.recordChangeTag == edited.recordChangeTag)
            let id = CKRecord.ID(recordName: "r", zoneID: CKRecordZone.ID(zoneName: "Z", ownerName: CKCurrentUserDefaultName))
            let idData = try NSKeyedArchiver.archivedData(withRootObject: id, requiringSecureCoding: true)
            #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKRecord.ID.self, from: idData) == id)
        }
    }

    @Test("zones: saved, listed, fetched and deleted, in async and completion forms; a save into a missing zone fails that record with zoneNotFound")
    func zones() async throws {
        try await KitTestServer.run { server in
            let database = try await Self.signedUp(server, "di@example.com").privateCloudDatabase
            let zone = CKRecordZone(zoneName: "Notes")
            let saved = try await database.save(zone)
            #expect(saved.zoneID == zone.zoneID && saved.capabilities.contains(.fetchChanges))
            let listed = try await OperationBlocks.answer("fetchAllRecordZones") { (done: @escaping @Sendable (Result<[CKRecordZone], any Error>) -> Void) in
                database.fetchAllRecordZones { zones, error in done(zones.map { .success($0) } ?? .failure(error!)) }
            }.get()
            #expect(Set(listed.map(\.zoneID.zoneName)) == [CKRecordZoneDefaultName, "Notes"])

            let inZone = CKRecord(recordType: "Note", zoneID: zone.zoneID)
            let lost = CKRecord(recordType: "Note", zoneID: CKRecordZone.ID(zoneName: "Missing"))
            let results = try await database.modifyRecords(saving: [inZone, lost], deleting: [])
            #expect((try? results.saveResults[inZone.recordID]?.get()) != nil)
            #expect(throws: CKError.self) { try results.saveResults[lost.recordID]?.get() }
            if case .failure(let error)? = results.saveResults[lost.recordID] {
                #expect((error as? CKError)?.code == .zoneNotFound, "\(error)")
            }

            let fetched = try await OperationBlocks.answer("fetch(withRecordID:)") { (done: @escaping @Sendable (Result<CKRecord?, any Error>) -> Void) in
                database.fetch(withRecordID: inZone.recordID) { record, error in done(error.map { .failure($0) } ?? .success(record)) }
            }.get()
            #expect(fetched?.recordID == inZone.recordID)
            #expect(try await database.deleteRecordZone(withID: zone.zoneID) == zone.zoneID)
            do {
                _ = try await database.recordZone(for: zone.zoneID)
                Issue.record("a deleted zone was fetched")
            } catch CKError.zoneNotFound {
            }
        }
    }

    @Test("accountStatus is available with a session the server accepts and noAccount without; userRecordID is the user's")
    func accounts() async throws {
        try await KitTestServer.run { server in
            let container = try await Self.signedUp(server, "eve@example.com")
            #expect(try await container.accountStatus() == .available)
            #expect(try await container.userRecordID().recordName == (try await container.stratusContainer.userRecordID()).recordName)
            let anonymous = CKContainer(server.container())
            #expect(try await anonymous.accountStatus() == .noAccount)
            do {
                _ = try await anonymous.privateCloudDatabase.allRecordZones()
                Issue.record("the private database answered without a session")
            } catch CKError.notAuthenticated {
            }
            let status = try await OperationBlocks.answer("accountStatus") { (done: @escaping @Sendable (CKAccountStatus) -> Void) in
                container.accountStatus { status, _ in done(status) }
            }
            #expect(status == .available)
        }
    }

    @Test("the configuration comes from the environment's STRATUS_ variables; a session given there is used and not kept")
    func configurationFromTheEnvironment() throws {
        #expect(StratusCloudKitConfiguration.fromEnvironment(["STRATUS_URL": "http://127.0.0.1:1"]) == nil)
        let configuration = try #require(StratusCloudKitConfiguration.fromEnvironment([
            "STRATUS_URL": "https://stratus.example.com", "STRATUS_API_TOKEN": "token", "STRATUS_CONTAINER": "iCloud.com.example.App",
            "STRATUS_ENVIRONMENT": "production", "STRATUS_WEB_AUTH_TOKEN": "session",
        ]))
        #expect(configuration.url.absoluteString == "https://stratus.example.com" && configuration.apiTokens == ["iCloud.com.example.App": "token"])
        #expect(configuration.stratusEnvironment == .production && configuration.webAuthToken == "session")
    }

    @Test("a CKAsset saved from a file comes back from a fetch, a query and the zone's changes as a file on this device with the same bytes")
    func assetsComeBackAsFiles() async throws {
        try await KitTestServer.run { server in
            let (phone, laptop) = try await CloudKitSyncEngineTests.twoDevices(server)
            let zoneID = CKRecordZone.ID(zoneName: "Photos")
            _ = try await phone.privateCloudDatabase.save(CKRecordZone(zoneID: zoneID))
            let bytes = Data((0..<40_000).map { UInt8($0 % 251) })
            let source = server.deviceFile()
            try bytes.write(to: source)
            let photo = CKRecord(recordType: "Photo", recordID: CKRecord.ID(recordName: "p1", zoneID: zoneID))
            photo["image"] = CKAsset(fileURL: source)
            photo["caption"] = "Beach"
            _ = try await phone.privateCloudDatabase.save(photo)

            let database = laptop.privateCloudDatabase
            let fetched = try await database.record(for: photo.recordID)
            let fetchedFile = try #require((fetched["image"] as? CKAsset)?.fileURL, "a fetched asset has a file")
            #expect(try Data(contentsOf: fetchedFile) == bytes && fetchedFile != source)

            let query = CKQuery(recordType: "Photo", predicate: NSPredicate(format: "caption == %@", "Beach"))
            let matched = try await database.records(matching: query, inZoneWith: zoneID).matchResults
            let matchedFile = try #require((try matched.first?.1.get()["image"] as? CKAsset)?.fileURL)
            #expect(try Data(contentsOf: matchedFile) == bytes)

            let changes = try await database.recordZoneChanges(inZoneWith: zoneID, since: nil)
            let changed = try #require(try changes.modificationResultsByID[photo.recordID]?.get().record)
            #expect(try (changed["image"] as? CKAsset)?.fileURL.map { try Data(contentsOf: $0) } == bytes)
        }
    }
}
