import Foundation
@testable import StratusKit
import Testing

@Suite struct SyncTests {
    @Test("zones are created, listed, looked up and deleted; database and zone changes follow them with tokens")
    func zonesAndChanges() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").privateCloudDatabase
            let notes = try await database.save(Zone(zoneName: "Notes"))
            #expect(notes.changeToken != nil)
            _ = try await database.save(Zone(zoneName: "Trash"))
            #expect(Set(try await database.allRecordZones().map(\.zoneID.zoneName)).isSuperset(of: ["Notes", "Trash"]))
            #expect(try await database.recordZone(for: notes.zoneID).zoneID == notes.zoneID)

            let start = try await database.databaseChanges(since: nil)
            #expect(Set(start.modifications.map(\.zoneName)).isSuperset(of: ["Notes", "Trash"]))
            var first = Record(recordType: "Note", recordID: Record.ID(recordName: "n1", zoneID: notes.zoneID))
            first["title"] = "one"
            _ = try await database.save(first)
            let sync = try await database.recordZoneChanges(inZoneWith: notes.zoneID, since: nil)
            #expect(Array(sync.modificationResultsByID.keys) == [first.recordID])
            #expect(!sync.moreComing)

            try await database.deleteRecord(withID: first.recordID)
            var second = Record(recordType: "Note", recordID: Record.ID(recordName: "n2", zoneID: notes.zoneID))
            second["title"] = "two"
            _ = try await database.save(second)
            let next = try await database.recordZoneChanges(inZoneWith: notes.zoneID, since: sync.changeToken)
            #expect(Array(next.modificationResultsByID.keys) == [second.recordID])
            #expect(next.deletions.map(\.recordID) == [first.recordID])
            #expect(next.deletions.first?.recordType == "Note")

            try await database.deleteRecordZone(withID: Zone.ID(zoneName: "Trash"))
            let later = try await database.databaseChanges(since: start.changeToken)
            #expect(later.modifications.map(\.zoneName) == ["Notes"])
            #expect(later.deletions.map(\.zoneName) == ["Trash"])
            await #expect { try await database.recordZone(for: Zone.ID(zoneName: "Trash")) } throws: { error in
                (error as? StratusError)?.code == .zoneNotFound
            }
        }
    }

    @Test("assets upload from data and from files when their record is saved, and download again")
    func assets() async throws {
        try await KitTestServer.run { server in
            let database = try await server.signedUp("ann@example.com").publicCloudDatabase
            let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("kit-asset-\(UUID().uuidString).bin")
            try Data("from a file".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            var record = Record(recordType: "Attachment", recordID: Record.ID(recordName: "a1"))
            record["photo"] = Asset(data: bytes)
            record["pages"] = [Asset(fileURL: file), Asset(data: Data("second".utf8))]
            let saved = try await database.save(record)
            #expect((saved["photo"] as Asset?)?.size == 50_000)

            let fetched = try await database.record(for: record.recordID)
            let photo = try #require(fetched["photo"] as Asset?)
            #expect(photo.downloadURL != nil)
            #expect(try await database.data(for: photo) == bytes)
            let pages = try #require(fetched["pages"] as [Asset]?)
            #expect(try await database.data(for: pages[0]) == Data("from a file".utf8))
            let copy = FileManager.default.temporaryDirectory.appendingPathComponent("kit-copy-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: copy) }
            try await database.download(pages[1], to: copy)
            #expect(try Data(contentsOf: copy) == Data("second".utf8))

            // Like a fetched CKAsset: every asset of the record downloaded into a folder, its fileURL set; saving the
            // record again uploads nothing and keeps the assets.
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kit-assets-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            var local = try await database.downloadingAssets(of: fetched, into: folder)
            let localPhoto = try #require((local["photo"] as Asset?)?.fileURL)
            #expect(try Data(contentsOf: localPhoto) == bytes)
            let localPages = try #require(local["pages"] as [Asset]?).compactMap(\.fileURL)
            #expect(try localPages.map { try Data(contentsOf: $0) } == [Data("from a file".utf8), Data("second".utf8)])
            local["title"] = "renamed"
            let resaved = try await database.save(local)
            #expect((resaved["photo"] as Asset?)?.fileChecksum == photo.fileChecksum)
            #expect(try await database.data(for: try #require(try await database.record(for: record.recordID)["photo"] as Asset?)) == bytes)
            // An expired or forged download URL is assetFileNotFound, and leaves no file behind.
            let forged = try #require(URL(string: photo.downloadURL!.absoluteString + "x"))
            var stale = photo
            stale.downloadURL = forged
            let target = folder.appendingPathComponent("stale")
            await #expect { try await database.download(stale, to: target) } throws: { error in (error as? StratusError)?.code == .assetFileNotFound }
            #expect(!FileManager.default.fileExists(atPath: target.path))
            // A download streamed over an existing file replaces it whole; a size that does not match the asset's
            // (a download cut short) leaves the old file as it was. No partial file stays behind either way.
            let streamed = folder.appendingPathComponent("streamed")
            try Data("old".utf8).write(to: streamed)
            try await database.download(photo, to: streamed)
            #expect(try Data(contentsOf: streamed) == bytes)
            var shortened = photo
            shortened.size = 50_001
            await #expect { try await database.download(shortened, to: streamed) } throws: { error in (error as? StratusError)?.code == .networkFailure }
            #expect(try Data(contentsOf: streamed) == bytes)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".partial") }.isEmpty)

            var missing = Record(recordType: "Attachment")
            missing["photo"] = Asset(fileURL: URL(fileURLWithPath: "/nonexistent/file"))
            await #expect { try await database.save(missing) } throws: { error in
                (error as? StratusError)?.code == .assetFileNotFound
            }
        }
    }
}
