import Foundation
import Logging
import PostgresNIO
import StratusModel
import StratusStore

/// Writes a ``WritePlan`` inside a write transaction: SQL only, every decision was the engine's.
///
/// Consecutive record saves are written together: their rows in one statement (a JSON array of rows read
/// with `jsonb_to_recordset`), then every index entry, reference, asset holding and used receipt of theirs in
/// one statement each, so a batch of 200 creates is a handful of statements.
final class PostgresPlanApplier {
    let write: PostgresWrite
    let loader: PostgresSnapshotLoader
    private var pending: [PlannedRecord] = []

    init(write: PostgresWrite, loader: PostgresSnapshotLoader) {
        self.write = write
        self.loader = loader
    }

    private var connection: PostgresConnection { write.connection }
    private var logger: Logger { write.logger }

    func apply(_ plan: WritePlan) async throws {
        for planned in plan.writes {
            if case .saveRecord(let record) = planned {
                if pending.contains(where: { $0.key == record.key }) { try await flush() }
                pending.append(record)
                continue
            }
            try await flush()
            try await apply(planned)
        }
        try await flush()
    }

    private func apply(_ planned: PlannedWrite) async throws {
        let zoneID = loader.zone.id
        switch planned {
        case .saveRecord:
            break
        case .deleteRecord(let key, let sequence, let modified):
            let id = try rowID(key)
            try await connection.run(
                """
                UPDATE records SET deleted = true, fields = '{}', seq = \(sequence), change_tag = \(ChangeTag.make(sequence)),
                    modified_at = \(modified.timestamp), modified_by = \(modified.userRecordName), modified_device = \(modified.deviceID),
                    share_name = NULL, short_guid = NULL
                WHERE id = \(id)
                """,
                logger: logger
            )
            try await removeHoldings(ofRecords: [id])
        case .setShortGUID(let key, let guid):
            try await connection.run("UPDATE records SET short_guid = \(guid) WHERE id = \(try rowID(key))", logger: logger)
        case .markShareRoot(let key, let share, let guid, let sequence):
            try await connection.run(
                "UPDATE records SET share_name = \(share), short_guid = \(guid), seq = \(sequence) WHERE id = \(try rowID(key)) AND NOT deleted",
                logger: logger
            )
        case .createShare(let shareRecord, let root, let permission):
            try await connection.run(
                """
                INSERT INTO shares (record_id, zone_id, root_name, public_permission)
                VALUES (\(try shareRecordID(shareRecord)), \(zoneID), \(root), \(permission.rawValue))
                """,
                logger: logger
            )
        case .setPublicPermission(let shareRecord, let permission, let sequence):
            let id = try shareRecordID(shareRecord)
            try await connection.run("UPDATE shares SET public_permission = \(permission.rawValue) WHERE record_id = \(id)", logger: logger)
            try await connection.run(
                "UPDATE share_participants SET seq = \(sequence) WHERE share_record_id = \(id) AND type = 'PUBLIC_USER' AND status = 'ACCEPTED'",
                logger: logger
            )
        case .addParticipant(let shareRecord, let participant, let sequence):
            try await connection.run(
                """
                INSERT INTO share_participants (share_record_id, zone_id, participant_id, user_record_name, email, phone, permission, type, status, seq)
                VALUES (\(try shareRecordID(shareRecord)), \(zoneID), \(participant.participantID), \(participant.userRecordName),
                    \(participant.emailAddress), \(participant.phoneNumber), \(participant.permission.rawValue), \(participant.type.rawValue),
                    \(participant.acceptanceStatus.rawValue), \(sequence))
                """,
                logger: logger
            )
        case .setParticipantPermission(let shareRecord, let participantID, let permission, let sequence):
            try await connection.run(
                """
                UPDATE share_participants SET permission = \(permission.rawValue), seq = \(sequence)
                WHERE share_record_id = \(try shareRecordID(shareRecord)) AND participant_id = \(participantID)
                """,
                logger: logger
            )
        case .removeParticipant(let shareRecord, let participantID, let sequence):
            try await connection.run(
                """
                UPDATE share_participants SET status = 'REMOVED', seq = \(sequence)
                WHERE share_record_id = \(try shareRecordID(shareRecord)) AND participant_id = \(participantID)
                """,
                logger: logger
            )
        case .leaveShare(let shareRecord, let user, let sequence):
            try await connection.run(
                """
                UPDATE share_participants SET status = 'REMOVED', seq = \(sequence)
                WHERE share_record_id = \(try shareRecordID(shareRecord)) AND user_record_name = \(user) AND status != 'REMOVED'
                """,
                logger: logger
            )
        case .removeShare(let shareRecord, let sequence):
            let id = try shareRecordID(shareRecord)
            try await connection.run("DELETE FROM shares WHERE record_id = \(id)", logger: logger)
            try await connection.run(
                "UPDATE share_participants SET status = 'REMOVED', seq = \(sequence) WHERE share_record_id = \(id) AND status != 'REMOVED'",
                logger: logger
            )
        }
    }

