import StratusModel
import StratusStore
import Testing

/// Deleting an account and everything it holds.
extension StoreConformance {
    static var accountDeletionCases: [ConformanceCase] {
        [
            ConformanceCase("a deleted account's private data, shares, subscriptions, sessions and public records go; its address is free") { store in
                // Alice shares a zone with Bob, who accepted; Bob shares a zone with Alice, who accepted.
                let alicesZone = try await ShareFixture.sharedTree(store)
                _ = try await store.acceptShare(shortGUID: try await ShareFixture.guid(store, alicesZone), user: ShareFixture.bobUser)
                let bobsZone = try await Fixture.createZone(store, "Bobs", in: Fixture.privateDB(Fixture.bob))
                try await Fixture.modify(store, bobsZone, [
                    Fixture.create("bobsRoot", type: "Folder"),
                    RecordOperation(type: .create, recordName: "bobsShare", recordType: ShareRecords.recordType, share: ShareChange(
                        rootRecordName: "bobsRoot", participants: [ParticipantChange(lookup: .userRecordName(Fixture.alice), permission: .readOnly)]
                    )),
                ], as: Fixture.bob)
                let aliceUser = ShareUser(userRecordName: Fixture.alice, emailAddress: "alice@example.com", phoneNumber: nil)
                _ = try await store.acceptShare(shortGUID: try await ShareFixture.guid(store, bobsZone, share: "bobsShare"), user: aliceUser)
                #expect(try await store.sharedZones(of: Fixture.alice, containerID: Fixture.container, environment: .development) == [bobsZone])
                let publicZone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                try await Fixture.modify(store, publicZone, [Fixture.create("alicesPost", type: "Post")], atomic: false)
                try await Fixture.modify(store, publicZone, [Fixture.create("bobsPost", type: "Post")], atomic: false, as: Fixture.bob)
                try await store.saveSubscription(
                    StoredSubscription(id: "sub", database: Fixture.privateDB(), owner: Fixture.alice, body: "{}", createdAt: 1), mustExist: false
                )
                try await store.createSession(Session(
                    id: "s1", containerID: Fixture.container, userRecordName: Fixture.alice, createdAt: Fixture.now, expiresAt: Fixture.now + 10_000
                ))

                let recorder = EventRecorder(store)
                let begun = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                #expect(begun.isBeingDeleted && begun.isDisabled && !begun.isDiscoverable)
                #expect(try await store.session(id: "s1") == nil)
                #expect(try await store.accountsBeingDeleted(limit: 10).map(\.userRecordName) == [Fixture.alice])
                try await AccountDeletion.finish(begun, publicRecords: .delete, store: store)
                // Running it again (as after a crash) changes nothing.
                try await AccountDeletion.finish(begun, publicRecords: .delete, store: store)

                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice) == nil)
                #expect(try await store.accountsBeingDeleted(limit: 10).isEmpty)
                #expect(try await store.zones(in: Fixture.privateDB()).map(\.zoneID.zoneName) == [ZoneID.defaultZoneName])
                await #expect { try await store.lookupRecords(["root", "loner"], in: alicesZone) } throws: { error in
                    (error as? StorageError)?.code == .zoneNotFound
                }
                #expect(try await store.sharedZones(of: Fixture.bob, containerID: Fixture.container, environment: .development).isEmpty)
                #expect(try await store.sharedZones(of: Fixture.alice, containerID: Fixture.container, environment: .development).isEmpty)
                let bobsShare = try await store.lookupRecords(["bobsShare"], in: bobsZone)["bobsShare"]?.shareDetails
                #expect(bobsShare?.participant(Fixture.alice) == nil || bobsShare?.participant(Fixture.alice)?.acceptanceStatus == .removed)
                let posts = try await store.lookupRecords(["alicesPost", "bobsPost", Fixture.alice], in: publicZone)
                #expect(Set(posts.keys) == ["bobsPost"])
                #expect(try await store.subscription(id: "sub", owner: Fixture.alice, in: Fixture.privateDB()) == nil)
                try await store.catchUpEvents()
                #expect(recorder.events.contains(.sessionEnded(sessionID: "s1")))
                #expect(recorder.events.contains(.subscriptionDeleted(database: Fixture.privateDB(), owner: Fixture.alice, id: "sub")))

                try await store.createAccount(Account(
                    containerID: Fixture.container, userRecordName: "_newalice", emailAddress: "alice@example.com", passwordHash: "h",
                    givenName: nil, familyName: nil, createdAt: Fixture.now
                ))
            },
            ConformanceCase("a deleted account's public records can stay, without an owner") { store in
                try await ShareFixture.accounts(store)
                let publicZone = Fixture.publicDB().zone(ZoneID.defaultZoneName)
                try await Fixture.modify(store, publicZone, [Fixture.create("alicesPost", type: "Post")], atomic: false)
                let begun = try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice)
                try await AccountDeletion.finish(begun, publicRecords: .keep, store: store)
                let kept = try await store.lookupRecords(["alicesPost", Fixture.alice], in: publicZone)
                #expect(Set(kept.keys) == ["alicesPost"])
                #expect(try await store.account(containerID: Fixture.container, userRecordName: Fixture.alice) == nil)
                await #expect { try await store.beginAccountDeletion(containerID: Fixture.container, userRecordName: Fixture.alice) } throws: { error in
                    (error as? StorageError)?.code == .notFound
                }
            },
        ]
    }
}
