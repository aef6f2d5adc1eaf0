import PostgresNIO
import StratusModel
import StratusStore

/// A row of the records table, live or a tombstone.
struct PostgresRecordRow: Sendable {
    /// The columns ``init(_:)`` reads, first in a select list, from `records r`.
    static let columns =
        "r.id, r.name, r.type, r.change_tag, r.fields, r.created_at, r.created_by, r.created_device, "
        + "r.modified_at, r.modified_by, r.modified_device, r.deleted, r.zone_id, r.parent, r.share_name, r.short_guid"

    /// How many cells ``columns`` takes.
    static let columnCount = 16

    typealias Columns = (Int64, String, String, String, String, Int64, String, String, Int64, String, String, Bool, Int64, String?, String?, String?)

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
    var shortGUID: String?

    init(_ columns: Columns) {
        id = columns.0
        name = columns.1
        type = columns.2
        changeTag = columns.3
        fields = EncodedFields(json: columns.4)
        created = RecordStamp(timestamp: columns.5, userRecordName: columns.6, deviceID: columns.7)
        modified = RecordStamp(timestamp: columns.8, userRecordName: columns.9, deviceID: columns.10)
        deleted = columns.11
        zoneID = columns.12
        parent = columns.13
        share = columns.14
        shortGUID = columns.15
    }

    /// Reads a row whose first columns are ``columns``.
    init(row: PostgresRow) throws {
        var cells = row.makeIterator()
        func next<T: PostgresDecodable>(_ type: T.Type) throws -> T {
            guard let cell = cells.next() else { throw StorageError(.internalFailure, "a record row has too few columns") }
            return try cell.decode(T.self)
        }
        self.init((
            try next(Int64.self), try next(String.self), try next(String.self), try next(String.self), try next(String.self),
            try next(Int64.self), try next(String.self), try next(String.self), try next(Int64.self), try next(String.self),
            try next(String.self), try next(Bool.self), try next(Int64.self), try next(String?.self), try next(String?.self),
            try next(String?.self)
        ))
    }

    /// The record, without share details (which only share records have).
    func record(in zone: ZoneID) -> Record {
        Record(
            recordName: name, recordType: type, recordChangeTag: changeTag, fields: fields,
            created: created, modified: modified, zoneID: zone, parent: parent, share: share, shortGUID: shortGUID
        )
    }

    /// The record, with its participants when it is a live share.
    func record(in zone: ZoneID, connection: PostgresConnection, logger: Logger) async throws -> Record {
        var record = record(in: zone)
        if type == ShareRecords.recordType && !deleted {
            record.shareDetails = try await PostgresShareRows.details(ofShareRecord: id, connection: connection, logger: logger)
        }
        return record
    }
}
