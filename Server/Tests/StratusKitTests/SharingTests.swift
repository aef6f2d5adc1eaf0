import Foundation
import StratusKit
import Testing

@Suite struct SharingTests {
    @Test("an owner shares a record with a chosen user by URL; the user accepts, reads and writes through the shared database; removal ends it")
    func shareByURL() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com", givenName: "Ann")
            let bob = try await server.signedUp("bob@example.com")
            let carol = try await server.signedUp("carol@example.com")
            let zone = try await ann.privateCloudDatabase.save(Zone(zoneName: "Lists"))
            var list = Record(recordType: "List", recordID: Record.ID(recordName: "groceries", zoneID: zone.zoneID))
            list["title"] = "Groceries"
            var share = Share(rootRecord: list)
            share.title = "Our groceries"
            share.addParticipant(.userRecordID(try await bob.userRecordID()), permission: .readWrite)
            let saved = try await ann.privateCloudDatabase.modifyRecords(saving: [list, share.record], deleting: [])
            let savedShare = try #require(Share(try saved.saveResults[share.recordID]!.get()))
            #expect(try saved.saveResults[list.recordID]!.get().share?.recordID == share.recordID)
            let url = try #require(savedShare.url)
            #expect(savedShare.participants.count == 2)
            #expect(savedShare.owner?.role == .owner)
            #expect(savedShare.title == "Our groceries")

            // Bob opens the link, accepts, and finds the zone in his shared database.
            let metadata = try await bob.shareMetadata(for: url, shouldFetchRootRecord: true)
            #expect(metadata.participantStatus == .invited)
            #expect(metadata.participantPermission == .readWrite)
            #expect(metadata.rootRecord?["title"] as String? == "Groceries")
            #expect(metadata.ownerIdentity?.givenName == "Ann")
            let accepted = try await bob.accept(metadata)
            #expect(accepted.participantStatus == .accepted)
            let sharedZones = try await bob.sharedCloudDatabase.allRecordZones()
            #expect(sharedZones.map(\.zoneID) == [metadata.zoneID])
            let rootID = try #require(metadata.rootRecordID)
            #expect(try await bob.sharedCloudDatabase.record(for: rootID)["title"] as String? == "Groceries")
            var milk = Record(recordType: "Item", recordID: Record.ID(recordName: "milk", zoneID: metadata.zoneID))
            milk.parent = Record.Reference(recordID: rootID)
            milk["title"] = "Milk"
            try await bob.sharedCloudDatabase.save(milk)
            let seenByAnn = try await ann.privateCloudDatabase.record(for: Record.ID(recordName: "milk", zoneID: zone.zoneID))
            #expect(seenByAnn.parent?.recordID.recordName == "groceries")

            // Carol is refused.
            await #expect { try await carol.shareMetadata(for: url) } throws: { error in
                (error as? StratusError)?.code == .permissionFailure
            }

            // Ann removes Bob; his next read fails.
            var current = try #require(Share(try await ann.privateCloudDatabase.record(for: share.recordID)))
            let bobParticipant = try #require(current.participants.first { $0.role == .user })
            current.removeParticipant(bobParticipant)
            _ = try await ann.privateCloudDatabase.save(current.record)
            await #expect { try await bob.sharedCloudDatabase.record(for: rootID) } throws: { error in
                (error as? StratusError)?.code == .zoneNotFound
            }
        }
    }

    @Test("save(share) saves a share of a record saved before and returns it with its URL; its failure is its own")
    func saveShare() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            let database = ann.privateCloudDatabase
            let zone = try await database.save(Zone(zoneName: "Lists"))
            let list = try await database.save(Record(recordType: "List", recordID: Record.ID(recordName: "todo", zoneID: zone.zoneID)))
            var share = Share(rootRecord: list)
            share.publicPermission = .readOnly
            let saved = try await database.save(share)
            #expect(saved.url != nil)
            #expect(saved.publicPermission == .readOnly)
            #expect(try await database.record(for: list.recordID).share?.recordID == saved.recordID)
            let missing = Share(rootRecord: Record(recordType: "List", recordID: Record.ID(recordName: "nowhere", zoneID: zone.zoneID)))
            await #expect { try await database.save(missing) } throws: { error in (error as? StratusError)?.code == .invalidArguments }
        }
    }

    @Test("a zone-wide share with a public link; participants leave by deleting the zone from their shared database")
    func zoneShare() async throws {
        try await KitTestServer.run { server in
            let ann = try await server.signedUp("ann@example.com")
            let dan = try await server.signedUp("dan@example.com")
            let zone = try await ann.privateCloudDatabase.save(Zone(zoneName: "Board"))
            var share = Share(recordZoneID: zone.zoneID)
            share.publicPermission = .readOnly
            let saved = try await ann.privateCloudDatabase.save(share.record)
            let url = try #require(Share(saved)?.url)
            var note = Record(recordType: "Note", recordID: Record.ID(recordName: "n1", zoneID: zone.zoneID))
            note["text"] = "hi"
            try await ann.privateCloudDatabase.save(note)

            let metadata = try await dan.accept(try await dan.shareMetadata(for: url))
            #expect(metadata.participantRole == .publicUser)
            let notes = try await dan.sharedCloudDatabase.records(matching: Query(recordType: "Note"), inZoneWith: metadata.zoneID)
            #expect(notes.matchResults.map(\.0.recordName) == ["n1"])
            var edit = try await dan.sharedCloudDatabase.record(for: Record.ID(recordName: "n1", zoneID: metadata.zoneID))
            edit["text"] = "changed"
            await #expect { try await dan.sharedCloudDatabase.save(edit) } throws: { error in
                (error as? StratusError)?.code == .permissionFailure
            }
            let changes = try await dan.sharedCloudDatabase.databaseChanges(since: nil)
            #expect(changes.modifications == [metadata.zoneID])
            try await dan.sharedCloudDatabase.deleteRecordZone(withID: metadata.zoneID)
            #expect(try await dan.sharedCloudDatabase.allRecordZones().isEmpty)
            let after = try await dan.sharedCloudDatabase.databaseChanges(since: changes.changeToken)
            #expect(after.deletions == [metadata.zoneID])
        }
    }
}
