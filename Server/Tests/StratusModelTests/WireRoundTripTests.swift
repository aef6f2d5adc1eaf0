import Foundation
import StratusModel
import Testing

/// Every wire shape is written in one place and read back by the same type: what the server writes, clients read
/// as it was, and what clients send, the server reads as it was.
@Suite struct WireRoundTripTests {
    static let every: [String: FieldValue] = [
        "text": .string("Hi"), "count": .int64(3), "ratio": .double(2), "at": .timestamp(1_700_000_000_123),
        "blob": .bytes(Data([0, 1, 254])), "done": .boolean(true), "title": .localizedString(["en": "Hello", "pt-BR": "Olá"]),
        "place": .location(Location(latitude: 52.5, longitude: 13.4, horizontalAccuracy: 5, altitude: 30)),
        "owner": .reference(Reference(recordName: "u1", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "_o"), action: .deleteSelf)),
        "photo": .asset(Asset(fileChecksum: "c", size: 12, downloadURL: "https://x.example/a")),
        "tags": .list(.string, [.string("a"), .string("b")]), "days": .list(.timestamp, [.timestamp(1), .timestamp(2)]),
    ]

    static let record = Record(
        recordName: "r1", recordType: "Note", recordChangeTag: "7", fields: EncodedFields(every),
        created: RecordStamp(timestamp: 1, userRecordName: "_u", deviceID: "web"),
        modified: RecordStamp(timestamp: 2, userRecordName: "_v", deviceID: "phone"),
        zoneID: ZoneID(zoneName: "Notes", ownerRecordName: "_u"), parent: "p1", share: "s1", shortGUID: "abc"
    )

    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        let data = try JSONEncoder().encode(value)
        let back = try JSONDecoder().decode(T.self, from: data)
        // The model's own decoder reads it the same way.
        #expect(try JSONValueDecoder().decode(T.self, from: Array(data)) == back)
        return back
    }

    @Test("a record with a field of every type, parent, share and stamps reads back as written")
    func record() throws {
        let back = try roundTrip(Self.record)
        #expect(back == Self.record)
        #expect(try back.fields.decode() == Self.every)
    }

    /// ``record``'s stamps and zone on a share record, with no fields and no share details yet.
    static var bareShare: Record {
        var share = Self.record
        share.recordType = ShareRecords.recordType
        share.fields = EncodedFields([:])
        share.shortGUID = nil
        share.parent = nil
        share.share = nil
        return share
    }

    @Test("a share record reads back with its owner, participants, public permission and URL")
    func shareRecord() throws {
        var share = Self.bareShare
        let friend = ShareParticipant(
            participantID: "p-2", userRecordName: "_f", emailAddress: "f@example.com", permission: .readWrite, type: .user,
            acceptanceStatus: .accepted
        )
        share.shareDetails = ShareDetails(shortGUID: "g1", publicPermission: .readOnly, ownerRecordName: "_u", rootRecordName: nil, participants: [friend])
        share.shareDetails?.url = "https://stratus.example/share/g1"
        let back = try roundTrip(share)
        #expect(back.shareDetails?.participants == [friend])
        #expect(back.shareDetails?.ownerRecordName == "_u")
        #expect(back.shareDetails?.publicPermission == .readOnly)
        #expect(back.shareDetails?.url == "https://stratus.example/share/g1")
        #expect(back == share)
    }

    @Test("per-item answers tell records, deletions and errors apart, a conflict's server record included")
    func recordResults() throws {
        let response = RecordsResponse(records: [
            .record(Self.record),
            .deleted(DeletedRecord(recordName: "gone", recordType: "Note", zoneID: ZoneID(zoneName: "Notes"))),
            .failure(RecordErrorEntry(recordName: "r1", serverErrorCode: "CONFLICT", reason: "changed", uuid: "u", serverRecord: Self.record)),
            .failure(RecordErrorEntry(recordName: "r2", serverErrorCode: "THROTTLED", reason: "later", retryAfter: 3)),
        ], continuationMarker: "next")
        #expect(try roundTrip(response) == response)
    }

    @Test("zone answers and change feeds read back as written")
    func zonesAndChanges() throws {
        let zones = ZonesResponse(zones: [
            .zone(ZoneEntry(zoneID: ZoneID(zoneName: "A"), syncToken: "t", atomic: true)),
            .failure(ZoneErrorEntry(zoneID: ZoneID(zoneName: "B"), serverErrorCode: "ZONE_NOT_FOUND", reason: "no")),
        ])
        #expect(try roundTrip(zones) == zones)
        let database = DatabaseChangesResponse(
            zones: [ZoneEntry(zoneID: ZoneID(zoneName: "A")), ZoneEntry(zoneID: ZoneID(zoneName: "B", ownerRecordName: "_o"), deleted: true)],
            syncToken: "s", moreComing: true
        )
        #expect(try roundTrip(database) == database)
        let changes = ZoneChangesResponse(zones: [
            .changes(ZoneChangesEntry(
                zoneID: ZoneID(zoneName: "Notes"), records: [.record(Self.record), .deleted(DeletedRecord(recordName: "x", recordType: nil, zoneID: .default))],
                syncToken: "s2", moreComing: false
            )),
            .failure(ZoneErrorEntry(zoneID: ZoneID(zoneName: "Old"), serverErrorCode: "BAD_REQUEST", reason: "syncToken is stale")),
        ])
        #expect(try roundTrip(changes) == changes)
    }

    @Test("requests a client encodes decode on the server as sent: parent set, removed or kept, share keys, queries")
    func requests() throws {
        var set = RecordInput(recordName: "a", recordType: "Note", recordChangeTag: "1", fields: ["n": FieldInput(value: .integer(1))], parent: .set("p"))
        set.forRecord = RecordNameInput(recordName: "root")
        set.participants = [ParticipantInput(userIdentity: .init(lookupInfo: UserLookupInfo(emailAddress: "f@example.com")), permission: "READ_ONLY")]
        let removed = RecordInput(recordName: "b", parent: .removed)
        let kept = RecordInput(recordName: "c")
        let modify = ModifyRecordsRequest(
            operations: [set, removed, kept].map { RecordOperationInput(operationType: .update, record: $0) }, zoneID: ZoneID(zoneName: "Z"), atomic: true
        )
        #expect(try roundTrip(modify) == modify)
        #expect(try JSONValueDecoder().decode(ModifyRecordsRequest.self, from: Array(JSONEncoder().encode(modify))).operations.map(\.record.parent)
            == [.set("p"), .removed, .unchanged])
        let query = QueryRecordsRequest(
            query: QueryInput(
                recordType: "Note", filterBy: [FilterInput(comparator: "EQUALS", fieldName: "n", fieldValue: FieldInput(value: .integer(1)))],
                sortBy: [SortInput(systemFieldName: "createdTimestamp", ascending: false)]
            ),
            zoneID: ZoneID(zoneName: "Z"), resultsLimit: 10, continuationMarker: "m"
        )
        #expect(try roundTrip(query) == query)
        let lookup = LookupRecordsRequest(records: [.init(recordName: "a")], zoneID: .default, desiredKeys: ["n"])
        #expect(try roundTrip(lookup) == lookup)
        let zoneChanges = ZoneChangesRequest(zones: [.init(zoneID: ZoneID(zoneName: "Z"), syncToken: "t", resultsLimit: 5)])
        #expect(try roundTrip(zoneChanges) == zoneChanges)
    }
}
