import Foundation
import StratusKit
import Testing

/// Records kept on the device between launches: whole (`Codable`) or as system fields beside the app's columns.
@Suite struct RecordPersistenceTests {
    /// A record holding every field type, a parent and a share, saved and fetched back.
    static func savedRecord(_ database: Database) async throws -> Record {
        let zone = try await database.save(Zone(zoneName: "Kept"))
        let folder = try await database.save(Record(recordType: "Folder", recordID: Record.ID(recordName: "folder", zoneID: zone.zoneID)))
        var record = Record(recordType: "Everything", recordID: Record.ID(recordName: "all", zoneID: zone.zoneID))
        record["text"] = "hello"
        record["count"] = 42
        record["ratio"] = 0.1
        record["flag"] = true
        record["when"] = Date(timeIntervalSince1970: 1_700_000_000.123)
        record["blob"] = Data([0, 1, 2, 255])
        record["place"] = Location(latitude: 48.8566, longitude: 2.3522, horizontalAccuracy: 5)
        record["link"] = Record.Reference(record: folder, action: .deleteSelf)
        record["greeting"] = LocalizedString(["en": "Hello", "es": "Hola"])
        record["tags"] = ["a", "b"]
        record.parent = Record.Reference(record: folder)
        let saved = try await database.save(record)
        try await database.save(Share(rootRecord: saved))
        return try await database.record(for: record.recordID)
    }

    @Test("a fetched record reads back equal from JSON and from a property list; its system fields alone bring back what names and versions it")
    func roundTrips() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let fetched = try await Self.savedRecord(database)
            #expect(fetched.share != nil && fetched.parent != nil && fetched.recordChangeTag != nil)

            let fromJSON = try JSONDecoder().decode(Record.self, from: JSONEncoder().encode(fetched))
            #expect(fromJSON == fetched)
            let fromPropertyList = try PropertyListDecoder().decode(Record.self, from: PropertyListEncoder().encode(fetched))
            #expect(fromPropertyList == fetched)

            let restored = try Record(systemFields: fetched.encodeSystemFields())
            #expect(restored.recordID == fetched.recordID)
            #expect(restored.recordType == "Everything")
            #expect(restored.recordChangeTag == fetched.recordChangeTag)
            #expect(restored.creationDate == fetched.creationDate && restored.creationDate != nil)
            #expect(restored.modificationDate == fetched.modificationDate)
            #expect(restored.creatorUserRecordID == fetched.creatorUserRecordID && restored.creatorUserRecordID != nil)
            #expect(restored.parent == fetched.parent)
            #expect(restored.share == fetched.share)
            #expect(restored.allKeys.isEmpty)
            let text = String(decoding: fetched.encodeSystemFields(), as: UTF8.self)
            #expect(!text.contains("hello"), "the system fields hold a field's value: \(text)")

