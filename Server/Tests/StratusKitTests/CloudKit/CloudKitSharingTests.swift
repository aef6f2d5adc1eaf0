import Foundation
import StratusCloudKit
import Testing

/// Sharing as CloudKit apps do it: a share saved with its root record, participants found by record ID or email
/// address, links resolved and accepted through the operations, users made discoverable, against a live server.
@Suite struct CloudKitSharingTests {
    @Test("a record share: participant by user record ID, saved with its root, resolved, accepted, read and written by the participant, refused to others, ended by removal")
    func recordShare() async throws {
        try await KitTestServer.run { server in
            let ann = CKContainer(try await server.signedUp("ann@example.com", givenName: "Ann"))
            let bob = CKContainer(try await server.signedUp("bob@example.com", givenName: "Bob"))
            let carol = CKContainer(try await server.signedUp("carol@example.com"))
            #expect(try await bob.requestApplicationPermission(.userDiscoverability) == .granted)
            let zoneID = CKRecordZone.ID(zoneName: "Lists", ownerName: CKCurrentUserDefaultName)
            _ = try await ann.privateCloudDatabase.save(CKRecordZone(zoneID: zoneID))

            let list = CKRecord(recordType: "List", recordID: CKRecord.ID(recordName: "groceries", zoneID: zoneID))
            list["title"] = "Groceries"
            let share = CKShare(rootRecord: list)
            share[CKShare.SystemFieldKey.title] = "Our groceries" as any CKRecordValue
            share.publicPermission = .none
            #expect(share.recordType == CKRecordTypeShare && share.url == nil)
            #expect(share.participants.count == 1 && share.owner.role == .owner && share.owner.userIdentity.userRecordID?.recordName == CKCurrentUserDefaultName)

            let bobID = try await bob.userRecordID()
            let participant = try await OperationBlocks.answer("fetchShareParticipant") { (done: @escaping @Sendable (Result<CKShare.Participant, any Error>) -> Void) in
                ann.fetchShareParticipant(withUserRecordID: bobID) { participant, error in done(participant.map { .success($0) } ?? .failure(error!)) }
            }.get()
            #expect(participant.userIdentity.userRecordID == bobID && participant.userIdentity.nameComponents?.givenName == "Bob")
            participant.permission = .readWrite
            share.addParticipant(participant)

            let save = CKModifyRecordsOperation(recordsToSave: [list, share], recordIDsToDelete: nil)
            let (saved, saveError) = try await OperationBlocks.answer("the share's save") { (done: @escaping @Sendable (([CKRecord]?, (any Error)?)) -> Void) in
                save.modifyRecordsCompletionBlock = { saved, _, error in done((saved, error)) }
                ann.privateCloudDatabase.add(save)
            }
            #expect(saveError == nil, "\(String(describing: saveError))")
            let savedShare = try #require(saved?.compactMap { $0 as? CKShare }.first)
            let url = try #require(savedShare.url)
            #expect(savedShare.participants.count == 2 && savedShare.owner.role == .owner && savedShare.owner.acceptanceStatus == .accepted)
            let invited = try #require(savedShare.participants.first { $0.role == .privateUser })
            #expect(invited.acceptanceStatus == .pending && invited.permission == .readWrite && invited.userIdentity.userRecordID == bobID)
            #expect(savedShare[CKShare.SystemFieldKey.title] as? String == "Our groceries")
            #expect(try await ann.privateCloudDatabase.record(for: list.recordID).share?.recordID == share.recordID)

            // Bob resolves the link through the operation, with the root record, and accepts it.
            let fetch = CKFetchShareMetadataOperation(shareURLs: [url])
            fetch.shouldFetchRootRecord = true
            let metadata = try await OperationBlocks.answer("the share metadata") { (done: @escaping @Sendable (Result<CKShare.Metadata, any Error>) -> Void) in
                fetch.perShareMetadataResultBlock = { _, result in done(result) }
                bob.add(fetch)
            }.get()
            #expect(metadata.participantStatus == .pending && metadata.participantPermission == .readWrite && metadata.participantRole == .privateUser)
            #expect(metadata.rootRecord?["title"] as? String == "Groceries" && metadata.hierarchicalRootRecordID?.recordName == "groceries")
            #expect(metadata.ownerIdentity.nameComponents?.givenName == "Ann" && metadata.share.url == url)
            let accept = CKAcceptSharesOperation(shareMetadatas: [metadata])
            let accepted = try await OperationBlocks.answer("the acceptance") { (done: @escaping @Sendable (Result<CKShare, any Error>) -> Void) in
                accept.perShareResultBlock = { _, result in done(result) }
                bob.add(accept)
            }.get()
            #expect(accepted.currentUserParticipant?.acceptanceStatus == .accepted)

            let rootID = try #require(metadata.hierarchicalRootRecordID)
            let sharedRoot = try await OperationBlocks.answer("the shared root") { (done: @escaping @Sendable (Result<CKRecord, any Error>) -> Void) in
                bob.sharedCloudDatabase.fetch(withRecordID: rootID) { record, error in done(record.map { .success($0) } ?? .failure(error!)) }
            }.get()
            #expect(sharedRoot["title"] as? String == "Groceries")
            let milk = CKRecord(recordType: "Item", recordID: CKRecord.ID(recordName: "milk", zoneID: rootID.zoneID))
            milk.setParent(sharedRoot)
            milk["title"] = "Milk"
            _ = try await bob.sharedCloudDatabase.save(milk)
            #expect(try await ann.privateCloudDatabase.record(for: CKRecord.ID(recordName: "milk", zoneID: zoneID)).parent?.recordID.recordName == "groceries")

            do {
                _ = try await carol.shareMetadata(for: url)
                Issue.record("a user not on the share resolved its link")
            } catch CKError.permissionFailure {
            }

            // Ann fetches the share (a CKShare again), removes Bob, and his next read fails.
            let current = try #require(try await ann.privateCloudDatabase.record(for: share.recordID) as? CKShare)
            let bobOnShare = try #require(current.participants.first { $0.userIdentity.userRecordID == bobID })
            #expect(bobOnShare.acceptanceStatus == .accepted)
            current.removeParticipant(bobOnShare)
            let afterRemoval = try #require(try await ann.privateCloudDatabase.save(current) as? CKShare)
            #expect(afterRemoval.participants.map(\.role) == [.owner])
            do {
                _ = try await bob.sharedCloudDatabase.record(for: rootID)
                Issue.record("a removed participant still read the shared record")
            } catch CKError.zoneNotFound {
            }
        }
    }

