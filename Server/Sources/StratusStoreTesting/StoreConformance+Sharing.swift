import StratusModel
import StratusStore
import Testing

extension StoreConformance {
    static var sharingCases: [ConformanceCase] {
        [
            ConformanceCase("a record share covers its root and the records beneath it; accepting lets the participant in") { store in
                let zone = try await ShareFixture.sharedTree(store)
                let share = try await store.share(shortGUID: ShareFixture.guid(store, zone))
                #expect(share?.details.rootRecordName == "root")
                #expect(share?.details.participants.first?.acceptanceStatus == .invited)
                #expect(try await store.shareAccess(in: zone, user: Fixture.bob).isEmpty)
                #expect(try await store.sharedZones(of: Fixture.bob, containerID: Fixture.container, environment: .development).isEmpty)

                let accepted = try await store.acceptShare(shortGUID: share!.details.shortGUID, user: ShareFixture.bobUser)
                #expect(accepted.details.participant(Fixture.bob)?.acceptanceStatus == .accepted)
                let access = try await store.shareAccess(in: zone, user: Fixture.bob)
                #expect(access.roots == ["root"])
                #expect(access.permission(viaShare: "share") == .readWrite)
                #expect(try await store.sharedZones(of: Fixture.bob, containerID: Fixture.container, environment: .development) == [zone])
                let covering = try await store.coveringShares(of: ["root", "child", "grandchild", "loner", "share"], in: zone)
                #expect(covering == ["root": "share", "child": "share", "grandchild": "share", "share": "share"])

                let page = try await store.queryRecords(RecordQuery(
                    database: zone.database, zoneName: zone.zoneName, query: QueryInput(recordType: "Item"), limit: 10,
                    continuationMarker: nil, sharedRoots: access.roots
                ))
                #expect(Set(page.records.map(\.recordName)) == ["child", "grandchild"])
            },
            ConformanceCase("a participant's lookup reads their access, the records and their shares at once, and shows only what the shares reach") { store in
                let zone = try await ShareFixture.sharedTree(store)
                let names = ["root", "child", "grandchild", "loner", "missing"]
                let before = try await store.sharedLookup(names, in: zone, user: Fixture.bob)
                #expect(before.access.isEmpty && before.visibleRecords.isEmpty, "an invitation not yet accepted reaches nothing")
                _ = try await store.acceptShare(shortGUID: try await ShareFixture.guid(store, zone), user: ShareFixture.bobUser)
                let lookup = try await store.sharedLookup(names, in: zone, user: Fixture.bob)
                #expect(lookup.access.roots == ["root"])
                #expect(Set(lookup.records.keys) == ["root", "child", "grandchild", "loner"])
                #expect(Set(lookup.visibleRecords.keys) == ["root", "child", "grandchild"])
                let stranger = try await store.sharedLookup(names, in: zone, user: "_stranger")
                #expect(stranger.access.isEmpty && stranger.visibleRecords.isEmpty)
                let gone = try await store.sharedLookup(names, in: Fixture.privateDB().zone("Nowhere"), user: Fixture.bob)
                #expect(gone.access.isEmpty)
            },
            ConformanceCase("participants write only beneath roots shared with them for writing, in the write's transaction; others find no zone") { store in
                let zone = try await ShareFixture.sharedTree(store)
                _ = try await store.acceptShare(shortGUID: try await ShareFixture.guid(store, zone), user: ShareFixture.bobUser)
                let inside = try await Fixture.modify(store, zone, [
                    RecordOperation(type: .create, recordName: "new", recordType: "Item", fields: [:], parent: .set("child")),
                ], as: Fixture.bob)
                #expect(Fixture.failure(inside) == nil)
                let outside = try await Fixture.modify(store, zone, [
                    RecordOperation(type: .forceUpdate, recordName: "loner", recordType: "Item", fields: [:]),
                ], as: Fixture.bob)
                #expect(Fixture.failure(outside)?.error.code == .accessDenied)
                // Someone with no share in the zone finds no zone there, decided in the write's transaction.
                let stranger = await #expect(throws: StorageError.self) {
                    try await Fixture.modify(store, zone, [
                        RecordOperation(type: .create, recordName: "x", recordType: "Item", fields: [:], parent: .set("root")),
                    ], as: "_stranger")
                }
                #expect(stranger?.code == .zoneNotFound)
            },
            ConformanceCase("leaving, removal and deleting a share end access and show in the shared database's changes") { store in
                let zone = try await ShareFixture.sharedTree(store)
                let guid = try await ShareFixture.guid(store, zone)
                _ = try await store.acceptShare(shortGUID: guid, user: ShareFixture.bobUser)
                let first = try await store.sharedDatabaseChanges(of: Fixture.bob, containerID: Fixture.container, environment: .development, since: nil, limit: 10)
                #expect(first.zones == [ZoneChange(zoneID: zone.wireZoneID, deleted: false)])
                #expect(try await store.leaveShares(in: zone, user: Fixture.bob))
                #expect(try await store.shareAccess(in: zone, user: Fixture.bob).isEmpty)
                let left = try await store.sharedDatabaseChanges(
                    of: Fixture.bob, containerID: Fixture.container, environment: .development, since: first.syncToken, limit: 10
                )
                #expect(left.zones == [ZoneChange(zoneID: zone.wireZoneID, deleted: true)])

                // Deleting the root deletes its share; the link is gone.
                _ = try await Fixture.modify(store, zone, [RecordOperation(type: .forceDelete, recordName: "root")])
                #expect(try await store.share(shortGUID: guid) == nil)
                await #expect { try await store.acceptShare(shortGUID: guid, user: ShareFixture.bobUser) } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
            },
            ConformanceCase("a public permission lets anyone join; invitations by email match the account that accepts") { store in
                let zone = try await Fixture.createZone(store, "Open")
                try await ShareFixture.accounts(store)
                _ = try await Fixture.modify(store, zone, [
                    Fixture.create("board", type: "Board"),
                    RecordOperation(type: .create, recordName: "cloudkit.zoneshare", recordType: ShareRecords.recordType, share: ShareChange(
                        publicPermission: .readOnly, participants: [ParticipantChange(lookup: .emailAddress("carol@example.com"), permission: .readWrite)]
                    )),
                ])
                let guid = try await ShareFixture.guid(store, zone, share: "cloudkit.zoneshare")
                let carol = try await store.acceptShare(shortGUID: guid, user: ShareUser(userRecordName: "_carol", emailAddress: "carol@example.com", phoneNumber: nil))
                #expect(carol.details.participant("_carol")?.permission == .readWrite)
                let bob = try await store.acceptShare(shortGUID: guid, user: ShareFixture.bobUser)
                #expect(bob.details.participant(Fixture.bob)?.type == .publicUser)
                #expect(try await store.shareAccess(in: zone, user: Fixture.bob).zoneWide?.permission == .readOnly)
                #expect(try await store.coveringShares(of: ["board"], in: zone) == ["board": "cloudkit.zoneshare"])
            },
        ]
    }
}

