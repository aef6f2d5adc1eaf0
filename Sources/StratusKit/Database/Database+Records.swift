import Foundation
internal import StratusModel

/// Saving, fetching, deleting and querying records.
extension Database {
    /// Saves one record: creates it, or updates it if it was fetched (its change tag must still be current).
    /// - Returns: the record as saved, with its new change tag.
    /// - Throws: ``StratusError``; `serverRecordChanged` carries the server's, the client's and the ancestor record.
    @discardableResult
    public func save(_ record: Record) async throws -> Record {
        let results = try await modifyRecords(saving: [record], deleting: [])
        return try results.saveResults[record.recordID]!.get()
    }

    /// Saves and deletes records. When one item was given, its failure is thrown as it is, as ``save(_:)-(Record)``
    /// throws it; when several were, any failure throws `partialFailure`, its ``StratusError/partialErrorsByItemID``
    /// naming each (the callback API's way).
    /// - Returns: the saved records, in the order given.
    @discardableResult
    public func save(_ records: [Record], deleting recordIDs: [Record.ID] = [], savePolicy: SavePolicy = .ifServerRecordUnchanged, atomically: Bool = true) async throws -> [Record] {
        let results = try await modifyRecords(saving: records, deleting: recordIDs, savePolicy: savePolicy, atomically: atomically)
        var failures: [Record.ID: StratusError] = [:]
        for (id, result) in results.saveResults {
            if case .failure(let error) = result { failures[id] = error as? StratusError ?? StratusError(.internalError, "\(error)") }
        }
        for (id, result) in results.deleteResults {
            if case .failure(let error) = result { failures[id] = error as? StratusError ?? StratusError(.internalError, "\(error)") }
        }
        guard failures.isEmpty else {
            if records.count + recordIDs.count == 1, let only = failures.values.first { throw only }
            var error = StratusError(.partialFailure, "\(failures.count) of \(records.count + recordIDs.count) items failed")
            error.partialErrorsByItemID = failures
            throw error
        }
        return try records.map { try results.saveResults[$0.recordID]!.get() }
    }

    /// The record with this ID.
    /// - Throws: ``StratusError`` `unknownItem` when it does not exist (or is not visible to the caller).
    public func record(for recordID: Record.ID) async throws -> Record {
        try await records(for: [recordID])[recordID]!.get()
    }

    /// Deletes a record (and, on the server, what references it with `deleteSelf`).
    @discardableResult
    public func deleteRecord(withID recordID: Record.ID) async throws -> Record.ID {
        let results = try await modifyRecords(saving: [], deleting: [recordID])
        try results.deleteResults[recordID]!.get()
        return recordID
    }

    /// Fetches records by ID; each answers a record or its own error.
    public func records(for ids: [Record.ID], desiredKeys: [String]? = nil) async throws -> [Record.ID: Result<Record, any Error>] {
        var results: [Record.ID: Result<Record, any Error>] = [:]
        for (zoneID, zoneIDs) in Dictionary(grouping: ids, by: \.zoneID) {
            let request = LookupRecordsRequest(
                records: zoneIDs.map { LookupRecordsRequest.Item(recordName: $0.recordName) }, zoneID: zoneID.model, desiredKeys: desiredKeys
            )
            let answer = try await container.post(databaseScope, "records/lookup", request, answer: RecordsResponse.self)
            for (id, entry) in zip(zoneIDs, answer.records) {
                results[id] = Result { try self.record(from: entry, sent: nil) }
            }
        }
        return results
    }

    /// Saves and deletes records, per zone in one request each. With `atomically` (custom zones), a zone's
    /// changes are kept all or none. Assets made from files or data are uploaded first. Each change of a zone that
    /// does not exist fails with `zoneNotFound`, as in CloudKit.
    public func modifyRecords(
        saving recordsToSave: [Record], deleting recordIDsToDelete: [Record.ID],
        savePolicy: SavePolicy = .ifServerRecordUnchanged, atomically: Bool = true
    ) async throws -> (saveResults: [Record.ID: Result<Record, any Error>], deleteResults: [Record.ID: Result<Void, any Error>]) {
        var saveResults: [Record.ID: Result<Record, any Error>] = [:]
        var deleteResults: [Record.ID: Result<Void, any Error>] = [:]
        var prepared: [Record] = []
        for record in recordsToSave {
            prepared.append(try await uploadingAssets(of: record))
        }
        let zones = Set(prepared.map(\.recordID.zoneID)).union(recordIDsToDelete.map(\.zoneID))
        for zoneID in zones.sorted(by: { $0.zoneName < $1.zoneName }) {
            let saves = prepared.filter { $0.recordID.zoneID == zoneID }
            let deletes = recordIDsToDelete.filter { $0.zoneID == zoneID }
            let operations = saves.map { record in Self.operation(saving: record, policy: savePolicy) }
                + deletes.map { id in RecordOperationInput(operationType: .forceDelete, record: RecordInput(recordName: id.recordName)) }
            let request = ModifyRecordsRequest(operations: operations, zoneID: zoneID.model, atomic: atomically)
            let entries: [RecordResultEntry]
            do {
                entries = try await container.post(databaseScope, "records/modify", request, answer: RecordsResponse.self).records
            } catch let error as StratusError where error.code == .zoneNotFound {
                // As CloudKit reports it: each change of a missing zone fails with zoneNotFound, and the other
                // zones' changes go on.
                for record in saves { saveResults[record.recordID] = .failure(error) }
                for id in deletes { deleteResults[id] = .failure(error) }
                continue
            }
            for (record, entry) in zip(saves, entries) {
                saveResults[record.recordID] = Result { try self.record(from: entry, sent: record) }
            }
            for (id, entry) in zip(deletes, entries.dropFirst(saves.count)) {
                deleteResults[id] = Result {
                    if case .failure(let failure) = entry { throw try self.error(from: failure, sent: nil) }
                }
            }
        }
        return (saveResults, deleteResults)
    }

    /// One `records/modify` operation for a record, by policy.
    private static func operation(saving record: Record, policy: SavePolicy) -> RecordOperationInput {
        let isNew = record.recordChangeTag == nil
        let (type, keys): (RecordOperationType, Set<String>?) = switch policy {
        case .ifServerRecordUnchanged: isNew ? (.create, nil) : (.update, record.changedKeys)
        case .changedKeys: (.forceUpdate, isNew ? nil : record.changedKeys)
        case .allKeys: (.forceReplace, nil)
        }
        return RecordOperationInput(operationType: type, record: record.input(keys: keys))
    }

    /// The record of a per-item answer, or the item's error.
    func record(from entry: RecordResultEntry, sent: Record?) throws -> Record {
        switch entry {
        case .record(let record): return try Record(model: record, currentUser: container.currentUserRecordName)
        case .failure(let failure): throw try error(from: failure, sent: sent)
        case .deleted(let deletion): throw StratusError(.internalError, "the server answered record \(deletion.recordName) as deleted")
        }
    }

    /// A per-item error; a conflict carries the server's, the client's and the ancestor record.
    func error(from failure: RecordErrorEntry, sent: Record?) throws -> StratusError {
        var error = Container.error(serverErrorCode: failure.serverErrorCode, reason: failure.reason, retryAfter: failure.retryAfter)
        if error.code == .serverRecordChanged {
            error.serverRecord = try failure.serverRecord.map { try Record(model: $0, currentUser: container.currentUserRecordName) }
            error.clientRecord = sent
            if var ancestor = sent, let fetched = sent?.fetchedValues {
                ancestor.values = fetched
                ancestor.changedKeys = []
                error.ancestorRecord = ancestor
            }
        }
        return error
    }
}
