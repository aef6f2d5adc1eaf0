import Foundation
import GRDB
import StratusModel
import StratusStore

/// Writes a ``WritePlan`` inside the writer's transaction: SQL only, every decision was the engine's.
struct PlanApplier {
    let db: Database
    /// Resolves zones and knows the rows loaded for the plan.
    var loader: SnapshotLoader

    mutating func apply(_ plan: WritePlan) throws {
        for write in plan.writes {
            switch write {
            case .saveRecord(let record):
                try save(record)
            case .deleteRecord(let key, let sequence, let modified):
                let id = try rowID(key)
                try db.cachedStatement(sql: """
                    UPDATE records SET deleted = 1, fields = '{}', seq = ?, change_tag = ?, modified_at = ?, modified_by = ?,
                        modified_device = ?, share_name = NULL, short_guid = NULL WHERE id = ?
                    """).execute(arguments: [sequence, ChangeTag.make(sequence), modified.timestamp, modified.userRecordName, modified.deviceID, id])
                try removeHoldings(ofRecord: id)
            case .setShortGUID(let key, let guid):
                try db.cachedStatement(sql: "UPDATE records SET short_guid = ? WHERE id = ?").execute(arguments: [guid, try rowID(key)])
            case .markShareRoot(let key, let share, let guid, let sequence):
                try db.cachedStatement(sql: "UPDATE records SET share_name = ?, short_guid = ?, seq = ? WHERE id = ? AND deleted = 0")
                    .execute(arguments: [share, guid, sequence, try rowID(key)])
            case .createShare(let shareRecord, let root, let permission):
                try db.cachedStatement(sql: "INSERT INTO shares (record_id, zone_id, root_name, public_permission) VALUES (?, ?, ?, ?)")
                    .execute(arguments: [try shareRecordID(shareRecord), loader.zone.id, root, permission.rawValue])
            case .setPublicPermission(let shareRecord, let permission, let sequence):
                let id = try shareRecordID(shareRecord)
                try db.cachedStatement(sql: "UPDATE shares SET public_permission = ? WHERE record_id = ?").execute(arguments: [permission.rawValue, id])
                try db.cachedStatement(sql: "UPDATE share_participants SET seq = ? WHERE share_record_id = ? AND type = 'PUBLIC_USER' AND status = 'ACCEPTED'")
                    .execute(arguments: [sequence, id])
            case .addParticipant(let shareRecord, let participant, let sequence):
                try db.cachedStatement(sql: """
                    INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(arguments: [
                        try shareRecordID(shareRecord), loader.zone.id, participant.participantID, participant.userRecordName,
                        participant.emailAddress, participant.phoneNumber, participant.permission.rawValue, participant.type.rawValue,
                        participant.acceptanceStatus.rawValue, sequence,
                    ])
            case .setParticipantPermission(let shareRecord, let participantID, let permission, let sequence):
                try db.cachedStatement(sql: "UPDATE share_participants SET permission = ?, seq = ? WHERE share_record_id = ? AND participant_id = ?")
                    .execute(arguments: [permission.rawValue, sequence, try shareRecordID(shareRecord), participantID])
            case .removeParticipant(let shareRecord, let participantID, let sequence):
                try db.cachedStatement(sql: "UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE share_record_id = ? AND participant_id = ?")
                    .execute(arguments: [sequence, try shareRecordID(shareRecord), participantID])
            case .leaveShare(let shareRecord, let user, let sequence):
                try db.cachedStatement(sql: """
                    UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE share_record_id = ? AND user_record_name = ? AND status != 'REMOVED'
                    """).execute(arguments: [sequence, try shareRecordID(shareRecord), user])
            case .removeShare(let shareRecord, let sequence):
                let id = try shareRecordID(shareRecord)
                try db.cachedStatement(sql: "DELETE FROM shares WHERE record_id = ?").execute(arguments: [id])
                try db.cachedStatement(sql: "UPDATE share_participants SET status = 'REMOVED', seq = ? WHERE share_record_id = ? AND status != 'REMOVED'")
                    .execute(arguments: [sequence, id])
            }
        }
    }

    private mutating func save(_ record: PlannedRecord) throws {
        let id: Int64
        if record.replacesRow {
            id = try rowID(record.key)
            try db.cachedStatement(sql: """
                UPDATE records SET type = ?, change_tag = ?, seq = ?, deleted = 0, fields = ?,
                    created_at = ?, created_by = ?, created_device = ?, modified_at = ?, modified_by = ?, modified_device = ?,
                    parent = ?, share_name = ?, short_guid = ?
                WHERE id = ?
                """).execute(arguments: [
                    record.type, record.changeTag, record.sequence, record.fields.json, record.created.timestamp, record.created.userRecordName,
                    record.created.deviceID, record.modified.timestamp, record.modified.userRecordName, record.modified.deviceID,
                    record.parent, record.share, record.shortGUID, id,
                ])
            try removeHoldings(ofRecord: id)
        } else {
            guard let zoneID = try loader.zoneID(record.key.zoneName) else {
                throw ZoneRules.missing(record.key.zoneName)
            }
            try db.cachedStatement(sql: """
                INSERT INTO records (zone_id, name, type, change_tag, seq, fields, created_at, created_by, created_device,
                    modified_at, modified_by, modified_device, parent, share_name, short_guid)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    zoneID, record.key.recordName, record.type, record.changeTag, record.sequence, record.fields.json,
                    record.created.timestamp, record.created.userRecordName, record.created.deviceID, record.modified.timestamp,
                    record.modified.userRecordName, record.modified.deviceID, record.parent, record.share, record.shortGUID,
                ])
            id = db.lastInsertedRowID
            loader.remember(record.key, id: id)
        }
        try insertIndexEntries(record.indexEntries, recordID: id, zoneID: try loader.zoneID(record.key.zoneName) ?? loader.zone.id, type: record.type)
        for edge in record.references {
            guard let targetZone = try loader.zoneID(edge.target.zoneName) else { continue }
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO record_refs (target_zone_id, target_name, source_id, action) VALUES (?, ?, ?, ?)")
                .execute(arguments: [targetZone, edge.target.recordName, id, edge.action.rawValue])
        }
        for asset in record.assets {
            try db.cachedStatement(sql: "INSERT OR IGNORE INTO asset_refs (record_id, field, asset_id) VALUES (?, ?, ?)")
                .execute(arguments: [id, asset.field, asset.assetID])
        }
        for used in record.usedReceipts {
            try db.cachedStatement(sql: "UPDATE asset_receipts SET used_record_id = ?, used_field = ? WHERE receipt = ?")
                .execute(arguments: [id, used.field, used.receipt])
        }
    }