    // MARK: - Record saves, together

    /// Writes the pending saves: replaced rows, then new rows, then what every one of them holds. A single
    /// record's row and index entries are one statement.
    private func flush() async throws {
        guard !pending.isEmpty else { return }
        let saves = pending
        pending = []
        if saves.count == 1, let zoneID = try await loader.zoneID(saves[0].key.zoneName) {
            try await saveSingle(saves[0], zoneID: zoneID)
            try await insertHoldings(of: saves, entriesWritten: true)
            return
        }
        let replaced = saves.filter(\.replacesRow)
        if !replaced.isEmpty {
            let ids = try replaced.map { try rowID($0.key) }
            try await removeHoldings(ofRecords: ids)
            try await connection.run(UpdateRecords.self, try binds(try await rowsJSON(replaced, ids: ids)), logger: logger)
        }
        let inserted = saves.filter { !$0.replacesRow }
        if !inserted.isEmpty {
            let rows = try await connection.rows(
                InsertRecords.self, try binds(try await rowsJSON(inserted, ids: nil)), as: (Int64, Int64, String).self, logger: logger
            )
            var keysByRow: [String: RecordKey] = [:]
            for record in inserted {
                guard let zoneID = try await loader.zoneID(record.key.zoneName) else { continue }
                keysByRow["\(zoneID)/\(record.key.recordName)"] = record.key
            }
            for (id, zoneID, name) in rows {
                if let key = keysByRow["\(zoneID)/\(name)"] { loader.remember(key, id: id) }
            }
        }
        try await insertHoldings(of: saves, entriesWritten: false)
    }

    /// One record's row, new or replacing the one there, with its index entries.
    private func saveSingle(_ record: PlannedRecord, zoneID: Int64) async throws {
        if record.replacesRow {
            let id = try rowID(record.key)
            try await removeHoldings(ofRecords: [id])
            try await connection.run(UpdateRecord.self, RecordWriteStatements.singleRecord(record, zoneID: zoneID, row: id), logger: logger)
        } else {
            let bindings = try RecordWriteStatements.singleRecord(record, zoneID: zoneID, row: record.key.recordName)
            guard let id = try await connection.rows(InsertRecord.self, bindings, as: Int64.self, logger: logger).first else {
                throw StorageError(.internalFailure, "record \(record.key) was not inserted")
            }
            loader.remember(record.key, id: id)
        }
    }