    @Test("a zone-wide share with a public link: saved alone, archived and read back as a CKShare, accepted by anyone with the link")
    func zoneShare() async throws {
        try await KitTestServer.run { server in
            let ann = CKContainer(try await server.signedUp("ann@example.com"))
            let dan = CKContainer(try await server.signedUp("dan@example.com"))
            let zoneID = CKRecordZone.ID(zoneName: "Trip")
            _ = try await ann.privateCloudDatabase.save(CKRecordZone(zoneID: zoneID))
            let plan = CKRecord(recordType: "Plan", recordID: CKRecord.ID(recordName: "day1", zoneID: zoneID))
            plan["title"] = "Day one"
            _ = try await ann.privateCloudDatabase.save(plan)

            let share = CKShare(recordZoneID: zoneID)
            share.publicPermission = .readOnly
            #expect(share.recordID.recordName == CKRecordNameZoneWideShare)
            let saved = try #require(try await ann.privateCloudDatabase.save(share) as? CKShare)
            let url = try #require(saved.url)
            #expect(saved.publicPermission == .readOnly)

            let archived = try NSKeyedArchiver.archivedData(withRootObject: saved, requiringSecureCoding: true)
            let unarchived = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: CKShare.self, from: archived))
            #expect(unarchived.url == url && unarchived.publicPermission == .readOnly && unarchived.owner.role == .owner)