            #expect { try Record(systemFields: Data("not a record".utf8)) } throws: { error in
                (error as? StratusError)?.code == .invalidArguments
            }
        }
    }

    @Test("records read from a zone's change feed equal the same records looked up, for every field type")
    func feedReadsLikeLookups() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let zone = try await database.save(Zone(zoneName: "Feed"))
            let folder = try await database.save(Record(recordType: "Folder", recordID: Record.ID(recordName: "folder", zoneID: zone.zoneID)))
            var record = Record(recordType: "Everything", recordID: Record.ID(recordName: "all", zoneID: zone.zoneID))
            record["text"] = "hello"
            record["count"] = 42
            record["ratio"] = 2.0
            record["flag"] = false
            record["when"] = Date(timeIntervalSince1970: 1_700_000_000.123)
            record["blob"] = Data([0, 1, 2, 255])
            record["place"] = Location(latitude: 48.8566, longitude: 2.3522, horizontalAccuracy: 5)
            record["link"] = Record.Reference(record: folder, action: .deleteSelf)
            record["greeting"] = LocalizedString(["en": "Hello", "es": "Hola"])
            record["tags"] = ["a", "b"]
            record["days"] = [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 1_700_086_400)]
            record.parent = Record.Reference(record: folder)
            _ = try await database.save(record)
            let changes = try await database.recordZoneChanges(inZoneWith: zone.zoneID, since: nil)
            let looked = try await database.records(for: [record.recordID, folder.recordID])
            for id in [record.recordID, folder.recordID] {
                let fromFeed = try #require(try changes.modificationResultsByID[id]?.get())
                let fromLookup = try #require(try looked[id]?.get())
                #expect(fromFeed == fromLookup, "\(id)")
            }
        }
    }

    @Test("the storage form of records reads back equal: fetched ones, edited ones, and ones with an asset not uploaded yet or an empty list")
    func storageForm() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let fetched = try await Self.savedRecord(database)
            #expect(try Record(storageData: fetched.storageData()) == fetched)
            #expect(fetched.storageData().first == UInt8(ascii: "W"))
            var edited = fetched
            edited["text"] = "edited"
            edited["count"] = nil
            edited.parent = nil
            #expect(try Record(storageData: edited.storageData()) == edited)
            var withFile = Record(recordType: "Photo", recordID: Record.ID(recordName: "p1", zoneID: Zone.ID(zoneName: "Kept", ownerName: "_other")))
            withFile["image"] = Asset(fileURL: URL(fileURLWithPath: "/tmp/photo.jpg"))
            withFile["tags"] = [String]()
            let restored = try Record(storageData: withFile.storageData())
            #expect(restored == withFile)
            #expect((restored["image"] as Asset?)?.fileURL?.path == "/tmp/photo.jpg")
            // Fields as fetched that hold an asset keep the Codable form too, so the ancestor is not lost.
            var withoutImage = try await database.save(withFileFetchedLater(in: database))
            withoutImage["image"] = nil
            #expect(try Record(storageData: withoutImage.storageData()) == withoutImage)
            #expect(throws: StratusError.self) { try Record(storageData: Data("Wnot json".utf8)) }
        }
    }

    /// A record with an uploaded image, saved and fetched back.
    func withFileFetchedLater(in database: Database) async throws -> Record {
        var record = Record(recordType: "Photo", recordID: Record.ID(recordName: "fetched-photo", zoneID: Zone.ID(zoneName: "Kept")))
        record["image"] = Asset(data: Data("picture".utf8))
        record["caption"] = "a photo"
        _ = try await database.save(record)
        return try await database.record(for: record.recordID)
    }

    @Test("a record rebuilt from its system fields saves as an edit of the server's record, and a stale copy still conflicts")
    func systemFieldsSaveAsEdits() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let fetched = try await Self.savedRecord(database)
            let kept = fetched.encodeSystemFields()

            // The app's own copy of the fields, with the system fields beside them, after a relaunch.
            var edited = try Record(systemFields: kept)
            edited["text"] = "edited offline"
            edited["count"] = 43
            let saved = try await database.save(edited)
            #expect(saved["text"] as String? == "edited offline")
            #expect(saved["flag"] as Bool? == true, "fields the app did not set were lost")
            #expect(saved.parent == fetched.parent, "the parent was dropped")
            #expect(saved.recordChangeTag != fetched.recordChangeTag)

            // The same bytes again are now stale: the server's record changed since they were kept.
            var stale = try Record(systemFields: kept)
            stale["text"] = "older edit"
            await #expect { try await database.save(stale) } throws: { error in
                (error as? StratusError)?.code == .serverRecordChanged
            }
        }
    }

    @Test("a whole record kept on disk and edited after the server's copy changed conflicts with its ancestor, and removing its parent is sent")
    func wholeRecordKeepsItsAncestor() async throws {
        try await KitTestServer.run { server in
            let container = try await server.signedUp("ann@example.com")
            let database = container.privateCloudDatabase
            let fetched = try await Self.savedRecord(database)
            let file = server.deviceFile()
            try JSONEncoder().encode(fetched).write(to: file)

            var elsewhere = fetched
            elsewhere["text"] = "changed elsewhere"
            try await database.save(elsewhere)

            var mine = try JSONDecoder().decode(Record.self, from: Data(contentsOf: file))
            mine["text"] = "mine"
            do {
                try await database.save(mine)
                Issue.record("a stale save succeeded")
            } catch let error as StratusError {
                #expect(error.code == .serverRecordChanged)
                #expect(error.ancestorRecord?["text"] as String? == "hello")
                #expect(error.serverRecord?["text"] as String? == "changed elsewhere")
            }

            var current = try JSONDecoder().decode(Record.self, from: JSONEncoder().encode(try await database.record(for: fetched.recordID)))
            current.parent = nil
            let unparented = try await database.save(current)
            #expect(unparented.parent == nil)
            #expect(try await database.record(for: fetched.recordID).parent == nil)
        }
    }

    @Test("zones, shares and subscriptions read back equal")
    func otherValues() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let fetched = try await Self.savedRecord(database)
            let shareID = try #require(fetched.share?.recordID)
            let share = try #require(Share(try await database.record(for: shareID)))
            let zones = try await database.allRecordZones()
            let subscription = try await database.save(Subscription(
                id: "kept", query: Query(recordType: "Everything", filter: .field("count") > 3, sort: [.descending("count")]),
                firesOn: [.create], notificationInfo: .init(alertBody: "New", desiredKeys: ["text"])
            ))
            let coder = (JSONEncoder(), JSONDecoder())
            #expect(try coder.1.decode(Share.self, from: coder.0.encode(share)) == share)
            #expect(try coder.1.decode([Zone].self, from: coder.0.encode(zones)) == zones)
            #expect(try coder.1.decode(Subscription.self, from: coder.0.encode(subscription)) == subscription)
        }
    }
}
