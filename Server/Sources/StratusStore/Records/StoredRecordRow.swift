import StratusModel

/// A row of a backend's records table, live or a tombstone, with the row and zone ids the backend keys it by.
///
/// Both backends store records in the same columns (``columns``); each reads a row its own way and adds share
/// details from its own tables.
public struct StoredRecordRow: Sendable {
    /// The columns a backend selects, first in the select list, from `records r`.
    public static let columns =
        "r.id, r.name, r.type, r.change_tag, r.fields, r.created_at, r.created_by, r.created_device, "
        + "r.modified_at, r.modified_by, r.modified_device, r.deleted, r.zone_id, r.parent, r.share_name, r.short_guid"

    /// How many cells ``columns`` takes.
    public static let columnCount = 16

    public var id: Int64
    public var name: String
    public var type: String
    public var changeTag: String
    public var fields: EncodedFields
    public var created: RecordStamp
    public var modified: RecordStamp
    public var deleted: Bool
    public var zoneID: Int64
    public var parent: String?
    public var share: String?
    /// Set when the record was saved with `createShortGUID`, or is a shared root or a share.
    public var shortGUID: String?

    /// A row from the cells of ``columns``, in their order.
    public init(
        id: Int64, name: String, type: String, changeTag: String, fieldsJSON: String,
        createdAt: Int64, createdBy: String, createdDevice: String, modifiedAt: Int64, modifiedBy: String, modifiedDevice: String,
        deleted: Bool, zoneID: Int64, parent: String?, share: String?, shortGUID: String?
    ) {
        self.id = id
        self.name = name
        self.type = type
        self.changeTag = changeTag
        fields = EncodedFields(json: fieldsJSON)
        created = RecordStamp(timestamp: createdAt, userRecordName: createdBy, deviceID: createdDevice)
        modified = RecordStamp(timestamp: modifiedAt, userRecordName: modifiedBy, deviceID: modifiedDevice)
        self.deleted = deleted
        self.zoneID = zoneID
        self.parent = parent
        self.share = share
        self.shortGUID = shortGUID
    }

    /// Whether the row is a live share record, whose participants the backend adds to ``record(in:)``.
    public var isLiveShare: Bool { type == ShareRecords.recordType && !deleted }

    /// The row as the engine sees it, in the zone named `zoneName` (the zone of ``zoneID``).
    public func stored(inZone zoneName: String) -> StoredRecord {
        StoredRecord(
            key: RecordKey(zoneName: zoneName, recordName: name), type: type, changeTag: changeTag, fields: fields,
            created: created, modified: modified, deleted: deleted, parent: parent, share: share, shortGUID: shortGUID
        )
    }

    /// The record, without share details (which only share records have).
    public func record(in zone: ZoneID) -> Record {
        Record(
            recordName: name, recordType: type, recordChangeTag: changeTag, fields: fields,
            created: created, modified: modified, zoneID: zone, parent: parent, share: share, shortGUID: shortGUID
        )
    }
}
