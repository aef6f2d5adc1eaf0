import Foundation
import StratusCloudKit
import Testing

/// Query, zone and database subscriptions saved, read back, fetched and deleted as CloudKit apps do, against a live
/// server.
@Suite struct CloudKitSubscriptionTests {
    @Test("a query subscription reads back with its type, options, notification info and a predicate that selects the same records")
    func querySubscriptions() async throws {
        try await KitTestServer.run { server in
            let database = try await CloudKitQueryTests.messages(server)
            let predicate = NSPredicate(format: "isCurrent == %d AND title BEGINSWITH %@", 1, "Message")
            let subscription = CKQuerySubscription(
                recordType: "Message", predicate: predicate, subscriptionID: "current-messages", options: [.firesOnRecordCreation, .firesOnRecordUpdate]
            )
            let info = CKSubscription.NotificationInfo()
            info.alertBody = "A new message"
            info.desiredKeys = ["title"]
            info.shouldSendContentAvailable = true
            subscription.notificationInfo = info
            let saved = try await database.save(subscription)
            #expect(saved.subscriptionID == "current-messages" && saved.subscriptionType == .query)

            let all = try await OperationBlocks.answer("fetchAllSubscriptions") { (done: @escaping @Sendable (Result<[CKSubscription], any Error>) -> Void) in
                database.fetchAllSubscriptions { subscriptions, error in done(subscriptions.map { .success($0) } ?? .failure(error!)) }
            }.get()
            let read = try #require(all.first as? CKQuerySubscription)
            #expect(all.count == 1 && read.recordType == "Message" && read.querySubscriptionOptions == [.firesOnRecordCreation, .firesOnRecordUpdate])
            #expect(read.notificationInfo?.alertBody == "A new message" && read.notificationInfo?.desiredKeys == ["title"])
            #expect(read.notificationInfo?.shouldSendContentAvailable == true)
            let query = CKQuery(recordType: "Message", predicate: read.predicate)
            query.sortDescriptors = [NSSortDescriptor(key: "title", ascending: true)]
            #expect(try await database.records(matching: query).matchResults.map(\.0.recordName) == ["a", "c", "d"])

            do {
                _ = try await database.save(CKQuerySubscription(recordType: "Message", predicate: predicate, options: []))
                Issue.record("a subscription that fires on nothing was saved")
            } catch CKError.invalidArguments {
            }
        }
    }

    @Test("zone and database subscriptions through the operations: saved, fetched by ID (a missing one is unknownItem), deleted")
    func subscriptionOperations() async throws {
        try await KitTestServer.run { server in
            let database = try await CloudKitRecordsTests.signedUp(server, "eve@example.com").privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Chat")
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            let save = CKModifySubscriptionsOperation(
                subscriptionsToSave: [CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "chat"), CKDatabaseSubscription(subscriptionID: "everything")],
                subscriptionIDsToDelete: nil
            )
            let (saved, saveError) = try await OperationBlocks.answer("the subscriptions' save") { (done: @escaping @Sendable (([CKSubscription]?, (any Error)?)) -> Void) in
                save.modifySubscriptionsCompletionBlock = { saved, _, error in done((saved, error)) }
                database.add(save)
            }
            #expect(saveError == nil && Set(saved?.map(\.subscriptionID) ?? []) == ["chat", "everything"], "\(String(describing: saveError))")

            let fetch = CKFetchSubscriptionsOperation(subscriptionIDs: ["chat", "missing"])
            let results = LockedBox<[String: String]>([:])
            fetch.perSubscriptionResultBlock = { id, result in
                results.update {
                    $0[id] = switch result {
                    case .success(let subscription as CKRecordZoneSubscription): "zone \(subscription.zoneID.zoneName)"
                    case .success: "other"
                    case .failure(let error): "\((error as? CKError)?.code ?? .internalError)"
                    }
                }
            }
            _ = try await OperationBlocks.answer("the subscriptions' fetch") { (done: @escaping @Sendable (Result<Void, any Error>) -> Void) in
                fetch.fetchSubscriptionsResultBlock = { done($0) }
                database.add(fetch)
            }
            #expect(results.value == ["chat": "zone Chat", "missing": "unknownItem"])

            #expect(try await database.deleteSubscription(withID: "chat") == "chat")
            let left = try await database.allSubscriptions()
            #expect(left.map(\.subscriptionID) == ["everything"] && left.first?.subscriptionType == .database)
        }
    }
}
