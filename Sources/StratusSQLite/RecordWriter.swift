import Foundation
import GRDB
import StratusModel
import StratusStore

/// Applies record operations to one zone inside a group commit.
struct RecordWriter {
    let store: SQLiteStore
    let batch: WriteBatch
    let zone: ZoneRow
    let caller: Caller
    let timestamp: Int64
    /// The changes applied, for subscriptions.
    let events = RecordEventLog()

    var db: Database { batch.db }
    private var schemaKey: SchemaKey {
        SchemaKey(containerID: zone.zone.database.containerID, environment: zone.zone.database.environment)
    }

    /// Applies one operation. A stale change tag is answered with a failure carrying the server record;
    /// other failures are thrown.
    func apply(_ operation: RecordOperation, prepared: PreparedFields? = nil) throws -> RecordOperationResult {
        let existing = try RecordRow.fetch(zoneID: zone.id, name: operation.recordName, db: db)
        let live = existing.flatMap { $0.deleted ? nil : $0 }
        if let access = try participantAccess(), let outcome = try checkParticipant(operation, live: live, access: access) {
            return outcome
        }

        if let live, operation.type.requiresChangeTag {
            guard let tag = operation.recordChangeTag else {
                throw StorageError(.invalidArgument, "\(operation.type.rawValue) needs the record's recordChangeTag; use force\(operation.type.rawValue.prefix(1).uppercased() + operation.type.rawValue.dropFirst()) to ignore it")
            }
            if tag != live.changeTag {
                return .failed(RecordFailure(
                    recordName: operation.recordName,
                    error: StorageError(.conflict, "the record was changed since its recordChangeTag was read"),
                    serverRecord: try live.record(in: zone.zone.wireZoneID, db: db)
                ))
            }
        }
        if operation.type.isDelete {
            if let live {
                try checkAccess(.write, recordType: live.type, creator: live.created.userRecordName)
                try deleteCascading(live)
            }
            return .deleted(DeletedRecord(recordName: operation.recordName, recordType: live?.type, zoneID: zone.zone.wireZoneID))
        }
        switch operation.type {
        case .create where live != nil:
            // Apple's live server answers CONFLICT with the server record (its 2016 docs say EXISTS); clients
            // were written against the live server.
            return .failed(RecordFailure(
                recordName: operation.recordName,
                error: StorageError(.conflict, "a record with this name exists already"),
                serverRecord: try live?.record(in: zone.zone.wireZoneID, db: db)
            ))
        case .update where live == nil, .replace where live == nil:
            throw StorageError(.notFound, "the record does not exist")
        default:
            break
        }
        if let live, let type = operation.recordType, type != live.type {
            throw StorageError(.invalidArgument, "the record is of type \(live.type), not \(type)")
        }
        guard let recordType = live?.type ?? operation.recordType else {
            throw StorageError(.invalidArgument, "recordType is required to create a record")
        }
        if live == nil && recordType == Schema.usersType {
            throw StorageError(.accessDenied, "Users records are created by signing up")
        }
        if recordType == ShareRecords.recordType {
            return try saveShare(operation, existing: existing, live: live)
        }
        if operation.recordName == ShareRecords.zoneShareName {
            throw StorageError(.invalidArgument, "the record name \(ShareRecords.zoneShareName) is kept for zone-wide shares")
        }
        let parent = try resolveParent(operation, live: live)

        var schema = try batch.schema(schemaKey)
        // A new type (just in time, in development) gets CloudKit's default grants before they are checked.
        try SchemaResolver.requireRecordType(recordType, in: &schema, environment: schemaKey.environment)
        batch.schemas[schemaKey] = schema
        try checkAccess(live == nil ? .create : .write, recordType: recordType, creator: live?.created.userRecordName)
        let fields: PreparedFields
        var receipts: [AssetBinder.UsedReceipt] = []
        if let prepared, prepared.isValid(in: schema, recordType: recordType) {
            fields = prepared
        } else {
            let resolved = try SchemaResolver.resolve(
                recordType: recordType, fields: operation.fields ?? [:], in: &schema, environment: schemaKey.environment
            )
            batch.schemas[schemaKey] = schema
            var values: [String: FieldValue] = [:]
            if let live, operation.type == .update || operation.type == .forceUpdate {
                values = try live.fields.decode()
            }
            for (name, value) in resolved {
                values[name] = value
            }
            let binder = AssetBinder(db: db, zone: zone.zone, live: live, timestamp: timestamp)
            receipts = try binder.bind(&values, sentFields: resolved.keys)
            fields = PreparedFields(values: values, type: schema.recordTypes[recordType])
        }
        try validateReferences(in: fields.values)
        if let type = try batch.schema(schemaKey).recordTypes[recordType] {
            try ConstraintChecker.check(fields.values, of: type)
            for check in ConstraintChecker.uniqueChecks(fields.values, of: type) where try isTaken(check, recordType: recordType, excluding: existing?.id) {
                throw StorageError(.uniqueViolation, check.message)
            }
        }
        guard fields.encoded.byteCount <= RecordLimits.maximumRecordBytes else {
            throw StorageError(.limitExceeded, "the record's fields take \(fields.encoded.byteCount) bytes; the limit is \(RecordLimits.maximumRecordBytes)")
        }
        var record = try write(
            name: operation.recordName, type: recordType, fields: fields, replacing: existing, live: live, parent: parent, receipts: receipts
        )
        if operation.createShortGUID && record.shortGUID == nil {
            let guid = ShareRows.newShortGUID()
            try db.cachedStatement(sql: "UPDATE records SET short_guid = ? WHERE zone_id = ? AND name = ?")
                .execute(arguments: [guid, zone.id, operation.recordName])
            record.shortGUID = guid
        }
        return .saved(record)
    }

