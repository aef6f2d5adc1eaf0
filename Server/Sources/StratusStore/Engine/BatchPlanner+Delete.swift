import StratusModel

/// Deleting a record with what `DELETE_SELF` references take along, guarded by `VALIDATE` ones.
extension BatchPlanner {
    /// Deletes a record and, transitively, every record that points at it with `DELETE_SELF`; a deleted
    /// shared root takes its share along.
    ///
    /// Refused when a record outside the deleted set still points at a deleted one with `VALIDATE`.
    mutating func deleteCascading(_ root: StoredRecord) throws {
        if root.type == Schema.usersType && !caller.isDeletingAccount {
            throw StorageError(.accessDenied, "Users records cannot be deleted")
        }
        var doomed: [RecordKey: StoredRecord] = [root.key: root]
        var order = [root.key]
        var queue = [root]
        while let target = queue.popLast() {
            for edge in try incomingReferences(target.key) where edge.action == .deleteSelf && doomed[edge.source] == nil {
                guard let source = try row(edge.source), !source.deleted else { continue }
                doomed[source.key] = source
                order.append(source.key)
                queue.append(source)
                guard doomed.count <= RecordLimits.maximumCascade else {
                    throw StorageError(.limitExceeded, "deleting this record would delete more than \(RecordLimits.maximumCascade) records through DELETE_SELF references")
                }
            }
        }
        for key in order {
            guard let shareName = doomed[key]?.share else { continue }
            let shareKey = RecordKey(zoneName: key.zoneName, recordName: shareName)
            guard doomed[shareKey] == nil, let share = try row(shareKey), !share.deleted else { continue }
            doomed[shareKey] = share
            order.append(shareKey)
        }
        for key in order {
            let guards = try incomingReferences(key).filter { $0.action == .validate && doomed[$0.source] == nil }
            if !guards.isEmpty {
                throw StorageError(.validatingReference, "record \(key.recordName) is still the target of a VALIDATE reference")
            }
        }
        for key in order {
            guard let record = doomed[key] else { continue }
            try tombstone(record, alongWith: doomed)
        }
    }

    /// Plans one deletion: the event (the record as it was), the share it ends, the row turned into a tombstone.
    private mutating func tombstone(_ record: StoredRecord, alongWith doomed: [RecordKey: StoredRecord]) throws {
        let readers = record.key.zoneName == zoneName ? try sharedReaders(of: record.key.recordName) : []
        plan.events.append(RecordEvent(
            kind: .deleted, zone: database.zone(record.key.zoneName), record: record.record(in: database),
            fields: (try? record.fields.decode()) ?? [:], sharedReaders: readers
        ))
        let sequence = takeSequence()
        if record.type == ShareRecords.recordType, record.key.zoneName == zoneName, let share = try share(record.key.recordName) {
            plan.writes.append(.removeShare(shareRecord: record.key.recordName, sequence: sequence))
            state.shares[record.key.recordName] = .some(nil)
            if let root = share.rootRecordName {
                state.shareRoots?.remove(root)
                let rootKey = key(root)
                if doomed[rootKey] == nil, let rootRow = try row(rootKey), !rootRow.deleted {
                    plan.writes.append(.markShareRoot(rootKey, share: nil, shortGUID: rootRow.shortGUID, sequence: sequence))
                    state.records[rootKey]?.share = nil
                }
            } else {
                state.zoneSharing?.zoneShare = nil
            }
        }
        let modified = RecordStamp(timestamp: batch.timestamp, userRecordName: caller.userRecordName ?? "", deviceID: caller.deviceID)
        plan.writes.append(.deleteRecord(key: record.key, sequence: sequence, modified: modified))
        var tombstone = record
        tombstone.deleted = true
        tombstone.fields = EncodedFields(json: "{}")
        tombstone.changeTag = ChangeTag.make(sequence)
        tombstone.modified = modified
        tombstone.share = nil
        tombstone.shortGUID = nil
        state.records[record.key] = tombstone
        setReferences(from: record.key, to: [])
        roundProbes[record.key] = []
    }
}