    private func rowsJSON(_ records: [PlannedRecord], ids: [Int64]?) async throws -> String {
        var writer = JSONWriter(capacity: 512 * records.count)
        writer.beginArray()
        for (index, record) in records.enumerated() {
            guard let zoneID = try await loader.zoneID(record.key.zoneName) else {
                throw ZoneRules.missing(record.key.zoneName)
            }
            writer.arrayElement()
            writer.beginObject()
            if let ids {
                writer.key("id")
                writer.integer(ids[index])
            }
            writer.key("zone_id"); writer.integer(zoneID)
            writer.key("name"); writer.string(record.key.recordName)
            writer.key("type"); writer.string(record.type)
            writer.key("change_tag"); writer.string(record.changeTag)
            writer.key("seq"); writer.integer(record.sequence)
            writer.key("fields"); writer.string(record.fields.json)
            writer.key("created_at"); writer.integer(record.created.timestamp)
            writer.key("created_by"); writer.string(record.created.userRecordName)
            writer.key("created_device"); writer.string(record.created.deviceID)
            writer.key("modified_at"); writer.integer(record.modified.timestamp)
            writer.key("modified_by"); writer.string(record.modified.userRecordName)
            writer.key("modified_device"); writer.string(record.modified.deviceID)
            writer.key("parent"); optional(record.parent, &writer)
            writer.key("share_name"); optional(record.share, &writer)
            writer.key("short_guid"); optional(record.shortGUID, &writer)
            writer.endObject()
        }
        writer.endArray()
        return writer.text
    }

    private func optional(_ value: String?, _ writer: inout JSONWriter) {
        if let value { writer.string(value) } else { writer.null() }
    }

    /// Inserts the index entries (unless written with the rows), references, asset holdings and used receipts of
    /// saved records, one statement each.
    private func insertHoldings(of saves: [PlannedRecord], entriesWritten: Bool) async throws {
        var entries = IndexEntryRows()
        var references = JSONWriter()
        var assets = JSONWriter()
        var receipts = JSONWriter()
        references.beginArray()
        assets.beginArray()
        receipts.beginArray()
        var counts = (references: 0, assets: 0, receipts: 0)
        for record in saves {
            let id = try rowID(record.key)
            let zoneID = try await loader.zoneID(record.key.zoneName) ?? loader.zone.id
            for entry in record.indexEntries where !entriesWritten {
                entries.add(entry, zoneID: zoneID, type: record.type, recordID: id)
            }
            for edge in record.references {
                guard let targetZone = try await loader.zoneID(edge.target.zoneName) else { continue }
                references.arrayElement()
                references.beginObject()
                references.key("target_zone_id"); references.integer(targetZone)
                references.key("target_name"); references.string(edge.target.recordName)
                references.key("source_id"); references.integer(id)
                references.key("action"); references.integer(Int64(edge.action.rawValue))
                references.endObject()
                counts.references += 1
            }
            for asset in record.assets {
                assets.arrayElement()
                assets.beginObject()
                assets.key("record_id"); assets.integer(id)
                assets.key("field"); assets.string(asset.field)
                assets.key("asset_id"); assets.string(asset.assetID)
                assets.endObject()
                counts.assets += 1
            }
            for used in record.usedReceipts {
                receipts.arrayElement()
                receipts.beginObject()
                receipts.key("receipt"); receipts.string(used.receipt)
                receipts.key("record_id"); receipts.integer(id)
                receipts.key("field"); receipts.string(used.field)
                receipts.endObject()
                counts.receipts += 1
            }
        }
        references.endArray()
        assets.endArray()
        receipts.endArray()
        try await entries.insert(connection: connection, logger: logger)
        if counts.references > 0 { try await connection.run(InsertReferences.self, try binds(references.text), logger: logger) }
        if counts.assets > 0 { try await connection.run(InsertAssetHoldings.self, try binds(assets.text), logger: logger) }
        if counts.receipts > 0 { try await connection.run(UseReceipts.self, try binds(receipts.text), logger: logger) }
    }

    /// Removes what records' old versions held beside their rows: index entries, references and asset holdings.
    private func removeHoldings(ofRecords ids: [Int64]) async throws {
        try await connection.run(RemoveHoldings.self, try binds(ids), logger: logger)
    }

    private func rowID(_ key: RecordKey) throws -> Int64 {
        guard let id = loader.rowIDs[key] else { throw StorageError(.internalFailure, "the plan writes record \(key), which was not loaded") }
        return id
    }

    private func shareRecordID(_ name: String) throws -> Int64 {
        try rowID(RecordKey(zoneName: loader.zone.zone.zoneName, recordName: name))
    }
}

extension IndexKey {
    /// The key's bytes in hexadecimal, as `decode(..., 'hex')` reads them.
    var hex: String { bytes.hexadecimal }
}
