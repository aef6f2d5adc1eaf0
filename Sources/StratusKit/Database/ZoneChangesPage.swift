import Foundation
internal import StratusModel

/// A `changes/zone` answer read straight from its JSON, without `Codable`: the sync engine's hot path, where
/// decoding thousands of records through keyed containers cost more than everything else a sync does. An answer
/// holding anything but plain records and deletions (a share record, a per-record error, a zone's error) is
/// left to the `Codable` path (``init(_:zoneID:currentUser:)`` answers `nil`).
struct ZoneChangesPage {
    var modifications: [Record.ID: Result<Record, any Error>] = [:]
    var deletions: [(recordID: Record.ID, recordType: String)] = []
    var changeToken: SyncToken
    var moreComing: Bool

    init?(_ body: Data, zoneID: Zone.ID, currentUser: String?) {
        guard case .object(let root)? = try? JSONParser.parse(body), case .array(let zones)? = root["zones"], zones.count == 1,
            case .object(let zone) = zones[0], zone["serverErrorCode"] == nil,
            case .string(let token)? = zone["syncToken"], case .array(let records)? = zone["records"]
        else { return nil }
        changeToken = SyncToken(token)
        moreComing = zone["moreComing"] == .bool(true)
        modifications.reserveCapacity(records.count)
        for entry in records {
            guard case .object(let fields) = entry, case .string(let name)? = fields["recordName"], fields["serverErrorCode"] == nil else { return nil }
            if fields["deleted"] == .bool(true) {
                deletions.append((Record.ID(recordName: name, zoneID: zoneID), fields["recordType"]?.stringValue ?? ""))
                continue
            }
            guard let record = Record(wire: fields, name: name, currentUser: currentUser) else { return nil }
            modifications[Record.ID(recordName: name, zoneID: zoneID)] = .success(record)
        }
    }
}

extension Record {
    /// A record from its answer's JSON object, as ``init(model:currentUser:)`` makes it; `nil` for what that path
    /// handles alone (share records) or for a shape it would refuse.
    init?(wire object: [String: JSONValue], name: String, currentUser: String?) {
        let type = object["recordType"]?.stringValue ?? ""
        guard type != ShareRecords.recordType else { return nil }
        var zone = ZoneID()
        if case .object(let zoneObject)? = object["zoneID"] {
            zone.zoneName = zoneObject["zoneName"]?.stringValue ?? ZoneID.defaultZoneName
            zone.ownerRecordName = zoneObject["ownerRecordName"]?.stringValue
        }
        let zoneID = Zone.ID(model: zone, currentUser: currentUser)
        self.init(recordType: type, recordID: ID(recordName: name, zoneID: zoneID))
        recordChangeTag = object["recordChangeTag"]?.stringValue ?? ""
        if let (date, user) = Self.stamp(object["created"]) {
            creationDate = date
            creatorUserRecordID = ID(recordName: user)
        }
        if let (date, user) = Self.stamp(object["modified"]) {
            modificationDate = date
            lastModifiedUserRecordID = ID(recordName: user)
        }
        if case .object(let parentObject)? = object["parent"], let parentName = parentObject["recordName"]?.stringValue {
            parent = Reference(recordID: ID(recordName: parentName, zoneID: zoneID))
            fetchedParent = parentName
        }
        if case .object(let shareObject)? = object["share"], let shareName = shareObject["recordName"]?.stringValue {
            share = Reference(recordID: ID(recordName: shareName, zoneID: zoneID))
        }
        if let stored = object["fields"]?.objectValue {
            guard let decoded = try? EncodedFields.decodeAnswer(stored) else { return nil }
            values = decoded.mapValues { FieldValue(model: $0, currentUser: currentUser) }
        }
        fetchedValues = values
    }

    /// A `created` or `modified` stamp's date and user, when it names either.
    private static func stamp(_ json: JSONValue?) -> (Date, String)? {
        guard case .object(let stamp)? = json else { return nil }
        let timestamp = stamp["timestamp"]?.integerValue ?? 0
        let user = stamp["userRecordName"]?.stringValue ?? ""
        guard timestamp > 0 || !user.isEmpty else { return nil }
        return (Date(milliseconds: timestamp), user)
    }
}
