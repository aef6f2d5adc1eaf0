import StratusModel

/// Saving and deleting one record: change tags, create/update/replace, the `Users` type, access,
/// fields, references, constraints and limits.
extension BatchPlanner {
    /// Decides one operation. A stale change tag or an existing record on create is answered with a failure
    /// carrying the server record; other failures are thrown.
    mutating func apply(_ operation: RecordOperation, prepared: PreparedFields?) throws -> RecordOperationResult {
        let existing = try row(key(operation.recordName))
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
                    serverRecord: try serverRecord(live)
                ))
            }
        }
        if operation.type.isDelete {
            if let live {
                try checkAccess(.write, recordType: live.type, creator: live.created.userRecordName)
                try deleteCascading(live)
            }
            return .deleted(DeletedRecord(recordName: operation.recordName, recordType: live?.type, zoneID: batch.zone.wireZoneID))
        }
        switch operation.type {
        case .create where live != nil:
            // Apple's live server answers CONFLICT with the server record (its 2016 docs say EXISTS); clients
            // were written against the live server.
            return .failed(RecordFailure(
                recordName: operation.recordName,
                error: StorageError(.conflict, "a record with this name exists already"),
                serverRecord: try live.map { try serverRecord($0) }
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
        if live == nil && recordType == Schema.usersType && operation.imported == nil {
            throw StorageError(.accessDenied, "Users records are created by signing up")
        }
        if recordType == ShareRecords.recordType {
            return try saveShare(operation, existing: existing, live: live)
        }
        if operation.recordName == ShareRecords.zoneShareName {
            throw StorageError(.invalidArgument, "the record name \(ShareRecords.zoneShareName) is kept for zone-wide shares")
        }
        let parent = try resolveParent(operation, live: live)

        // A new type (just in time, in development) gets CloudKit's default grants before they are checked.
        let environment = environment
        try changeSchema { schema throws(StorageError) in try SchemaResolver.requireRecordType(recordType, in: &schema, environment: environment) }
        try checkAccess(live == nil ? .create : .write, recordType: recordType, creator: live?.created.userRecordName)
        let fields: PreparedFields
        var receipts: [(receipt: String, field: String)] = []
        if let prepared, prepared.isValid(in: state.schema, recordType: recordType) {
            fields = prepared
        } else {
            var resolved: [String: FieldValue?] = [:]
            try changeSchema { schema throws(StorageError) in
                resolved = try SchemaResolver.resolve(recordType: recordType, fields: operation.fields ?? [:], in: &schema, environment: environment)
            }
            var values: [String: FieldValue] = [:]
            if let live, operation.type == .update || operation.type == .forceUpdate {
                values = try live.fields.decode()
            }
            for (name, value) in resolved {
                values[name] = value
            }
            receipts = try bindAssets(&values, sentFields: resolved.keys, live: live)
            fields = PreparedFields(values: values, type: state.schema.recordTypes[recordType])
        }
        if operation.imported == nil { try validateReferences(in: fields.values) }
        if let type = state.schema.recordTypes[recordType] {
            try ConstraintChecker.check(fields.values, of: type)
            for check in ConstraintChecker.uniqueChecks(fields.values, of: type) {
                let probe = UniqueProbe(recordType: recordType, field: check.field, key: check.key, condition: check.condition)
                if try !holders(of: probe).subtracting([operation.recordName]).isEmpty {
                    throw StorageError(.uniqueViolation, check.message)
                }
            }
        }
        guard fields.encoded.byteCount <= RecordLimits.maximumRecordBytes else {
            throw StorageError(.limitExceeded, "the record's fields take \(fields.encoded.byteCount) bytes; the limit is \(RecordLimits.maximumRecordBytes)")
        }
        let saved = try write(
            name: operation.recordName, type: recordType, fields: fields, existing: existing, live: live, parent: parent,
            receipts: receipts, imported: operation.imported
        )
        if operation.createShortGUID && saved.shortGUID == nil {
            var record = saved
            record.shortGUID = input.newShortGUID()
            setShortGUID(record.recordName, record.shortGUID!)
            return .saved(record)
        }
        return .saved(saved)
    }

    /// The record as a conflict shows it, with its share's details when it is a share.
    mutating func serverRecord(_ row: StoredRecord) throws -> Record {
        var record = row.record(in: database)
        if row.type == ShareRecords.recordType && !row.deleted {
            record.shareDetails = try shareDetails(ofShareRecord: row.key.recordName)
        }
        return record
    }

    /// Checks the record type's grants in the public database; a private database is its owner's alone.
    mutating func checkAccess(_ permission: Permission, recordType: String, creator: String?) throws {
        guard database.scope == .public else { return }
        guard let type = state.schema.recordTypes[recordType] else {
            throw StorageError(.invalidArgument, "record type '\(recordType)' does not exist")
        }
        guard AccessPolicy.allows(permission, on: type, caller: caller, creator: creator) else {
            throw AccessPolicy.refusal(permission, recordType: recordType)
        }
    }

    // MARK: - Writing

    /// Plans a record's row, with its index entries, references and assets, and notes the change.
    mutating func write(
        name: String, type: String, fields: PreparedFields, existing: StoredRecord?, live: StoredRecord?,
        parent: String? = nil, receipts: [(receipt: String, field: String)] = [], imported: ImportedMetadata? = nil
    ) throws -> Record {
        let key = key(name)
        let sequence = takeSequence()
        let modified = imported?.modified ?? RecordStamp(timestamp: batch.timestamp, userRecordName: caller.userRecordName ?? "", deviceID: caller.deviceID)
        let created = imported?.created ?? live?.created ?? modified
        let compound = IndexEntry.compoundEntries(
            for: fields.values, system: SystemFieldValues(recordName: name, created: created, modified: modified),
            of: state.schema.recordTypes[type]
        )
        var references: [ReferenceEdge] = []
        for reference in Self.references(in: fields.values) where reference.action != .none {
            guard let zone = try targetZone(of: reference) else { continue }
            let edge = ReferenceEdge(
                source: key, target: RecordKey(zoneName: zone, recordName: reference.recordName),
                action: reference.action == .deleteSelf ? .deleteSelf : .validate
            )
            if !references.contains(edge) { references.append(edge) }
        }
        var assets: [(field: String, assetID: String)] = []
        for (field, value) in fields.values where value.type.scalar == .asset {
            for asset in value.assets {
                if let id = asset.assetID { assets.append((field, id)) }
            }
        }
        let planned = PlannedRecord(
            key: key, type: type, changeTag: ChangeTag.make(sequence), sequence: sequence, fields: fields.encoded,
            created: created, modified: modified, parent: parent, share: live?.share, shortGUID: imported?.shortGUID ?? live?.shortGUID,
            indexEntries: compound.isEmpty ? fields.indexEntries : fields.indexEntries + compound, references: references,
            assets: assets, usedReceipts: receipts, replacesRow: existing != nil
        )
        plan.writes.append(.saveRecord(planned))
        state.records[key] = StoredRecord(
            key: key, type: type, changeTag: planned.changeTag, fields: fields.encoded, created: created, modified: modified,
            parent: parent, share: planned.share, shortGUID: planned.shortGUID
        )
        setReferences(from: key, to: references)
        if let schemaType = state.schema.recordTypes[type] {
            roundProbes[key] = Set(ConstraintChecker.uniqueChecks(fields.values, of: schemaType).map {
                UniqueProbe(recordType: type, field: $0.field, key: $0.key, condition: $0.condition)
            })
        }
        for used in receipts {
            state.receipts[used.receipt]??.usedBy = key
            state.receipts[used.receipt]??.usedField = used.field
        }
        let record = planned.record(in: database)
        plan.events.append(RecordEvent(
            kind: live == nil ? .created : .updated, zone: batch.zone, record: record, fields: fields.values,
            sharedReaders: try sharedReaders(of: name)
        ))
        return record
    }

    /// Gives a record of the batch's zone a short GUID, keeping its change tag.
    mutating func setShortGUID(_ name: String, _ guid: String) {
        plan.writes.append(.setShortGUID(key(name), guid))
        state.records[key(name)]?.shortGUID = guid
    }

    // MARK: - References

    static func references(in fields: [String: FieldValue]) -> [Reference] {
        fields.values.flatMap(\.elements).compactMap { value in
            if case .reference(let reference) = value { return reference }
            return nil
        }
    }

    /// The zone a reference points into, if it is live.
    mutating func targetZone(of reference: Reference) throws -> String? {
        if let owner = reference.zoneID?.ownerRecordName, database.scope == .private,
            owner != database.ownerRecordName, owner != "_defaultOwner", owner != "__defaultOwner__"
        {
            throw StorageError(.invalidArgument, "a reference cannot point into another user's database")
        }
        guard let zone = reference.zoneID?.zoneName, zone != zoneName else { return zoneName }
        return try zoneIsLive(zone) ? zone : nil
    }

    /// Checks that every reference may be saved, and that `VALIDATE` ones point at live records.
    mutating func validateReferences(in fields: [String: FieldValue]) throws {
        for reference in Self.references(in: fields) {
            let zone = try targetZone(of: reference)
            guard reference.action == .validate else { continue }
            guard let zone, let target = try row(RecordKey(zoneName: zone, recordName: reference.recordName)), !target.deleted else {
                throw StorageError(.validatingReference, "a VALIDATE reference points at record \(reference.recordName), which does not exist")
            }
        }
    }
}
