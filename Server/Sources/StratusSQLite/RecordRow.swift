import GRDB
import StratusModel
import StratusStore

/// A row of the records table, live or a tombstone.
struct RecordRow: Sendable {
    static let columns =
        "r.id, r.name, r.type, r.change_tag, r.fields, r.created_at, r.created_by, r.created_device, "
        + "r.modified_at, r.modified_by, r.modified_device, r.deleted, r.zone_id, r.parent, r.share_name, r.short_guid"

    var id: Int64
    var name: String
    var type: String
    var changeTag: String
    var fields: EncodedFields
    var created: RecordStamp
    var modified: RecordStamp
    var deleted: Bool
    var zoneID: Int64
    var parent: String?
    var share: String?
    /// Set when the record was saved with `createShortGUID`, or is a shared root or a share.
    var shortGUID: String?

    /// Reads a row selected with ``columns``, which must come first in the select list.
    init(row: Row) {
        id = row[0]
        name = row[1]
        type = row[2]
        changeTag = row[3]
        fields = EncodedFields(json: row[4])
        created = RecordStamp(timestamp: row[5], userRecordName: row[6], deviceID: row[7])
        modified = RecordStamp(timestamp: row[8], userRecordName: row[9], deviceID: row[10])
        deleted = row[11]
        zoneID = row[12]
        parent = row[13]
        share = row[14]
        shortGUID = row[15]
    }

    /// The record, without share details (which only share records have).
    func record(in zone: ZoneID) -> Record {
        Record(
            recordName: name, recordType: type, recordChangeTag: changeTag, fields: fields,
            created: created, modified: modified, zoneID: zone, parent: parent, share: share, shortGUID: shortGUID
        )
    }

    /// The record, with its participants when it is a live share.
    func record(in zone: ZoneID, db: Database) throws -> Record {
        var record = record(in: zone)
        if type == ShareRecords.recordType && !deleted {
            record.shareDetails = try ShareRows.details(ofShareRecord: id, db: db)
        }
        return record
    }

    static func fetch(zoneID: Int64, name: String, db: Database) throws -> RecordRow? {
        try Row.fetchOne(
            db.cachedStatement(sql: "SELECT \(columns) FROM records r WHERE r.zone_id = ? AND r.name = ?"), arguments: [zoneID, name]
        ).map(RecordRow.init(row:))
    }
}