    /// Inserts a record's index rows with one multi-row statement per chunk of up to 16 rows.
    private func insertIndexEntries(_ entries: [IndexEntry], recordID: Int64, zoneID: Int64, type: String) throws {
        var offset = 0
        while offset < entries.count {
            let chunk = entries[offset..<min(offset + 16, entries.count)]
            let rows = Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: chunk.count).joined(separator: ", ")
            let statement = try db.cachedStatement(
                sql: "INSERT OR IGNORE INTO field_index (zone_id, type, field, kind, value, extra, record_id) VALUES \(rows)"
            )
            var values: [DatabaseValue] = []
            values.reserveCapacity(chunk.count * 7)
            for entry in chunk {
                values += [
                    zoneID.databaseValue, type.databaseValue, entry.field.databaseValue, entry.kind.rawValue.databaseValue,
                    entry.key.databaseValue, entry.extra.databaseValue, recordID.databaseValue,
                ]
            }
            try statement.execute(arguments: StatementArguments(values))
            offset += chunk.count
        }
    }

    /// Removes what a record's old version held beside its row: index entries, references and asset holdings.
    private func removeHoldings(ofRecord id: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM field_index WHERE record_id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM record_refs WHERE source_id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM asset_refs WHERE record_id = ?").execute(arguments: [id])
    }

    private func rowID(_ key: RecordKey) throws -> Int64 {
        guard let id = loader.rowIDs[key] else { throw StorageError(.internalFailure, "the plan writes record \(key), which was not loaded") }
        return id
    }

    private func shareRecordID(_ name: String) throws -> Int64 {
        try rowID(RecordKey(zoneName: loader.zone.zone.zoneName, recordName: name))
    }
}

extension IndexEntry.Key {
    /// The key as stored: its ``IndexKey`` bytes, which SQLite compares with `memcmp`.
    var databaseValue: DatabaseValue { IndexKey(self).databaseValue }
}

extension IndexKey {
    var databaseValue: DatabaseValue { Data(bytes).databaseValue }
}
