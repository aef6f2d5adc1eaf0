import Foundation
import StratusModel

extension RecordEvent {
    /// The event as an outbox keeps it: compact JSON of the change, the zone, the record's system values and its
    /// canonical fields. The same text on every backend.
    public var encoded: String {
        let stored = Stored(
            kind: kind.rawValue, zone: zone, name: record.recordName, type: record.recordType, tag: record.recordChangeTag,
            fields: record.fields.json,
            createdAt: record.created.timestamp, createdBy: record.created.userRecordName,
            modifiedAt: record.modified.timestamp, modifiedBy: record.modified.userRecordName,
            parent: record.parent, share: record.share, readers: sharedReaders
        )
        // Strings, numbers and optionals only: encoding cannot fail.
        return String(decoding: (try? JSONEncoder().encode(stored)) ?? Data(), as: UTF8.self)
    }

    /// An event stored by ``encoded``; its `fields` are decoded from the record's.
    /// - Throws: ``StorageError/Code/internalFailure`` for text that is not such an event.
    public init(encoded text: String) throws {
        let stored: Stored
        let fields: [String: FieldValue]
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(text.utf8))
            fields = try EncodedFields(json: stored.fields).decode()
        } catch {
            throw StorageError(.internalFailure, "an outbox entry could not be read", underlying: error)
        }
        guard let kind = Kind(rawValue: stored.kind) else {
            throw StorageError(.internalFailure, "an outbox entry has an unknown kind \(stored.kind)")
        }
        let record = Record(
            recordName: stored.name, recordType: stored.type, recordChangeTag: stored.tag, fields: EncodedFields(json: stored.fields),
            created: RecordStamp(timestamp: stored.createdAt, userRecordName: stored.createdBy, deviceID: ""),
            modified: RecordStamp(timestamp: stored.modifiedAt, userRecordName: stored.modifiedBy, deviceID: ""),
            zoneID: stored.zone.wireZoneID, parent: stored.parent, share: stored.share
        )
        self.init(kind: kind, zone: stored.zone, record: record, fields: fields, sharedReaders: stored.readers)
    }

    private struct Stored: Codable {
        var kind: Int
        var zone: ZoneRef
        var name: String
        var type: String
        var tag: String
        var fields: String
        var createdAt: Int64
        var createdBy: String
        var modifiedAt: Int64
        var modifiedBy: String
        var parent: String?
        var share: String?
        var readers: [String]
    }
}
