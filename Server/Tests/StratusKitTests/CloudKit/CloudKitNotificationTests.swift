import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusCloudKit
import Testing

/// Pushes as an app receives them: the payloads a Stratus server sends for a subscription, read with
/// `CKNotification(fromRemoteNotificationDictionary:)` into CloudKit's subclasses.
@Suite struct CloudKitNotificationTests {
    /// The payloads of the user's notifications, as the server sends them to devices, once `count` are there.
    static func payloads(_ server: KitTestServer, _ container: CKContainer, count: Int) async throws -> [[AnyHashable: Any]] {
        var components = URLComponents(url: server.url.appendingPathComponent("notifications/1/\(KitTestServer.container)/development/changes"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "ckAPIToken", value: server.apiToken),
            URLQueryItem(name: "ckWebAuthToken", value: container.stratusContainer.webAuthToken),
        ]
        let deadline = ContinuousClock.now + .seconds(30)
        var seen = ""
        while ContinuousClock.now < deadline {
            let (data, _) = try await URLSession.shared.data(from: components.url!)
            seen = String(decoding: data, as: UTF8.self)
            let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let notifications = (answer?["notifications"] as? [[String: Any]]) ?? []
            if notifications.count >= count { return notifications.compactMap { $0["payload"] as? [AnyHashable: Any] } }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw OperationBlocks.NoAnswer(description: "\(count) notifications did not arrive within 30 s; the server answered \(seen)")
    }

    @Test("a query subscription's push reads as a CKQueryNotification with its reason, record ID, fields and scope; a zone's as a CKRecordZoneNotification")
    func pushesAsCloudKitReadsThem() async throws {
        try await KitTestServer.run { server in
            let container = try await CloudKitRecordsTests.signedUp(server, "ann@example.com")
            let database = container.privateCloudDatabase
            let zoneID = CKRecordZone.ID(zoneName: "Chat")
            _ = try await database.save(CKRecordZone(zoneID: zoneID))
            let subscription = CKQuerySubscription(
                recordType: "Message", predicate: NSPredicate(value: true), subscriptionID: "messages", options: [.firesOnRecordCreation]
            )
            subscription.zoneID = zoneID
            let info = CKSubscription.NotificationInfo()
            info.alertBody = "New message"
            info.desiredKeys = ["text"]
            subscription.notificationInfo = info
            _ = try await database.save(subscription)

            let message = CKRecord(recordType: "Message", recordID: CKRecord.ID(recordName: "m1", zoneID: zoneID))
            message["text"] = "hello"
            _ = try await database.save(message)

            let payload = try #require(try await Self.payloads(server, container, count: 1).first)
            let notification = try #require(CKNotification(fromRemoteNotificationDictionary: payload))
            #expect(notification.notificationType == .query && notification.subscriptionID == "messages")
            #expect(notification.alertBody == "New message" && notification.containerIdentifier == KitTestServer.container)
            let query = try #require(notification as? CKQueryNotification, "\(notification)")
            #expect(query.queryNotificationReason == .recordCreated && query.recordID == message.recordID)
            #expect(query.recordFields?["text"] as? String == "hello" && query.databaseScope == .private)
            #expect(CKQueryNotification(fromRemoteNotificationDictionary: payload)?.recordID == message.recordID)
            #expect(CKNotification(fromRemoteNotificationDictionary: ["aps": ["alert": "not CloudKit's"]]) == nil)

            _ = try await database.save(CKRecordZoneSubscription(zoneID: zoneID, subscriptionID: "chat-zone"))
            let second = CKRecord(recordType: "Note", recordID: CKRecord.ID(recordName: "n1", zoneID: zoneID))
            _ = try await database.save(second)
            let payloads = try await Self.payloads(server, container, count: 2)
            let zoneNotification = payloads.compactMap { CKNotification(fromRemoteNotificationDictionary: $0) as? CKRecordZoneNotification }.first
            #expect(zoneNotification?.recordZoneID == zoneID && zoneNotification?.notificationType == .recordZone && zoneNotification?.subscriptionID == "chat-zone")
        }
    }
}