            let metadata = try await dan.shareMetadata(for: url)
            #expect(metadata.hierarchicalRootRecordID == nil && metadata.participantPermission == .readOnly && metadata.participantRole == .publicUser)
            _ = try await dan.accept(metadata)
            let zones = try await dan.sharedCloudDatabase.allRecordZones()
            #expect(zones.map(\.zoneID.zoneName) == ["Trip"])
            #expect(try await dan.sharedCloudDatabase.record(for: CKRecord.ID(recordName: "day1", zoneID: zones[0].zoneID))["title"] as? String == "Day one")
            do {
                let edit = CKRecord(recordType: "Plan", recordID: CKRecord.ID(recordName: "day2", zoneID: zones[0].zoneID))
                _ = try await dan.sharedCloudDatabase.save(edit)
                Issue.record("a read-only public participant wrote into the share")
            } catch CKError.permissionFailure {
            }
        }
    }

    @Test("discoverability: requested, read back, found by email and record ID only once granted; participants by email; no address book")
    func discovery() async throws {
        try await KitTestServer.run { server in
            let ann = CKContainer(try await server.signedUp("ann@example.com"))
            let bob = CKContainer(try await server.signedUp("bob@example.com", givenName: "Bob"))
            let bobID = try await bob.userRecordID()
            #expect(try await bob.applicationPermissionStatus(for: .userDiscoverability) == .initialState)
            #expect(try await ann.userIdentity(forEmailAddress: "bob@example.com") == nil)

            let status = try await OperationBlocks.answer("requestApplicationPermission") { (done: @escaping @Sendable (CKContainer.ApplicationPermissionStatus) -> Void) in
                bob.requestApplicationPermission(.userDiscoverability) { status, _ in done(status) }
            }
            #expect(status == .granted)
            #expect(try await bob.applicationPermissionStatus(for: .userDiscoverability) == .granted)

            let byEmail = try #require(try await ann.userIdentity(forEmailAddress: "bob@example.com"))
            #expect(byEmail.userRecordID == bobID && byEmail.nameComponents?.givenName == "Bob" && byEmail.hasiCloudAccount)
            #expect(try await ann.userIdentities(forUserRecordIDs: [bobID])[bobID]?.lookupInfo?.userRecordID == bobID)

            let discover = CKDiscoverUserIdentitiesOperation(userIdentityLookupInfos: CKUserIdentity.LookupInfo.lookupInfos(withEmails: ["bob@example.com", "nobody@example.com"]))
            let found = LockedBox<[String]>([])
            _ = try await OperationBlocks.answer("the discovery") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                discover.userIdentityDiscoveredBlock = { identity, lookup in found.update { $0.append("\(lookup.emailAddress ?? "") \(identity.userRecordID?.recordName == bobID.recordName)") } }
                discover.discoverUserIdentitiesResultBlock = { done($0) }
                ann.add(discover)
            }.get()
            #expect(found.value == ["bob@example.com true"])

            let participants = CKFetchShareParticipantsOperation(userIdentityLookupInfos: [CKUserIdentity.LookupInfo(emailAddress: "nobody@example.com")])
            let invitee = try await OperationBlocks.answer("the participants") { (done: @escaping @Sendable (Result<CKShare.Participant, any Error>) -> Void) in
                participants.perShareParticipantResultBlock = { _, result in done(result) }
                ann.add(participants)
            }.get()
            #expect(invitee.userIdentity.lookupInfo?.emailAddress == "nobody@example.com" && invitee.userIdentity.userRecordID == nil && invitee.role == .privateUser)

            let everyone = try await OperationBlocks.answer("discoverAllIdentities") { (done: @escaping @Sendable (Result<[CKUserIdentity], any Error>) -> Void) in
                ann.discoverAllIdentities { identities, error in done(identities.map { .success($0) } ?? .failure(error!)) }
            }.get()
            #expect(everyone.isEmpty)
        }
    }
}
