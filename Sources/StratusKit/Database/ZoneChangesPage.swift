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
                deletions.append((Record.ID(recordName: name, zoneID: zoneID), Self.text(fields["recordType"]) ?? ""))
                continue
            }
            guard let record = Record(wire: fields, name: name, currentUser: currentUser) else { return nil }
            modifications[Record.ID(recordName: name, zoneID: zoneID)] = .success(record)
        }
    }

    static func text(_ json: JSONValue?) -> String? {
        if case .string(let text)? = json { return text }
        return nil
    }
}

extension Record {
    /// A record from its answer's JSON object, as ``init(model:currentUser:)`` makes it; `nil` for what that path
    /// handles alone (share records) or for a shape it would refuse.
    init?(wire object: [String: JSONValue], name: String, currentUser: String?) {
        let type = ZoneChangesPage.text(object["recordType"]) ?? ""
        guard type != ShareRecords.recordType else { return nil }
        var zone = ZoneID()
        if case .object(let zoneObject)? = object["zoneID"] {
            zone.zoneName = ZoneChangesPage.text(zoneObject["zoneName"]) ?? ZoneID.defaultZoneName
            zone.ownerRecordName = ZoneChangesPage.text(zoneObject["ownerRecordName"])
        }
        let zoneID = Zone.ID(model: zone, currentUser: currentUser)
        self.init(recordType: type, recordID: ID(recordName: name, zoneID: zoneID))
        recordChangeTag = ZoneChangesPage.text(object["recordChangeTag"]) ?? ""
        if let (date, user) = Self.stamp(object["created"]) {
            creationDate = date
            creatorUserRecordID = ID(recordName: user)
        }
        if let (date, user) = Self.stamp(object["modified"]) {
            modificationDate = date
            lastModifiedUserRecordID = ID(recordName: user)
        }
        if case .object(let parentObject)? = object["parent"], let parentName = ZoneChangesPage.text(parentObject["recordName"]) {
            parent = Reference(recordID: ID(recordName: parentName, zoneID: zoneID))
            fetchedParent = parentName
        }
        if case .object(let shareObject)? = object["share"], let shareName = ZoneChangesPage.text(shareObject["recordName"]) {
            share = Reference(recordID: ID(recordName: shareName, zoneID: zoneID))
        }
        if case .object(let stored)? = object["fields"] {
            var decoded: [String: FieldValue] = [:]
            decoded.reserveCapacity(stored.count)
            for (field, input) in stored {
                guard case .object(let parts) = input else { return nil }
                let value = parts["value"] ?? .null
                if value == .null { continue }
                let declared = ZoneChangesPage.text(parts["type"])
                guard let fieldType = declared.map({ FieldType(wireName: $0) }) ?? StratusModel.FieldValue.inferredType(of: value),
                    let model = try? StratusModel.FieldValue(json: value, as: fieldType)
                else { return nil }
                decoded[field] = FieldValue(model: model, currentUser: currentUser)
            }
            values = decoded
        }
        fetchedValues = values
    }

    /// A `created` or `modified` stamp's date and user, when it names either.
    private static func stamp(_ json: JSONValue?) -> (Date, String)? {
        guard case .object(let stamp)? = json else { return nil }
        var timestamp: Int64 = 0
        if case .integer(let value)? = stamp["timestamp"] { timestamp = value }
        let user = ZoneChangesPage.text(stamp["userRecordName"]) ?? ""
        guard timestamp > 0 || !user.isEmpty else { return nil }
        return (Date(milliseconds: timestamp), user)
    }
}
