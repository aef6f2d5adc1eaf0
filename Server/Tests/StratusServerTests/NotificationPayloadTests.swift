import Foundation
@testable import StratusServer
import StratusServices
import StratusModel
import StratusStore
import Testing

@Suite struct NotificationPayloadTests {
    static func entry(_ body: String, database: DatabaseRef) throws -> SubscriptionIndex.Entry {
        let stored = StoredSubscription(id: "s1", database: database, owner: "_owner", body: body, createdAt: 0)
        let input = try JSONDecoder().decode(SubscriptionInput.self, from: Data(body.utf8))
        return SubscriptionIndex.Entry(stored: stored, input: input, triggers: Set(SubscriptionInput.Trigger.allCases), roles: [])
    }

    static func render(_ body: String, database: DatabaseRef, kind: RecordEvent.Kind = .created) throws -> [String: JSONValue] {
        let fields: [String: FieldValue] = ["title": .string("Lunch"), "count": .int64(3), "where": .string("Café")]
        let stamp = RecordStamp(timestamp: 1, userRecordName: "_b", deviceID: "web")
        let zone = database.zone(database.scope == .public ? ZoneID.defaultZoneName : "Notes")
        let record = Record(recordName: "r1", recordType: "Event", recordChangeTag: "1", fields: EncodedFields(fields), created: stamp, modified: stamp, zoneID: zone.wireZoneID)
        let payload = NotificationRendering.render(try entry(body, database: database), event: RecordEvent(kind: kind, zone: zone, record: record, fields: fields), notificationID: "n-1")
        return try #require(try JSONDecoder().decode(JSONValue.self, from: Data(payload.utf8)).objectValue)
    }

    @Test("notificationInfo becomes aps, and the record and subscription become ck.qry")
    func queryPayload() throws {
        let payload = try Self.render(#"""
            {"subscriptionID":"s1","subscriptionType":"query","query":{"recordType":"Event"},"notificationInfo":{
              "alertBody":"Body","alertLocalizationKey":"KEY","alertLocalizationArgs":["title","count","missing"],
              "alertActionLocalizationKey":"OPEN","alertLaunchImage":"launch.png","soundName":"ping","shouldBadge":true,
              "shouldSendContentAvailable":true,"category":"EVENT","additionalFields":["where"],"desiredKeys":["count","where"]}}
            """#, database: .privateDatabase("iCloud.c", .development, owner: "_owner"), kind: .updated)
        #expect(payload["aps"] == .object([
            "alert": .object([
                "body": .string("Body"), "loc-key": .string("KEY"), "loc-args": .array([.string("Lunch"), .string("3"), .string("")]),
                "action-loc-key": .string("OPEN"), "launch-image": .string("launch.png"),
            ]),
            "sound": .string("ping"), "badge": .integer(1), "content-available": .integer(1), "category": .string("EVENT"),
        ]))
        let ck = try #require(payload["ck"]?.objectValue)
        #expect(ck["cid"] == .string("iCloud.c") && ck["nid"] == .string("n-1") && ck["ckuserid"] == .string("_owner"))
        #expect(ck["qry"] == .object([
            "sid": .string("s1"), "rid": .string("r1"), "zid": .string("Notes"), "zoid": .string("_owner"), "fo": .integer(2), "dbs": .integer(2),
            "af": .object(["where": .string("Café"), "count": .integer(3)]),
        ]))
    }

    @Test("public records name the default owner; zone and database subscriptions answer fet and met, and wake the app unless told not to")
    func otherShapes() throws {
        let publicPayload = try Self.render(#"{"subscriptionID":"s1","subscriptionType":"query","query":{"recordType":"Event"}}"#, database: .publicDatabase("iCloud.c", .development))
        #expect(publicPayload["ck"]?.objectValue?["qry"]?.objectValue?["zoid"] == .string("_defaultOwner"))
        #expect(publicPayload["ck"]?.objectValue?["qry"]?.objectValue?["dbs"] == .integer(1))
        #expect(publicPayload["aps"] == .object([:]))
        let database = DatabaseRef.privateDatabase("iCloud.c", .development, owner: "_owner")
        let zone = try Self.render(#"{"subscriptionID":"s1","subscriptionType":"zone","zoneID":{"zoneName":"Notes"}}"#, database: database)
        #expect(zone["ck"]?.objectValue?["fet"] == .object(["sid": .string("s1"), "zid": .string("Notes"), "zoid": .string("_owner"), "dbs": .integer(2)]))
        let whole = try Self.render(#"{"subscriptionID":"s1","subscriptionType":"database"}"#, database: database)
        #expect(whole["ck"]?.objectValue?["met"] == .object(["sid": .string("s1"), "dbs": .integer(2)]))
        #expect(zone["aps"] == .object(["content-available": .integer(1)]))
        #expect(whole["aps"] == .object(["content-available": .integer(1)]))
        let quiet = try Self.render(#"{"subscriptionID":"s1","subscriptionType":"database","notificationInfo":{"shouldSendContentAvailable":false}}"#, database: database)
        #expect(quiet["aps"] == .object([:]))
    }
}