    /// Creates the `Users` record of a new account.
    func insertUserRecord(named name: String) throws {
        guard try RecordRow.fetch(zoneID: zone.id, name: name, db: db) == nil else { return }
        var schema = try batch.schema(schemaKey)
        // Users is built in: it exists in every environment, so it is added here even in production.
        try SchemaResolver.requireRecordType(Schema.usersType, in: &schema, environment: .development)
        batch.schemas[schemaKey] = schema
        _ = try write(name: name, type: Schema.usersType, fields: PreparedFields(values: [:], type: nil), replacing: nil, live: nil)
    }

    // MARK: - Writing rows

    func write(
        name: String, type: String, fields: PreparedFields, replacing existing: RecordRow?, live: RecordRow?,
        parent: String? = nil, receipts: [AssetBinder.UsedReceipt] = []
    ) throws -> Record {
        let encoded = fields.encoded
        let sequence = store.nextSequence()
        let changeTag = String(sequence, radix: 36)
        let modified = RecordStamp(timestamp: timestamp, userRecordName: caller.userRecordName ?? "", deviceID: caller.deviceID)
        let created = live?.created ?? modified
        let id: Int64
        if let existing {
            id = existing.id
            try db.cachedStatement(
                sql: """
                    UPDATE records SET type = ?, change_tag = ?, seq = ?, deleted = 0, fields = ?,
                        created_at = ?, created_by = ?, created_device = ?, modified_at = ?, modified_by = ?, modified_device = ?,
                        parent = ?
                    WHERE id = ?
                    """
            ).execute(
                arguments: [
                    type, changeTag, sequence, encoded.json, created.timestamp, created.userRecordName, created.deviceID,
                    modified.timestamp, modified.userRecordName, modified.deviceID, parent, id,
                ]
            )
            try removeIndexEntries(ofRecord: id, holdingAssets: existing.fields.containsAssets)
        } else {
            try db.cachedStatement(
                sql: """
                    INSERT INTO records (zone_id, name, type, change_tag, seq, fields, created_at, created_by, created_device,
                        modified_at, modified_by, modified_device, parent)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(
                arguments: [
                    zone.id, name, type, changeTag, sequence, encoded.json, created.timestamp, created.userRecordName,
                    created.deviceID, modified.timestamp, modified.userRecordName, modified.deviceID, parent,
                ]
            )
            id = db.lastInsertedRowID
        }
        let compoundEntries = IndexEntry.compoundEntries(
            for: fields.values, system: SystemFieldValues(recordName: name, created: created, modified: modified),
            of: try batch.schema(schemaKey).recordTypes[type]
        )
        try insertIndexEntries(compoundEntries.isEmpty ? fields.indexEntries : fields.indexEntries + compoundEntries, recordID: id, type: type)
        try insertReferences(in: fields.values, sourceID: id)
        if fields.encoded.containsAssets || !receipts.isEmpty {
            try AssetBinder.recordHoldings(fields.values, recordID: id, receipts: receipts, db: db)
        }
        let record = Record(
            recordName: name, recordType: type, recordChangeTag: changeTag, fields: encoded, created: created,
            modified: modified, zoneID: zone.zone.wireZoneID, parent: parent, share: live?.share, shortGUID: live?.shortGUID
        )
        events.events.append(RecordEvent(
            kind: live == nil ? .created : .updated, zone: zone.zone, record: record, fields: fields.values,
            sharedReaders: try sharedReaders(of: name)
        ))
        return record
    }

    /// Inserts a record's index rows with one multi-row statement per chunk of up to 16 rows.
    private func insertIndexEntries(_ entries: [IndexEntry], recordID: Int64, type: String) throws {
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
                    zone.id.databaseValue, type.databaseValue, entry.field.databaseValue, entry.kind.rawValue.databaseValue,
                    entry.key.databaseValue, entry.extra.databaseValue, recordID.databaseValue,
                ]
            }
            try statement.execute(arguments: StatementArguments(values))
            offset += chunk.count
        }
    }

    /// Removes what a record's old version added beside its row: index entries, references and asset holdings.
    private func removeIndexEntries(ofRecord id: Int64, holdingAssets: Bool) throws {
        try db.cachedStatement(sql: "DELETE FROM field_index WHERE record_id = ?").execute(arguments: [id])
        try db.cachedStatement(sql: "DELETE FROM record_refs WHERE source_id = ?").execute(arguments: [id])
        if holdingAssets {
            try db.cachedStatement(sql: "DELETE FROM asset_refs WHERE record_id = ?").execute(arguments: [id])
        }
    }

    // MARK: - Constraints

    /// Whether another live record of the type in this zone already has the checked value (and condition).
    /// Runs inside the single writer's transaction, so no concurrent write can slip between check and save.
    private func isTaken(_ check: ConstraintChecker.UniqueCheck, recordType: String, excluding recordID: Int64?) throws -> Bool {
        if let condition = check.condition {
            return try Bool.fetchOne(
                db.cachedStatement(sql: """
                    SELECT 1 FROM field_index a JOIN field_index b
                        ON b.zone_id = a.zone_id AND b.type = a.type AND b.field = ? AND b.kind = 0 AND b.value = ? AND b.record_id = a.record_id
                    WHERE a.zone_id = ? AND a.type = ? AND a.field = ? AND a.kind = 0 AND a.value = ? AND a.record_id != ? LIMIT 1
                    """),
                arguments: [condition.field, condition.key.databaseValue, zone.id, recordType, check.field, check.key.databaseValue, recordID ?? -1]
            ) ?? false
        }
        return try Bool.fetchOne(
            db.cachedStatement(sql: """
                SELECT 1 FROM field_index WHERE zone_id = ? AND type = ? AND field = ? AND kind = 0 AND value = ? AND record_id != ? LIMIT 1
                """),
            arguments: [zone.id, recordType, check.field, check.key.databaseValue, recordID ?? -1]
        ) ?? false
    }

    // MARK: - References

    /// The zone a reference points into, if it exists.
    private func targetZone(of reference: Reference) throws -> Int64? {
        let database = zone.zone.database
        if let owner = reference.zoneID?.ownerRecordName, database.scope == .private,
            owner != database.ownerRecordName, owner != "_defaultOwner", owner != "__defaultOwner__"
        {
            throw StorageError(.invalidArgument, "a reference cannot point into another user's database")
        }
        guard let zoneName = reference.zoneID?.zoneName, zoneName != zone.zone.zoneName else { return zone.id }
        return try SQLiteStore.liveZone(database.zone(zoneName), db: db)?.id
    }

    private func references(in fields: [String: FieldValue]) -> [Reference] {
        fields.values.flatMap(\.elements).compactMap { value in
            if case .reference(let reference) = value { return reference }
            return nil
        }
    }

    private func validateReferences(in fields: [String: FieldValue]) throws {
        for reference in references(in: fields) {
            _ = try targetZone(of: reference)
            guard reference.action == .validate else { continue }
            guard let zoneID = try targetZone(of: reference),
                let target = try RecordRow.fetch(zoneID: zoneID, name: reference.recordName, db: db), !target.deleted
            else {
                throw StorageError(.validatingReference, "a VALIDATE reference points at record \(reference.recordName), which does not exist")
            }
        }
    }

    private func insertReferences(in fields: [String: FieldValue], sourceID: Int64) throws {
        for reference in references(in: fields) where reference.action != .none {
            guard let zoneID = try targetZone(of: reference) else { continue }
            try db.execute(
                sql: "INSERT OR IGNORE INTO record_refs (target_zone_id, target_name, source_id, action) VALUES (?, ?, ?, ?)",
                arguments: [zoneID, reference.recordName, sourceID, reference.action == .deleteSelf ? 1 : 2]
            )
        }
    }

    // MARK: - Deleting

    /// Checks the record type's grants in the public database; a private database is its owner's alone.
    private func checkAccess(_ permission: Permission, recordType: String, creator: String?) throws {
        guard zone.zone.database.scope == .public else { return }
        guard let type = try batch.schema(schemaKey).recordTypes[recordType] else {
            throw StorageError(.invalidArgument, "record type '\(recordType)' does not exist")
        }
        guard AccessPolicy.allows(permission, on: type, caller: caller, creator: creator) else {
            throw AccessPolicy.refusal(permission, recordType: recordType)
        }
    }

    /// Deletes a record and, transitively, every record that points at it with `DELETE_SELF`.
    ///
    /// Refused when a record outside the deleted set still points at a deleted one with `VALIDATE`.
    private func deleteCascading(_ root: RecordRow) throws {
        if root.type == Schema.usersType {
            throw StorageError(.accessDenied, "Users records cannot be deleted")
        }
        var doomed: [Int64: RecordRow] = [root.id: root]
        var queue = [root]
        while let target = queue.popLast() {
            let sources = try Int64.fetchAll(
                db, sql: "SELECT source_id FROM record_refs WHERE target_zone_id = ? AND target_name = ? AND action = 1",
                arguments: [target.zoneID, target.name]
            )
            for sourceID in sources where doomed[sourceID] == nil {
                guard let source = try Row.fetchOne(
                    db, sql: "SELECT \(RecordRow.columns) FROM records r WHERE r.id = ? AND r.deleted = 0", arguments: [sourceID]
                ).map(RecordRow.init(row:)) else { continue }
                doomed[sourceID] = source
                queue.append(source)
                guard doomed.count <= RecordLimits.maximumCascade else {
                    throw StorageError(.limitExceeded, "deleting this record would delete more than \(RecordLimits.maximumCascade) records through DELETE_SELF references")
                }
            }
        }
        // A shared root takes its share along.
        for root in doomed.values {
            guard let shareName = root.share, let share = try RecordRow.fetch(zoneID: root.zoneID, name: shareName, db: db),
                !share.deleted, doomed[share.id] == nil
            else { continue }
            doomed[share.id] = share
        }
        for target in doomed.values {
            let guards = try Int64.fetchAll(
                db, sql: "SELECT source_id FROM record_refs WHERE target_zone_id = ? AND target_name = ? AND action = 2",
                arguments: [target.zoneID, target.name]
            )
            if guards.contains(where: { doomed[$0] == nil }) {
                throw StorageError(.validatingReference, "record \(target.name) is still the target of a VALIDATE reference")
            }
        }
        for record in doomed.values.sorted(by: { $0.id < $1.id }) {
            try recordDeletion(of: record)
            let sequence = store.nextSequence()
            if record.type == ShareRecords.recordType {
                try ShareRows.removeShare(recordID: record.id, sequence: sequence, db: db)
            }
            try db.execute(
                sql: """
                    UPDATE records SET deleted = 1, fields = '{}', seq = ?, change_tag = ?, modified_at = ?, modified_by = ?,
                        modified_device = ?, share_name = NULL, short_guid = NULL WHERE id = ?
                    """,
                arguments: [sequence, String(sequence, radix: 36), timestamp, caller.userRecordName ?? "", caller.deviceID, record.id]
            )
            try removeIndexEntries(ofRecord: record.id, holdingAssets: record.fields.containsAssets)
        }
    }
}

extension RecordWriter {
    /// Notes a record about to be deleted, as it was, for subscriptions.
    private func recordDeletion(of row: RecordRow) throws {
        var recordZone = zone.zone
        if row.zoneID != zone.id, let name = try String.fetchOne(db, sql: "SELECT name FROM zones WHERE id = ?", arguments: [row.zoneID]) {
            recordZone = zone.zone.database.zone(name)
        }
        let fields = (try? row.fields.decode()) ?? [:]
        let readers = row.zoneID == zone.id ? try sharedReaders(of: row.name) : []
        events.events.append(RecordEvent(
            kind: .deleted, zone: recordZone, record: row.record(in: recordZone.wireZoneID), fields: fields, sharedReaders: readers
        ))
    }
}

/// The record changes of one write job, in order.
final class RecordEventLog: @unchecked Sendable {
    var events: [RecordEvent] = []
    /// Roots shared by this job, with their share records' names, so that their results can name the share.
    var sharedRoots: [String: String] = [:]
}

extension IndexEntry.Key {
    /// The key as stored: its ``IndexKey`` bytes, which SQLite compares with `memcmp`.
    var databaseValue: DatabaseValue { IndexKey(self).databaseValue }
}

extension IndexKey {
    var databaseValue: DatabaseValue { Data(bytes).databaseValue }
}

extension IndexEntry.Key {
    /// The value as a record column holds it (system fields: names and times).
    var columnValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