/// A private zone of Alice's holding `root` > `child` > `grandchild` and an unshared `loner`, with `root`
/// shared to Bob (READ_WRITE) by share record `share`.
enum ShareFixture {
    static let bobUser = ShareUser(userRecordName: Fixture.bob, emailAddress: "bob@example.com", phoneNumber: nil)

    static func accounts(_ store: any Store) async throws {
        for (name, email) in [(Fixture.alice, "alice@example.com"), (Fixture.bob, "bob@example.com")] {
            try await store.createAccount(Account(
                containerID: Fixture.container, userRecordName: name, emailAddress: email, passwordHash: "hash",
                givenName: nil, familyName: nil, createdAt: Fixture.now
            ))
        }
    }

    static func sharedTree(_ store: any Store) async throws -> ZoneRef {
        try await accounts(store)
        let zone = try await Fixture.createZone(store, "Tree")
        let results = try await Fixture.modify(store, zone, [
            Fixture.create("root", type: "Folder"),
            RecordOperation(type: .create, recordName: "child", recordType: "Item", fields: [:], parent: .set("root")),
            RecordOperation(type: .create, recordName: "grandchild", recordType: "Item", fields: [:], parent: .set("child")),
            Fixture.create("loner", type: "Item"),
            RecordOperation(type: .create, recordName: "share", recordType: ShareRecords.recordType, share: ShareChange(
                rootRecordName: "root", participants: [ParticipantChange(lookup: .userRecordName(Fixture.bob), permission: .readWrite)]
            )),
        ])
        #expect(results.allSatisfy { if case .failed = $0 { false } else { true } })
        return zone
    }

    /// The short GUID of a share record, read back from the store.
    static func guid(_ store: any Store, _ zone: ZoneRef, share: String = "share") async throws -> String {
        guard let details = try await store.lookupRecords([share], in: zone)[share]?.shareDetails else {
            throw StorageError(.notFound, "no share \(share)")
        }
        return details.shortGUID
    }
}
