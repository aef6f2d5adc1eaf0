import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import StratusCloudKit
import StratusModel
import StratusStoreTesting
import StratusTestSupport
import Testing

/// Pushes as an app receives them: the payloads a Stratus server sends for a subscription, read with
/// `CKNotification(fromRemoteNotificationDictionary:)` into CloudKit's subclasses.
@Suite struct CloudKitNotificationTests {
    /// The server's list of a user's notifications.
    struct NotificationChanges: Decodable {
        struct Entry: Decodable {
            var payload: JSONValue
        }

        var notifications: [Entry]
    }

    /// The payloads of the user's notifications, as the server sends them to devices, once `count` are there.
    static func payloads(_ server: KitTestServer, _ container: CKContainer, count: Int) async throws -> [[AnyHashable: Any]] {
        var components = URLComponents(url: server.url.appendingPathComponent("notifications/1/\(KitTestServer.container)/development/changes"), resolvingAgainstBaseURL: false)!
        components.queryItems = [
            URLQueryItem(name: "after", value: "0"), URLQueryItem(name: "ckAPIToken", value: server.apiToken),
            URLQueryItem(name: "ckWebAuthToken", value: container.stratusContainer.webAuthToken),
        ]
        let payloads = LockedBox<[Data]>([])
        let seen = LockedBox("")
        try await Polling.until("\(count) notifications to arrive", within: 30, every: .milliseconds(50), {
            let (data, _) = try await URLSession.shared.data(from: components.url!)
            seen.value = String(decoding: data, as: UTF8.self)
            let answer = try JSONDecoder().decode(NotificationChanges.self, from: data)
            payloads.value = try answer.notifications.map { try JSONEncoder().encode($0.payload) }
            return payloads.value.count >= count
        }) { "the server answered \(seen.value)" }
        // CloudKit hands an app a push as a dictionary: each payload is read as one, as it arrives on a device.
        return try payloads.value.compactMap { try JSONSerialization.jsonObject(with: $0) as? [AnyHashable: Any] }
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
