import Foundation
@testable import StratusServer
import StratusServices
import StratusModel
import StratusStore
import Testing

@Suite struct SubscriptionIndexTests {
    static let database = DatabaseRef.publicDatabase("iCloud.test", .development)

    static func subscription(_ id: String, channel: String?) -> StoredSubscription {
        let filter = channel.map { #","filterBy":[{"comparator":"EQUALS","fieldName":"channel","fieldValue":{"value":"\#($0)"}}]"# } ?? ""
        return StoredSubscription(
            id: id, database: database, owner: "_u\(id)",
            body: #"{"subscriptionID":"\#(id)","subscriptionType":"query","query":{"recordType":"Message"\#(filter)}}"#, createdAt: 0
        )
    }

    static func record(channel: String) -> (Record, [String: FieldValue]) {
        let fields: [String: FieldValue] = ["channel": .string(channel), "text": .string("hi")]
        let stamp = RecordStamp(timestamp: 1, userRecordName: "_b", deviceID: "web")
        return (Record(recordName: "m", recordType: "Message", recordChangeTag: "1", fields: EncodedFields(fields), created: stamp, modified: stamp, zoneID: .default), fields)
    }

    @Test("a change is tested only against subscriptions on its value, not against 10,000 on other channels")
    func equalityIndex() {
        var index = SubscriptionIndex()
        for number in 0..<10_000 {
            index.insert(Self.subscription("s\(number)", channel: "channel-\(number)"), roles: [])
        }
        index.insert(Self.subscription("everything", channel: nil), roles: [])
        let (record, fields) = Self.record(channel: "channel-42")
        let zone = Self.database.zone(ZoneID.defaultZoneName)
        #expect(Set(index.candidates(zone: zone, record: record, fields: fields).map(\.stored.id)) == ["s42", "everything"])
        let (other, otherFields) = Self.record(channel: "nobody's")
        #expect(index.candidates(zone: zone, record: other, fields: otherFields).map(\.stored.id) == ["everything"])
        index.remove(SubscriptionIndex.EntryKey(database: Self.database, owner: "_us42", id: "s42"))
        #expect(index.candidates(zone: zone, record: record, fields: fields).map(\.stored.id) == ["everything"])
        #expect(index.count == 10_000)
    }
}
